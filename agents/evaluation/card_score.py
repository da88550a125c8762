"""A written card's exact score on labelled hands: its regret beside the house way's (and a fitted
card's), the share of hands it plays optimally, and the cost of each of *its* rules.

Per hand ``i`` of the labels (every setting's exact EV): the card plays ``s_i`` by the first rule
that applies (:mod:`splitpoker.agents.evaluation.card_file`); ``regret_i = max EV - EV(s_i)``.
Per rule: the hands it decides, their mean regret (95% interval), its share of the card's total
regret, the part it adds to the card-minus-house-way difference (``sum(regret - house way's
regret) / N`` over its hands: negative where the rule beats the house way), how many hands the
rule's conditions match that an earlier rule decides (the overlap a decision list resolves), and
its costliest hands. ``ev_minus_house_way`` is the mean EV gained over the house way per unit of
the main bet, i.e. the change of the house edge in points (negative = the player gains).
"""

from __future__ import annotations

import numpy as np

from splitpoker.agents.evaluation.card_features import feature_matrix
from splitpoker.agents.evaluation.card_file import WrittenCard
from splitpoker.agents.evaluation.decision_list import matches
from splitpoker.agents.evaluation.hand_categories import big_hand_size
from splitpoker.agents.evaluation.labels import HandLabels, house_way_rules, mean_ci
from splitpoker.envs.rules.cards import format_cards

SCORE_FORMAT = 1


def _setting(game, cards, s) -> str:
    return "invalid action" if s < 0 else str(game.describe(cards, int(s)))


def score_card(card: WrittenCard, game, labels: HandLabels, *, fitted: WrittenCard | None = None,
               worst_per_rule: int = 3) -> dict:
    """The score of ``card`` on ``labels`` (hands dealt by ``game``'s dealer; module docstring)."""
    cards = labels.cards
    X = feature_matrix(cards, big_hand_size(game))
    settings, rule = card.play(game, cards)
    r = labels.regrets(settings)
    hw = house_way_rules(game, cards)[0]
    h = labels.regrets(hw)
    n = labels.hands
    m, ci = mean_ci(r)
    hm, hci = mean_ci(h)
    d, dci = mean_ci(r - h)
    best = labels.best_settings(prefer=hw)
    out = {"format": SCORE_FORMAT, "card": card.name, "path": card.path, "source": card.source, "game": game.game,
           "style": game.style.value, "env": labels.env_id, "seed": labels.seed, "hands": n,
           "labeller": labels.labeller, "exact": labels.exact, "labels_sha256": labels.sha256,
           "exact_regret": m, "exact_regret_ci95": ci, "optimal_rate": float((r <= 0).mean()),
           "house_way_exact_regret": hm, "house_way_exact_regret_ci95": hci,
           "house_way_optimal_rate": float((h <= 0).mean()),
           "minus_house_way": d, "minus_house_way_ci95": dci,
           "ev_minus_house_way": -d, "ratio_to_house_way": m / hm if hm > 0 else None,
           "agrees_with_house_way": float((settings == hw).mean())}
    if fitted is not None:
        fs, _ = fitted.play(game, cards)
        fr = labels.regrets(fs)
        fm, fci = mean_ci(fr)
        out["fitted_card"] = {"name": fitted.name, "path": fitted.path, "rules": len(fitted.rules),
                              "exact_regret": fm, "exact_regret_ci95": fci, "optimal_rate": float((fr <= 0).mean())}
    total = float(r.sum())
    by_rule = []
    earlier = np.zeros(n, dtype=bool)
    for j, cr in enumerate(card.rules):
        sel = rule == j
        k = int(sel.sum())
        overlap = int((matches(X, cr.bounds) & earlier).sum())
        earlier |= sel
        entry = {"rule": j + 1, "name": cr.name, "text": cr.text, "recipe": cr.recipe, "hands": k,
                 "share": k / n, "overlap_taken_earlier": overlap}
        if k:
            rm, rci = mean_ci(r[sel])
            entry.update({"mean_regret": rm, "regret_ci95": rci,
                          "regret_share": float(r[sel].sum() / total) if total > 0 else None,
                          "optimal_rate": float((r[sel] <= 0).mean()),
                          "house_way_mean_regret": float(h[sel].mean()),
                          "minus_house_way_per_hand": float((r[sel] - h[sel]).sum() / n),
                          "agrees_with_house_way": float((settings[sel] == hw[sel]).mean())})
            rows = np.flatnonzero(sel)
            rows = rows[np.argsort(-r[rows], kind="stable")][:worst_per_rule]
            entry["worst"] = [{"index": int(i), "cards": format_cards(cards[i]), "regret": float(r[i]),
                               "played": _setting(game, cards[i], settings[i]),
                               "optimal": _setting(game, cards[i], best[i]),
                               "house_way": _setting(game, cards[i], hw[i]), "house_way_regret": float(h[i])}
                              for i in rows if r[i] > 0]
        by_rule.append(entry)
    out["rules"] = by_rule
    out["rules_deciding_no_hand"] = [e["rule"] for e in by_rule if e["hands"] == 0]
    return out


def score_text(s: dict) -> str:
    """The score in plain words and a table of the rules (costliest first in the hands listed)."""
    lines = [f"{s['card']} against the {s['style']} dealer: {s['hands']:,} held-out hands (seed {s['seed']}), "
             f"{'exact' if s['exact'] else s['labeller'] + ' (NOT exact)'} labels", "",
             f"  exact regret      {s['exact_regret']:.5f} ± {s['exact_regret_ci95']:.5f} per hand, optimal on "
             f"{100 * s['optimal_rate']:.1f}% of hands",
             f"  house way         {s['house_way_exact_regret']:.5f} ± {s['house_way_exact_regret_ci95']:.5f}, "
             f"optimal on {100 * s['house_way_optimal_rate']:.1f}%"]
    if "fitted_card" in s:
        f = s["fitted_card"]
        lines.append(f"  fitted card       {f['exact_regret']:.5f} ± {f['exact_regret_ci95']:.5f}, optimal on "
                     f"{100 * f['optimal_rate']:.1f}% ({f['rules']} rules, {f['path']})")
    lines += [f"  card - house way  {s['minus_house_way']:+.5f} ± {s['minus_house_way_ci95']:.5f} (paired; EV "
              f"{s['ev_minus_house_way']:+.5f} per unit = {100 * s['ev_minus_house_way']:+.3f} points of house "
              f"edge for the player)", "",
              "| rule | hands | mean regret (±95%) | share of regret | optimal | house way regret | adds to card - house way |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for e in s["rules"]:
        if not e["hands"]:
            lines.append(f"| {e['rule']}. {e['name']} | 0 | — | — | — | — | — |")
            continue
        few = " (fewer than 20 hands)" if e["hands"] < 20 else ""
        share = "—" if e["regret_share"] is None else f"{100 * e['regret_share']:.1f}%"
        lines.append(f"| {e['rule']}. {e['name']} | {e['hands']:,}{few} | {e['mean_regret']:.5f} "
                     f"(±{e['regret_ci95']:.5f}) | {share} | {100 * e['optimal_rate']:.1f}% "
                     f"| {e['house_way_mean_regret']:.5f} | {e['minus_house_way_per_hand']:+.5f} |"
                     .replace("(±nan)", "(±—)"))
    costly = sorted((e for e in s["rules"] if e["hands"] and e.get("worst")), key=lambda e: -e["mean_regret"] * e["hands"])
    if costly:
        lines += ["", "Where the card loses EV (its costliest rules, their costliest hands):"]
        for e in costly[:5]:
            lines.append(f"  rule {e['rule']} ({e['name']}): {e['text']}")
            for w in e["worst"]:
                lines.append(f"    {w['cards']}: plays {w['played']}, optimal {w['optimal']} (regret {w['regret']:.4f})")
    if s["rules_deciding_no_hand"]:
        lines += ["", f"Rules that decided none of these hands: {s['rules_deciding_no_hand']}"]
    overlaps = [e for e in s["rules"] if e["overlap_taken_earlier"]]
    if overlaps:
        lines += ["", "Overlaps (first match wins): " + "; ".join(
            f"rule {e['rule']} also matches {e['overlap_taken_earlier']:,} hands an earlier rule decides"
            for e in overlaps)]
    return "\n".join(lines) + "\n"
