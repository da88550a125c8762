"""The two games: settings, fouls and settlement of Asia Poker and Pai Gow Poker, their options, and Game."""
