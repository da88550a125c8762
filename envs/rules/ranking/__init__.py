"""Hand ranking: the raw-key evaluators, the rank tables, hand categories and combinatorics."""
