"""Where a policy's EV goes: exact regret by hand category and by house-way rule, agreement with
the house way and with optimal play, and the costliest hands.

Input: the labels of a sample of hands (:class:`splitpoker.agents.evaluation.labels.HandLabels`:
every setting's EV) and the setting the policy played on each. Per hand::

    regret      = max EV - EV(played)                 (>= 0; an invalid action counts EV -1)
    optimal     = regret == 0                         (ties the best setting exactly)
    agrees      = played == the house way's setting
    category    = hand_categories.Category of the seven cards
    rule        = the house-way rule that sets the hand (the dealer's rule ids, any style)

A *breakdown* groups the hands by one key (category, rule, joker held or not) and gives per group:
``hands``, ``share`` (of all hands), ``mean_regret`` (with its 95% interval), ``regret_share``
(the group's part of the total regret: ``hands * mean_regret / (N * mean_regret_total)``),
``optimal_rate``, ``house_way_agreement``, and the same regret figures for the house way itself on
those hands (its rule-by-rule audit). Groups with no hands are left out, so each breakdown is a
partition of the sample: the hands add up to N and the hands-weighted mean regrets to the total.
"""

from __future__ import annotations

import numpy as np

from splitpoker.agents.evaluation.hand_categories import Category, categorize
from splitpoker.agents.evaluation.labels import HandLabels, house_way_rules, mean_ci, share_ci
from splitpoker.envs.rules.cards import JOKER, format_cards
from splitpoker.envs.rules.game import Game

REPORT_FORMAT = 1
FEW_HANDS = 20  # a group of fewer hands is marked in the tables: its figures rest on a handful of hands


def _share(part: float, total: float) -> float | None:
    return float(part / total) if total > 0 else None


def breakdown(keys: np.ndarray, names: dict[int, str], regret: np.ndarray, optimal: np.ndarray, agrees: np.ndarray,
              hw_regret: np.ndarray, *, field: str = "name") -> list[dict]:
    """One entry per key value present (in the order of ``names``): see the module docstring."""
    n = keys.size
    total, hw_total = float(regret.sum()), float(hw_regret.sum())
    out = []
    for key, name in names.items():
        sel = keys == key
        k = int(sel.sum())
        if k == 0:
            continue
        m, ci = mean_ci(regret[sel])
        hm, hci = mean_ci(hw_regret[sel])
        out.append({field: name, "hands": k, "share": k / n, "mean_regret": m, "regret_ci95": ci,
                    "regret_share": _share(float(regret[sel].sum()), total),
                    "optimal_rate": float(optimal[sel].mean()), "house_way_agreement": float(agrees[sel].mean()),
                    "house_way_mean_regret": hm, "house_way_regret_ci95": hci,
                    "house_way_regret_share": _share(float(hw_regret[sel].sum()), hw_total),
                    "house_way_optimal_rate": float((hw_regret[sel] <= 0).mean())})
    return out


def setting_text(game: Game, cards: np.ndarray, s: int) -> str:
    """The setting as a player reads it, e.g. ``back [Ah Kd 9c 9s 2h]  front [Qs Jd]``."""
    return "invalid action" if s < 0 else str(game.describe(cards, int(s)))


def build_report(game: Game, labels: HandLabels, played, *, policy: str, worst: int = 20) -> dict:
    """The report of ``policy`` having played ``played[i]`` on hand ``i`` of ``labels``: the
    fields of ``report.json`` (``hands``, ``mean_regret``, ``categories``, ``rules``, ``worst``,
    ...; the module docstring defines them)."""
    if isinstance(worst, bool) or not isinstance(worst, (int, np.integer)) or worst < 0:
        raise ValueError(f"worst={worst!r}: expected a count >= 0 of costliest hands to list")
    played = np.asarray(played, dtype=np.int64)
    cards = labels.cards
    regret = labels.regrets(played)
    optimal = regret <= 0.0
    hw, rule_ids = house_way_rules(game, cards)
    hw_regret = labels.regrets(hw)
    agrees = played == hw
    cats = categorize(cards, game)
    joker = (cards == JOKER).any(axis=1).astype(np.int64)
    m, ci = mean_ci(regret)
    hm, hci = mean_ci(hw_regret)
    diff, dci = mean_ci(regret - hw_regret)
    opt_rate = share_ci(optimal)
    hw_differs = share_ci(~(hw_regret <= 0))
    rule_names = game.style.rule_names
    report = {
        "format": REPORT_FORMAT, "policy": policy, "game": game.game, "style": game.style.value,
        "env": labels.env_id, "seed": labels.seed, "labeller": labels.labeller, "exact": labels.exact,
        "labels_sha256": labels.sha256, "hands": labels.hands,
        "mean_regret": m, "regret_ci95": ci,
        "optimal_rate": opt_rate[0], "optimal_rate_ci95": [opt_rate[1], opt_rate[2]],
        "house_way_agreement": float(agrees.mean()), "mean_ev": float(labels.played_ev(played).mean()),
        "optimal_mean_ev": float(labels.best.mean()),
        "house_way_mean_regret": hm, "house_way_regret_ci95": hci,
        "house_way_differs_from_optimal": hw_differs[0],
        "house_way_differs_from_optimal_ci95": [hw_differs[1], hw_differs[2]],
        "regret_minus_house_way": diff, "regret_minus_house_way_ci95": dci,
        "categories": breakdown(cats, {int(c): c.label for c in Category}, regret, optimal, agrees, hw_regret),
        "rules": breakdown(rule_ids, dict(enumerate(rule_names)), regret, optimal, agrees, hw_regret, field="rule"),
        "joker": breakdown(joker, {1: "joker", 0: "no joker"}, regret, optimal, agrees, hw_regret),
    }
    for entry in report["rules"]:
        entry["rule_id"] = rule_names.index(entry["rule"])
    best = labels.best_settings(prefer=hw)
    order = np.argsort(-regret, kind="stable")[:worst]
    report["worst"] = [{
        "index": int(i), "cards": format_cards(cards[i]), "chosen": setting_text(game, cards[i], played[i]),
        "optimal": setting_text(game, cards[i], best[i]), "house_way": setting_text(game, cards[i], hw[i]),
        "chosen_ev": float(labels.played_ev(played)[i]), "optimal_ev": float(labels.best[i]),
        "house_way_ev": float(labels.ev[i, hw[i]]), "regret": float(regret[i]),
        "category": Category(int(cats[i])).label, "rule": rule_names[int(rule_ids[i])],
    } for i in order if regret[i] > 0]
    return report


# ---- report.md ----------------------------------------------------------------------------------

def _pct(x) -> str:
    return "—" if x is None or x != x else f"{100 * x:.1f}%"


def _pm(x) -> str:
    """``±x`` to five places, ``±—`` for an undefined interval (a single hand)."""
    return "±—" if x is None or x != x else f"±{x:.5f}"


def _table(entries: list[dict], field: str) -> list[str]:
    head = (f"| {field} | hands | share | mean regret (±95%) | share of regret | optimal | = house way "
            f"| house way regret | house way's share |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for e in entries:
        few = f" (fewer than {FEW_HANDS} hands)" if e["hands"] < FEW_HANDS else ""
        lines.append(f"| {e[field]} | {e['hands']:,}{few} | {_pct(e['share'])} | {e['mean_regret']:.5f} "
                     f"({_pm(e['regret_ci95'])}) | {_pct(e['regret_share'])} | {_pct(e['optimal_rate'])} "
                     f"| {_pct(e['house_way_agreement'])} | {e['house_way_mean_regret']:.5f} "
                     f"| {_pct(e['house_way_regret_share'])} |")
    return lines


def report_markdown(report: dict, plots: dict[str, str]) -> str:
    """``report.md``: the summary, the category and rule tables, the plots, the costliest hands."""
    r = report
    src = {"exact": "exact solver (evaluation-set cache)", "table": "strategy table (no card removal: approximate)",
           "small-pool": "exact against a small dealer pool (NOT the real game)"}[r["labeller"]]
    lo, hi = r["optimal_rate_ci95"]
    dlo, dhi = r["house_way_differs_from_optimal_ci95"]
    lines = [
        f"# Where the EV goes: {r['policy']} on {r['env']} (dealer {r['style']})", "",
        f"{r['hands']:,} hands, sample seed {r['seed']}; labels: {src}. Regret = EV of the best setting minus EV "
        f"of the setting played, per unit of the main bet.", "",
        "| | policy | house way |", "|---|---:|---:|",
        f"| mean exact regret (±95%) | {r['mean_regret']:.5f} ({_pm(r['regret_ci95'])}) "
        f"| {r['house_way_mean_regret']:.5f} ({_pm(r['house_way_regret_ci95'])}) |",
        f"| plays optimally | {_pct(r['optimal_rate'])} ({_pct(lo)}–{_pct(hi)}) "
        f"| {_pct(1 - r['house_way_differs_from_optimal'])} |",
        f"| differs from optimal play | {_pct(1 - r['optimal_rate'])} "
        f"| {_pct(r['house_way_differs_from_optimal'])} ({_pct(dlo)}–{_pct(dhi)}) |",
        f"| sets the hand as the house way | {_pct(r['house_way_agreement'])} | 100% |",
        f"| policy minus house way, regret (paired) | {r['regret_minus_house_way']:+.5f} "
        f"({_pm(r['regret_minus_house_way_ci95'])}) | |", "",
        "## By hand category", "", *_table(r["categories"], "name"), "",
    ]
    if "categories" in plots:
        lines += [f"![regret by category]({plots['categories']})", ""]
    lines += ["## By house-way rule (the rule that sets the hand for the dealer)", "",
              *_table(r["rules"], "rule"), ""]
    if "rules" in plots:
        lines += [f"![regret by rule]({plots['rules']})", ""]
    lines += ["## Joker", "", *_table(r["joker"], "name"), ""]
    if r.get("card_rules"):
        lines += ["## By the card's own rules (the first rule that applies decides)", "",
                  "| rule | hands | mean regret (±95%) | share of regret | optimal | house way regret "
                  "| adds to policy - house way |", "|---|---:|---:|---:|---:|---:|---:|"]
        for e in r["card_rules"]:
            if not e["hands"]:
                lines.append(f"| {e['rule']}. {e['name']} | 0 | — | — | — | — | — |")
                continue
            few = f" (fewer than {FEW_HANDS} hands)" if e["hands"] < FEW_HANDS else ""
            lines.append(f"| {e['rule']}. {e['name']} | {e['hands']:,}{few} | {e['mean_regret']:.5f} "
                         f"({_pm(e['regret_ci95'])}) | {_pct(e['regret_share'])} | {_pct(e['optimal_rate'])} "
                         f"| {e['house_way_mean_regret']:.5f} | {e['minus_house_way_per_hand']:+.5f} |")
        lines.append("")
    lines += ["## Costliest hands", ""]
    if not r["worst"]:
        lines.append("No hand costs anything: every hand was played optimally.")
    else:
        lines += ["| # | cards | played (EV) | optimal (EV) | house way (EV) | regret | category | rule |",
                  "|---:|---|---|---|---|---:|---|---|"]
        for k, w in enumerate(r["worst"], 1):
            lines.append(f"| {k} | {w['cards']} | {w['chosen']} ({w['chosen_ev']:+.4f}) | {w['optimal']} "
                         f"({w['optimal_ev']:+.4f}) | {w['house_way']} ({w['house_way_ev']:+.4f}) "
                         f"| {w['regret']:.4f} | {w['category']} | {w['rule']} |")
    return "\n".join(lines) + "\n"


def plot_breakdown(entries: list[dict], field: str, path, title: str) -> None:
    """Horizontal bars of mean regret per group, the policy beside the house way, on a symlog
    axis (linear below 1e-4, logarithmic above), so that small regrets stay visible."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [f"{e[field]} ({e['hands']:,})" for e in entries]
    y = np.arange(len(entries))
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.32 * max(1, len(entries))))
    ax.barh(y - 0.2, [e["mean_regret"] for e in entries], height=0.4, label="policy", color="#4c72b0",
            xerr=[0 if e["regret_ci95"] != e["regret_ci95"] else e["regret_ci95"] for e in entries], error_kw={"lw": 0.7})
    ax.barh(y + 0.2, [e["house_way_mean_regret"] for e in entries], height=0.4, label="house way", color="#dd8452")
    ax.set_xscale("symlog", linthresh=1e-4)
    ax.set_xlim(left=0)
    ax.set_yticks(y, names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("mean exact regret per hand (symlog: linear below 1e-4)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
