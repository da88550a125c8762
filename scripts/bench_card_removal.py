#!/usr/bin/env python
"""Card removal: exact regret of policies against the strategy table's on the same cached hands,
with the paired difference that shows whether they are apart.

Two sets (``--set``), both those of the benchmark's tasks (:mod:`splitpoker.agents.benchmark.tasks`):

``setting``       ``--hands`` deals of ``hand_seeds(--seed)``, every setting's exact EV computed once
                  and cached (:func:`splitpoker.agents.exact.eval_set.load_evalset`; ~0.15 s of exact
                  solving per hand the first time): every hand, the honest comparison.
``card_removal``  the card-removal task's hands: the first ``--hands`` deals of the same seed stream
                  on which the strategy table is *not* optimal (``--margin``, as in the grid's
                  ``card_removal_margin``; :func:`splitpoker.agents.exact.eval_set.load_card_removal_set`).
                  The set is chosen by the table's mistakes, so the table's regret is positive on
                  every hand by construction: any other policy is favoured there.

Seed 2025 with 250 / 40 hands is the headline grid's *test* split (configs/benchmark/headline.yaml);
nothing in table-eor is fitted or chosen (it has no parameters).

Each policy plays every hand of the set in the setting environment (one dealer hand: the real game);
its regret on a hand is the exact EV of the optimal setting minus that of the setting it played.
Reported per policy: mean regret ± 95% interval over hands, share played optimally, CPU seconds per
decision; against the reference (``--reference``, default ``table``): the paired difference
reference − policy ± its 95% interval (apart when the interval excludes 0), the share of hands where
the two play different settings and the mean regret of each on those hands. JSON to stdout (and
``--out``).

Policies (``--policy``, repeatable; default ``table-eor``): a baseline name of
splitpoker.agents.policies.baselines (``table-eor``, ``table``, ``house-way``, ...) or a saved model .zip.

Examples:
    python scripts/bench_card_removal.py --game paigow --hands 250 --seed 2025
    python scripts/bench_card_removal.py --game asia --set card_removal --hands 40 --seed 2025 \\
        --policy table-eor --policy runs/<run>/model.zip --out /tmp/card_removal_asia.json
"""

# ruff: noqa: E402  (the Ctrl-C guard runs before the slow imports)
from __future__ import annotations

import sys

if __name__ == "__main__":
    from splitpoker.scripts.support.cli import install_startup_interrupt

    install_startup_interrupt()

import argparse
import time
from pathlib import Path

from splitpoker.scripts.support import cli

ENVS = cli.SETTING_ENVS


def parse_args(argv=None):
    from splitpoker.agents.policies.baselines import BASELINES

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(ENVS), default="paigow",
                   help="asia (dealer asia-000) or paigow (paigow-igw, 5%% commission); default paigow")
    p.add_argument("--hands", type=cli.count(2, 100_000, "time: ~0.15 s of exact solving per new hand"), default=1000,
                   help="hands of the evaluation set (default 1000)")
    p.add_argument("--seed", type=cli.seed, default=2025,
                   help="seed of the evaluation set's hands (default 2025: the benchmark's test split)")
    p.add_argument("--set", dest="which", choices=("setting", "card_removal"), default="setting",
                   help="every deal (setting, default) or only the deals the strategy table misplays (card_removal)")
    p.add_argument("--margin", type=cli.positive_float(1.0, "a table-EV gap"), default=None,
                   help="card_removal set: table-EV gap below which a deal is solved (default the grid's 0.03)")
    p.add_argument("--policy", action="append", default=[], metavar="NAME|PATH",
                   help=f"a policy to score (repeatable): one of {sorted(BASELINES)} or a saved model .zip "
                        f"(default: table-eor); loading a model runs the code pickled in it: load only "
                        f"models you trust")
    p.add_argument("--reference", default="table", choices=sorted(BASELINES),
                   help="the policy the others are paired with (default table)")
    p.add_argument("--out", help="also write the JSON here (.json, atomically; the folder is checked first)")
    args = p.parse_args(argv)
    for m in args.policy:
        if m not in BASELINES and not Path(m).is_file():
            p.error(f"--policy {m}: no such file, expected a saved model .zip or one of {sorted(BASELINES)}")
    return args


def build_policies(env, names: list[str]):
    from splitpoker.agents.policies.baselines import BASELINES, SB3Policy, make_baseline
    from splitpoker.agents.training.models import load_model

    out = {}
    for m in names:
        if m in BASELINES:
            out[m] = make_baseline(m, env, **({"seed": 0} if m in ("random", "mc-best") else {}))
        else:
            model, _ = load_model(m)
            out[m] = SB3Policy.from_env(env, model=model, name=m)
    return out


def model_env(names: list[str], game: str) -> tuple[str, dict]:
    """The environment to play in: the game's setting env, with the observation options of the
    saved models among ``names`` (they must agree on the env id)."""
    from splitpoker.agents.policies.baselines import BASELINES
    from splitpoker.agents.training.models import load_model

    env_id, kw = ENVS[game]
    configs = []
    for m in names:
        if m not in BASELINES:
            try:
                configs.append((m, load_model(m)[1]))
            except Exception as e:  # noqa: BLE001 - any unloadable file is a user error here
                raise ValueError(f"--policy {m}: cannot load it as a saved model ({type(e).__name__}: {e})") from None
    found, model_kw = cli.env_of_models(configs, None, {})
    if found is not None and found != env_id:
        raise ValueError(f"a model was trained on {found}, not on {game}'s {env_id}")
    return env_id, {**model_kw, **kw}


def measure(game: str, hands: int, seed: int, names: list[str], reference: str, which: str = "setting",
            margin: float | None = None, log=print) -> dict:
    from splitpoker.agents.evaluation.evaluate import mean_ci, run_policy
    from splitpoker.agents.exact.eval_set import (
        CARD_REMOVAL_MARGIN,
        load_card_removal_set,
        load_evalset,
        make_eval_env,
    )

    names = list(dict.fromkeys([reference, *(names or ["table-eor"])]))
    env_id, kw = model_env(names, game)
    log(f"evaluation set ({which}): {hands} hands of seed {seed} ({env_id}), exact EVs cached")
    if which == "card_removal":
        margin = CARD_REMOVAL_MARGIN if margin is None else margin
        es = load_card_removal_set(env_id, kw, hands, seed, margin=margin, log=log)
    else:
        es = load_evalset(env_id, kw, hands, seed, log=log)
    env = make_eval_env(env_id, kw)
    policies = build_policies(env, names)
    regrets, settings, out = {}, {}, {}
    for name, pol in policies.items():
        run_policy(env, pol, list(es.seeds[:2]))  # warm-up: tables loaded, kernels compiled
        t0 = time.process_time()
        rec = run_policy(env, pol, list(es.seeds))
        seconds = time.process_time() - t0
        row = es.score(rec.settings, rec.cards)
        row["cpu_seconds_per_decision"] = seconds / es.hands
        regrets[name], settings[name], out[name] = es.regrets(rec.settings), rec.settings, row
        log(f"{name}: exact regret {row['mean_regret']:.5f} ± {row['regret_ci95']:.5f}, optimal "
            f"{row['optimal_rate']:.3f}, {1e3 * row['cpu_seconds_per_decision']:.2f} ms per decision")
    env.close()
    paired = {}
    for name in policies:
        if name == reference:
            continue
        d, ci = mean_ci(regrets[reference] - regrets[name])
        differ = settings[reference] != settings[name]
        paired[name] = {"reference_minus_policy": d, "ci95": ci, "apart": bool(d - ci > 0 or d + ci < 0),
                        "hands_played_differently": int(differ.sum()), "share_played_differently": float(differ.mean()),
                        "reference_regret_where_different": float(regrets[reference][differ].mean()) if differ.any() else 0.0,
                        "policy_regret_where_different": float(regrets[name][differ].mean()) if differ.any() else 0.0}
        log(f"{reference} - {name}: {d:.5f} ± {ci:.5f} ({'apart' if paired[name]['apart'] else 'not apart'}); "
            f"different settings on {differ.sum()} of {es.hands} hands")
    return {"game": game, "env_id": env_id, "set": which, "hands": es.hands, "seed": seed, "evalset_sha256": es.sha256,
            **({"margin": margin, "deals_scanned": es.candidates} if which == "card_removal" else {}),
            "reference": reference, "policies": out, "paired_with_reference": paired}


@cli.leaves_process_as_found
def main(argv=None) -> int:
    args = parse_args(argv)
    return cli.run_measurement(args.out, lambda log: measure(args.game, args.hands, args.seed, args.policy,
                                                             args.reference, args.which, args.margin, log=log))


if __name__ == "__main__":
    sys.exit(cli.finished(main()))
