"""Policies: the baselines (random, house way, Monte Carlo, exact), the setting scorer and the strategy table."""
