"""Exact play on disk: the solved strategy of every hand class, solve samples and evaluation sets."""
