"""splitpoker rules core: cards, ranking, settings, fouls, settlement, bonus pay tables.

Imports only the standard library, numpy and numba (a test checks it).
"""
