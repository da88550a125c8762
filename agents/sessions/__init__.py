"""Bankroll sessions: the round distribution, the exact betting DP and session evaluation."""
