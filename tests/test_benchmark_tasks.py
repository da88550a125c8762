"""The benchmark's tasks (agents/benchmark/tasks.py): each normalised score at its two anchors,
the optimum (1) and the random legal policy (0), computed independently of the anchor itself;
the validation/test split and the refusals before any training."""

from __future__ import annotations

import math

import numpy as np
import pytest

from splitpoker.agents.benchmark import tasks
from splitpoker.agents.benchmark.config import BenchmarkConfig, ConfigError
from splitpoker.agents.policies.baselines import OptimalPolicy, RandomPolicy

ASIA = "splitpoker/AsiaPokerSetting-v0"
ASIA_KW = {"house_way": "asia-000", "dealer_samples": 4, "observe_settings": True}
BETS = "splitpoker/PaiGowPoker-v0"
BETS_KW = {"house_way": "paigow-igw", "dealer_samples": 4, "observe_settings": True, "wager_levels": [5, 10, 25],
           "fortune_levels": [0, 5]}
SESSION = "splitpoker/PaiGowPokerSession-v0"
SESSION_KW = {"bankroll": 100, "target": 150}


def grid(**over):
    cfg = {"name": "t", "executor": "local", "total_timesteps": 256, "eval_every": 128, "seeds": [0, 1],
           "eval": {"hands": 6, "validation_seed": 2024, "test_seed": 2025},
           "envs": [{"id": ASIA, "label": "asia", "kwargs": ASIA_KW}],
           "algorithms": [{"name": "A", "algo": "maskable_ppo", "policy": "MlpPolicy"}], "references": []}
    cfg.update(over)
    return cfg


# ---- refusals before any training ----------------------------------------------------------------

@pytest.mark.parametrize("over, fragment", [
    ({"eval": {"hands": 6, "validation_seed": 7, "test_seed": 7}}, "test_seed=7 is also the validation_seed"),
    ({"seeds": [3]}, r"seeds=\[3\]: 1 seed\(s\), but the bootstrap intervals across seeds need at least 2"),
    ({"envs": [{"id": ASIA, "kwargs": ASIA_KW, "tasks": ["setting", "poker_face"]}]}, "unknown task 'poker_face'"),
    ({"envs": [{"id": ASIA, "kwargs": ASIA_KW, "tasks": ["session"]}]}, "task 'session' in envs\\[0\\].tasks does not fit"),
    ({"eval": {"hands": 6, "seed": 2024}}, "eval.seed=2024: a grid now has two sets"),
    ({"eval": {"hands": 6, "validation_seed": 1}}, "eval is missing 'test_seed'"),
])
def test_bad_grids_are_refused_naming_the_problem(over, fragment):
    with pytest.raises(ConfigError, match=fragment):
        BenchmarkConfig.from_dict(grid(**over))


def test_a_sweep_may_train_one_seed_and_reads_validation():
    cfg = BenchmarkConfig.from_dict(grid(seeds=[4]), min_seeds=1)
    assert cfg.seeds == (4,) and cfg.eval_seed == cfg.validation_seed == 2024 and cfg.test_seed == 2025


def test_cli_refuses_a_bad_grid_before_training(tmp_path):
    import subprocess
    import sys

    import yaml

    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(grid(eval={"hands": 6, "validation_seed": 5, "test_seed": 5})))
    r = subprocess.run([sys.executable, "scripts/benchmark_rl.py", "--config", str(path), "--no-ray", "--out",
                        str(tmp_path / "out")], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "test_seed=5 is also the validation_seed" in r.stderr
    assert not (tmp_path / "out").exists()  # nothing trained, nothing written


# ---- anchors ------------------------------------------------------------------------------------

def _random_mean(scorer, reps: int) -> tuple[float, float]:
    """Mean regret of the random legal policy over ``reps`` independent plays of the set."""
    vals = [scorer.score(RandomPolicy.from_env(scorer.env, seed=k))["mean_regret"] for k in range(reps)]
    return float(np.mean(vals)), float(np.std(vals, ddof=1) / math.sqrt(reps))


def test_setting_task_anchors():
    data = tasks.prepare("setting", "test", ASIA, ASIA_KW, 6, 2025)
    # the anchor by brute force: every hand, every unfouled setting
    es = data.evalset
    by_hand = [np.mean([es.best[i] - es.ev[i, s] for s in range(es.ev.shape[1]) if es.ev[i, s] > -1.0])
               for i in range(es.hands)]
    assert data.random_regret == pytest.approx(np.mean(by_hand), abs=1e-12)
    scorer = tasks.make_scorer(data, 6)
    opt = scorer.score(OptimalPolicy.from_env(scorer.env))  # solves each hand afresh: independent of the cache
    assert opt["mean_regret"] == pytest.approx(0.0, abs=1e-12) and opt["normalized"] == pytest.approx(1.0)
    m, se = _random_mean(scorer, 150)
    assert abs(1.0 - m / data.random_regret) < 4 * se / data.random_regret + 1e-9  # played random -> 0


def test_card_removal_set_holds_only_hands_the_table_misplays():
    from splitpoker.agents.policies.baselines import StrategyTablePolicy

    data = tasks.prepare("card_removal", "test", ASIA, ASIA_KW, 2, 2025, card_removal_margin=0.03)
    es = data.evalset
    assert es.kind == "card_removal" and es.hands == 2 and es.candidates >= 2
    scorer = tasks.make_scorer(data, 2)
    table = scorer.score(StrategyTablePolicy.from_env(scorer.env))
    assert table["optimal_rate"] == 0.0 and table["mean_regret"] > 0  # the table misplays every hand
    assert table["regret_vs_table"] == pytest.approx(0.0, abs=1e-12)
    assert scorer.score(OptimalPolicy.from_env(scorer.env))["normalized"] == pytest.approx(1.0)


def test_bets_task_anchors():
    data = tasks.prepare("bets", "test", BETS, BETS_KW, 6, 2025)
    b = data.bets
    assert b["v_star"] < 0 and all(v < 0 for k, v in b["bonus_chips"].items() if float(k) > 0)
    scorer = tasks.make_scorer(data, 6)
    opt = scorer.score(OptimalPolicy.from_env(scorer.env))  # bets the minimum, no bonus, optimal setting
    assert opt["min_bet_rate"] == 1.0 and opt["normalized"] == pytest.approx(1.0)
    # random anchor by hand: uniform over the 3 x 2 bets, uniform over unfouled settings
    es = data.evalset
    rs = np.mean([np.mean([es.best[i] - e for e in es.ev[i] if e > -1.0]) for i in range(es.hands)])
    expect = np.mean([(w / 5) * rs + (w / 5 - 1) * (-b["v_star"]) - b["bonus_chips"][str(float(f))] / 5
                      for w in (5, 10, 25) for f in (0, 5)])
    assert data.random_regret == pytest.approx(expect, rel=1e-12)
    m, se = _random_mean(scorer, 300)
    assert abs(m - data.random_regret) < 4 * se  # played random -> 0


@pytest.mark.slow  # a long-running check (about 100-160 s on 2 cores)
def test_session_task_anchors():
    import gymnasium as gym

    from splitpoker.agents.sessions import dp as sd

    data = tasks.prepare("session", "test", SESSION, SESSION_KW, 2, 2025)
    s = data.session
    sol = sd.solve(s["dist"], sd.BetTable(tuple(gym.make(SESSION, **SESSION_KW).unwrapped.bet_table)), 100, 150)
    assert s["p_optimal"] == pytest.approx(sol.success(100))
    scorer = tasks.make_scorer(data, 2)

    class DP:  # the DP's table, read through the observation the env shows
        def act(self, obs, mask):
            bankroll = round(float(obs[0]) * 150 / sol.model.grid) * sol.model.grid
            return sol.action(bankroll)

    assert scorer.score(DP())["normalized"] == pytest.approx(1.0, abs=1e-9)
    # random anchor: simulated sessions of uniformly random legal bets (real deals, not the DP's model)
    env = gym.make(SESSION, **SESSION_KW)
    rng = np.random.default_rng(0)
    wins = []
    for k in range(1500):
        obs, info = env.reset(seed=k)
        while True:
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            if term or trunc:
                break
        wins.append(bool(info.get("reached_target")))
    p, se = np.mean(wins), np.std(wins) / math.sqrt(len(wins))
    assert abs(p - s["p_random"]) < 4 * se


def test_evaluate_mixed_equals_the_dp_on_deterministic_policies():
    import gymnasium as gym

    from splitpoker.agents.sessions import dp as sd

    data = tasks.prepare("session", "validation", SESSION, SESSION_KW, 2, 2024)
    table = sd.BetTable(tuple(gym.make(SESSION, **SESSION_KW).unwrapped.bet_table))
    model = sd.SessionModel.build(data.session["dist"], table, 100, 150)
    flat = np.full(model.n, sd.flat_action(table))
    w = np.zeros((model.n, len(table.bets)))
    w[np.arange(model.n), flat] = 1.0
    assert tasks.evaluate_mixed(model, w) == pytest.approx(model.evaluate(flat), abs=1e-12)
    w[model.n // 2] = 0.0  # an illegal bet at one state: the session fails there
    v = tasks.evaluate_mixed(model, w)
    assert v[model.n // 2] == 0.0 and v[model.state(100)] < model.evaluate(flat)[model.state(100)]


def test_validation_and_test_sets_are_disjoint_and_a_shared_hand_is_refused():
    import dataclasses

    from splitpoker.agents.exact.eval_set import check_disjoint

    val = tasks.prepare("setting", "validation", ASIA, ASIA_KW, 6, 2024).evalset
    test = tasks.prepare("setting", "test", ASIA, ASIA_KW, 6, 2025).evalset
    check_disjoint(val, test)
    leaked = dataclasses.replace(test, cards=np.vstack([val.cards[:1], test.cards[1:]]))
    with pytest.raises(ValueError, match="share 1 hand"):
        check_disjoint(val, leaked)
    with pytest.raises(ValueError, match="share seed 2024"):
        check_disjoint(val, val)


# ---- card files as references ---------------------------------------------------------------------

PAIGOW = "splitpoker/PaiGowPokerSetting-v0"
PAIGOW_KW = {"house_way": "paigow-igw", "dealer_samples": 4, "observe_settings": True}
IGW_CARD = "configs/strategies/paigow_igw_house_way.yaml"  # one rule: house-way:paigow-igw
IGW_ROW = "card: IGW house way"
BAD_CARD = """game: paigow
name: broken
rules:
  - name: two pair
    if: {cat_two_pair: 1}
    then: groups:nope
  - then: house-way:paigow-igw
"""


def card_grid(**over):
    """An Asia setting env, the Pai Gow round with bets and the Pai Gow setting env (6 hands each)."""
    return grid(**{"eval": {"hands": 6, "paired_hands": 6, "validation_seed": 2024, "test_seed": 2025},
                   "envs": [{"id": ASIA, "label": "asia", "kwargs": ASIA_KW},
                            {"id": BETS, "label": "paigow_bets", "kwargs": BETS_KW},
                            {"id": PAIGOW, "label": "paigow", "kwargs": PAIGOW_KW}], **over})


def _same(a: dict, b: dict) -> bool:
    """Equal to the float, key by key (NaN equals NaN; the timing left out)."""
    keys = set(a) - {"seconds"}
    return keys == set(b) - {"seconds"} and all(
        a[k] == b[k] or (isinstance(a[k], float) and math.isnan(a[k]) and math.isnan(b[k])) for k in keys)


def test_a_card_reference_scores_exactly_as_the_house_way_it_spells_out(tmp_path):
    """The IGW house way as a card (its one rule ``house-way:paigow-igw``, played by the batch house-way
    kernel; HouseWayPolicy asks Game.house_way hand by hand: the two agree on 20,000 random hands,
    2,627 with the joker) gives the house-way row to the float on the setting task and on the bets
    task (where it bets the minimum, as house-way does); on the Asia task it is skipped, logged."""
    from splitpoker.agents.benchmark.harness import reference_rows

    cfg = BenchmarkConfig.from_dict(card_grid(references=["house-way", IGW_CARD]))
    assert cfg.references == ("house-way", IGW_CARD) and cfg.cards[IGW_CARD].row == IGW_ROW
    logs = []
    for label, task, env_id, kw in (("paigow", "setting", PAIGOW, PAIGOW_KW), ("paigow_bets", "bets", BETS, BETS_KW)):
        data = tasks.prepare(task, "test", env_id, kw, 6, 2025)
        rows = reference_rows(cfg, label, data, tmp_path, log=logs.append)
        assert set(rows) == {"house-way", IGW_ROW, "random (exact expectation)"}
        card_row = dict(rows[IGW_ROW])
        assert (card_row.pop("card_style"), card_row.pop("dealer")) == ("paigow-igw", "paigow-igw")
        assert _same(card_row, rows["house-way"]), (card_row, rows["house-way"])
        assert rows[IGW_ROW]["mean_regret"] > 0
    assert rows[IGW_ROW]["min_bet_rate"] == 1.0 and rows[IGW_ROW]["invalid_rate"] == 0.0  # the bets task
    asia = reference_rows(cfg, "asia", tasks.prepare("setting", "test", ASIA, ASIA_KW, 6, 2025), tmp_path,
                          log=logs.append)
    assert set(asia) == {"house-way", "random (exact expectation)"}
    assert (f"[asia] [setting] reference {IGW_ROW} ({IGW_CARD}): a card for paigow, this task deals asia hands: "
            "skipped") in logs


def test_a_card_meant_against_another_dealer_is_scored_against_the_envs_and_says_so(tmp_path):
    """A card's ``style`` is the dealer it is meant against; the benchmark scores it against the
    env's dealer: the row names both and the log says they differ. The Foxwoods house way as a card
    on an IGW-dealer env: its exact regret is the Foxwoods house-way setting's regret against IGW's
    dealer, the same as the ``house-way:paigow-foxwoods`` card without a style."""
    from splitpoker.agents.benchmark.harness import reference_rows

    fox = tmp_path / "fox.yaml"
    fox.write_text("game: paigow\nstyle: paigow-foxwoods\nname: Foxwoods way\nrules:\n"
                   "  - then: house-way:paigow-foxwoods\n")
    plain = tmp_path / "plain.yaml"
    plain.write_text("game: paigow\nname: Foxwoods way, no style\nrules:\n  - then: house-way:paigow-foxwoods\n")
    cfg = BenchmarkConfig.from_dict(card_grid(references=[str(fox), str(plain)]))
    logs = []
    rows = reference_rows(cfg, "paigow", tasks.prepare("setting", "test", PAIGOW, PAIGOW_KW, 6, 2025), tmp_path,
                          log=logs.append)
    a, b = rows["card: Foxwoods way"], rows["card: Foxwoods way, no style"]
    assert (a["card_style"], a["dealer"]) == ("paigow-foxwoods", "paigow-igw")
    assert (b["card_style"], b["dealer"]) == (None, "paigow-igw")
    assert a["mean_regret"] == b["mean_regret"]
    assert any("reference card: Foxwoods way: exact regret" in m and "meant against paigow-foxwoods; scored against "
               "this env's dealer, paigow-igw" in m for m in logs), logs
    assert not any("no style" in m and "meant against" in m for m in logs), logs


def test_an_edited_card_is_scored_again_and_a_moved_one_is_not(tmp_path, monkeypatch):
    import hashlib
    import json
    import shutil

    from splitpoker.agents.benchmark import harness

    calls = []
    real = harness.task_reference_rows
    monkeypatch.setattr(harness, "task_reference_rows", lambda *a, **k: calls.append(1) or real(*a, **k))
    card = tmp_path / "card.yaml"
    shutil.copy(IGW_CARD, card)
    data = tasks.prepare("setting", "test", PAIGOW, PAIGOW_KW, 6, 2025)

    def rows(path):
        cfg = BenchmarkConfig.from_dict(card_grid(references=[str(path)]))
        return harness.reference_rows(cfg, "paigow", data, tmp_path / "out", log=lambda m: None)

    first = rows(card)
    cached = rows(card)
    assert len(calls) == 1 and cached[IGW_ROW]["mean_regret"] == first[IGW_ROW]["mean_regret"]  # from the cache
    key = json.loads((tmp_path / "out" / "references" / "paigow.json").read_text())["key"]
    assert key["refs"] == [f"card sha256:{hashlib.sha256(card.read_bytes()).hexdigest()}"]
    moved = tmp_path / "moved.yml"
    shutil.copy(card, moved)
    assert rows(moved) == cached and len(calls) == 1  # the same content: the same rows
    card.write_text(card.read_text() + "# edited: a comment only, yet the content changed\n")
    assert rows(card)[IGW_ROW]["mean_regret"] == first[IGW_ROW]["mean_regret"] and len(calls) == 2
    card.write_text(card.read_text().replace("name: IGW house way", "name: my house way"))
    assert set(rows(card)) == {"card: my house way", "random (exact expectation)"} and len(calls) == 3


ONLY_ASIA = [{"id": ASIA, "label": "asia", "kwargs": ASIA_KW}]
ASIA_AND_SESSION = ONLY_ASIA + [{"id": SESSION, "label": "session", "kwargs": SESSION_KW}]  # a session sets no hand


@pytest.mark.parametrize("refs, kwargs, envs, fragment", [
    (["house-way", "configs/strategies/no_such_card.yaml"], {}, None,
     r"reference 'configs/strategies/no_such_card.yaml' in config: .*no_such_card.yaml: no such card file"),
    (["configs/strategies/paigow_simple.yaml"], {}, ONLY_ASIA, r"reference 'configs/strategies/paigow_simple.yaml' in "
     r"config: a card for paigow, but no env of this grid scores paigow hands"),
    ([IGW_CARD], {}, ASIA_AND_SESSION, r"a card for paigow, but no env of this grid scores paigow hands \(the envs "
     r"with hand tasks and their games: \{'asia': 'asia'\}\)"),
    ([IGW_CARD, "configs/strategies/fitted/paigow-igw.yaml", IGW_CARD], {}, None, "are both a card named 'IGW house way'"),
    ([IGW_CARD], {IGW_CARD: {"samples": 3}}, None, "a card file takes no keywords"),
    (["house-way", "notes.txt"], {}, None, r"unknown reference policy 'notes.txt': expected some of .* or a card file "
     r"\(a path ending .yaml, .yml, .json\)"),
])
def test_a_bad_card_reference_is_refused_naming_it(refs, kwargs, envs, fragment):
    over = {"references": refs, "reference_kwargs": kwargs, **({"envs": envs} if envs else {})}
    with pytest.raises(ConfigError, match=fragment):
        BenchmarkConfig.from_dict(card_grid(**over))


def test_card_paths_are_read_from_the_current_directory_and_rows_never_take_a_baseline_name(tmp_path, monkeypatch):
    (tmp_path / "hw.yaml").write_text(open(IGW_CARD).read().replace("name: IGW house way", "name: house-way"))
    (tmp_path / "stem_is_the_name.yaml").write_text("game: paigow\nrules:\n  - then: groups:fb\n")
    monkeypatch.chdir(tmp_path)
    cfg = BenchmarkConfig.from_dict(card_grid(references=["house-way", "hw.yaml", "stem_is_the_name.yaml"]))
    assert {r: (c.path, c.row) for r, c in cfg.cards.items()} == {
        "hw.yaml": (str(tmp_path / "hw.yaml"), "card: house-way"),
        "stem_is_the_name.yaml": (str(tmp_path / "stem_is_the_name.yaml"), "card: stem_is_the_name")}
    from splitpoker.agents.policies.baselines import BASELINES

    assert not any(b.startswith("card: ") for b in BASELINES)


def test_the_script_refuses_a_bad_card_before_any_work(tmp_path, capsys):
    import yaml

    from splitpoker.scripts import benchmark_rl

    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_CARD)
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(card_grid(references=["house-way"])))
    for extra in (["--check"], ["--no-ray"]):
        code = benchmark_rl.main(["--config", str(path), "--references", f"house-way,{bad}", "--out",
                                  str(tmp_path / "out"), *extra])
        err = capsys.readouterr().err
        assert code == 2, err
        assert f"error: reference {str(bad)!r} in {path}: {bad}: rule 1 ('two pair'): then 'groups:nope': unknown recipe" in err
        assert not (tmp_path / "out").exists()  # nothing prepared, nothing trained


def test_references_may_repeat_and_a_card_path_may_hold_a_comma(tmp_path, monkeypatch):
    """``--references`` given twice adds up; a card file whose path holds a comma, given whole, is one
    reference (split at the comma it would name two files that do not exist)."""
    import shutil

    import yaml

    from splitpoker.scripts import benchmark_rl

    card = tmp_path / "my,card.yaml"
    shutil.copy(IGW_CARD, card)
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(card_grid(references=["random"])))
    seen = {}
    real = BenchmarkConfig.from_yaml

    def spy(*a, **k):
        seen["references"] = k.get("references")
        return real(*a, **k)

    monkeypatch.setattr(BenchmarkConfig, "from_yaml", spy)
    code = benchmark_rl.main(["--config", str(path), "--references", "house-way,random", "--references", str(card),
                              "--out", str(tmp_path / "out"), "--check"])
    assert code == 0
    assert seen["references"] == ["house-way", "random", str(card)]
    assert benchmark_rl._references([f"house-way,{tmp_path}/no,such.yaml"]) == [
        "house-way", f"{tmp_path}/no", "such.yaml"]  # not a file: split, and refused by name later
    assert benchmark_rl._references([""]) == []  # '' for none
