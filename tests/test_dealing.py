"""Counter-based dealing: deterministic per (seed, round), distinct cards, uniform."""

import numpy as np

from splitpoker.envs.rules.dealing import deal_from, deal_round, stream_state


def test_deterministic_and_distinct():
    a = np.empty(14, dtype=np.int64)
    b = np.empty(14, dtype=np.int64)
    deal_round(7, 3, 14, a)
    deal_round(7, 3, 14, b)
    assert np.array_equal(a, b)
    assert len(set(a.tolist())) == 14 and a.min() >= 0 and a.max() <= 52
    deal_round(7, 4, 14, b)
    assert not np.array_equal(a, b)


def test_uniform_card_frequencies():
    # each card appears in a 7-card deal with probability 7/53; chi-square over 53 cards
    n = 40_000
    counts = np.zeros(53)
    out = np.empty(7, dtype=np.int64)
    for i in range(n):
        deal_round(1, i, 7, out)
        counts[out] += 1
    expected = n * 7 / 53
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 100  # 52 dof: p ~ 1e-4 at 100


def test_deal_from_pool_excludes_others():
    pool = np.arange(10, 53, dtype=np.int64)
    out = np.empty(7, dtype=np.int64)
    deal_from(stream_state(5, 0), pool, pool.size, 7, out)
    assert set(out.tolist()) <= set(pool.tolist()) and len(set(out.tolist())) == 7
