"""Bonus bets: the seven-card feature codes and the pay tables (Asia bonus, Fortune, Envy)."""
