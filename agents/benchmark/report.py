"""The RL benchmark's human outputs: a markdown report (one section per grid, one table per task)
and its figures: sample-efficiency curves (IQM across seeds with stratified-bootstrap 95% bands),
performance profiles of the normalised score, and the probability of improvement of each pair.

Input: the summary of :func:`splitpoker.agents.benchmark.harness.collect` (``benchmark.json``). Every
figure in a table is the **test** split's (the validation split's IQM is shown beside it, for
reference: that is the figure a selection would read).
"""

from __future__ import annotations

import math
from pathlib import Path

REFERENCE_LABELS = {"table": "strategy table", "house-way": "house way", "mc-best": "Monte Carlo best",
                    "random": "random legal action (played)", "optimal": "exact optimum",
                    "random (exact expectation)": "random legal action (exact expectation)",
                    "bold": "bold play", "flat": "flat minimum betting"}
TASK_TITLES = {"setting": "setting the seven cards (exact regret per hand)",
               "card_removal": "card removal: hands where the strategy table is not optimal (exact regret per hand)",
               "bets": "the full round with bets (exact EV lost per hand, in table minimums)",
               "session": "bankroll session (exact success probability lost)"}


def _isnan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _pm(m: float, ci: float, digits: int = 4, sign: bool = False) -> str:
    fmt = f"{{:{'+' if sign else ''}.{digits}f}}"
    if _isnan(m):
        return "–"
    if _isnan(ci):
        return fmt.format(m)
    return f"{fmt.format(m)} ± {ci:.{digits}f}"


def _iv(m, ci, digits: int = 4) -> str:
    if _isnan(m):
        return "–"
    if not ci:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def curve_plot(summary: dict, env: str, path: Path) -> None:
    """Exact regret (test split) against environment steps: the IQM across seeds with its
    stratified-bootstrap 95% band per algorithm; reference rows as horizontal lines."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for row in summary["rows"]:
        if row["env"] != env:
            continue
        xs = [p["steps"] for p in row["curve"]]
        ys = [p.get("iqm", p["mean_regret"]) for p in row["curve"]]
        lo = [p.get("low", math.nan) for p in row["curve"]]
        hi = [p.get("high", math.nan) for p in row["curve"]]
        (line,) = ax.plot(xs, ys, marker="o", ms=3, label=f"{row['algorithm']} ({len(row['seeds'])} seeds)")
        if not any(_isnan(v) for v in lo + hi):
            ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.2)
    styles = iter(["--", ":", "-.", (0, (1, 3)), (0, (5, 1)), (0, (3, 1, 1, 1))])
    for name, ref in summary["references"].get(env, {}).items():
        if name.startswith("random") or name == "optimal":
            continue  # far above every learner / zero; their values are in the table
        ax.axhline(ref["mean_regret"], color="gray", ls=next(styles, "--"), lw=1,
                   label=f"{REFERENCE_LABELS.get(name, name)} {ref['mean_regret']:.4f}")
    ax.set_xlabel("environment steps")
    task = next((r.get("task") for r in summary["rows"] if r["env"] == env), "setting")
    ax.set_ylabel("success probability lost" if task == "session" else "exact regret per hand")
    ax.set_title(f"{env}: IQM across seeds, 95% stratified-bootstrap band (test split)", fontsize=10)
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_ylim(bottom=0.0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def profile_plot(summary: dict, path: Path) -> None:
    """Performance profiles: the share of (seed, task) runs whose normalised score exceeds tau."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for algo, prof in summary["aggregate"]["performance_profiles"].items():
        (line,) = ax.plot(prof["tau"], prof["fraction"], label=algo)
        if prof.get("low") is not None:
            ax.fill_between(prof["tau"], prof["low"], prof["high"], color=line.get_color(), alpha=0.2)
    ax.set_xlabel("normalised score tau (0 = random, 1 = exact optimum)")
    ax.set_ylabel("fraction of runs with score > tau")
    ax.set_title(f"performance profiles over {len(summary['aggregate']['tasks'])} tasks (test split)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def poi_plot(summary: dict, path: Path) -> None:
    """P(X > Y) over tasks with its 95% interval, one line per ordered pair with P >= 0.5."""
    plt = _plt()
    pairs = [p for p in summary["probability_of_improvement"] if p["p"] >= 0.5]
    fig, ax = plt.subplots(figsize=(6.5, 0.45 * max(len(pairs), 1) + 1.2))
    for k, p in enumerate(pairs):
        lo, hi = p["ci95"] or (p["p"], p["p"])
        ax.plot([lo, hi], [k, k], lw=5, alpha=0.5, color="C0")
        ax.plot([p["p"]], [k], "k|", ms=12)
    ax.set_yticks(range(len(pairs)), [f"{p['x']} > {p['y']}" for p in pairs], fontsize=8)
    ax.axvline(0.5, color="gray", ls="--", lw=1)
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel("probability of improvement (normalised score, averaged over tasks)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


HEADER = """# RL benchmark

Made by `scripts/benchmark_rl.py` (docs: README, "RL benchmark"); every figure below comes from the
run named under its grid. Pure RL unless a grid says otherwise. Earlier grids (3 seeds, Student-t
intervals, scored on the set their hyperparameters were chosen on): docs/rl_benchmark/rl_benchmark_archive.md.
Card removal against the strategy table (table-eor) and the setting scorer's training speed before
and after its fused function: docs/rl_benchmark/rl_benchmark_extra.md.

## How to read it

**Splits.** Every grid has a *validation* set (`eval.validation_seed`: tuning with
`scripts/tune.py`, selecting rows, early stopping) and a disjoint *test* set (`eval.test_seed`,
checked to share no hand with it). Every figure in the tables and plots is the test set's; the
validation IQM is printed beside it for whoever selects. Nothing was tuned on a test set.

**Tasks** (`agents/benchmark/tasks.py`), each with an exact regret and a normalised score,
0 = the uniformly random legal policy (its regret is an exact expectation, not a sampled run) and
1 = the exact optimum, so that tasks aggregate:

- `setting`: the one-step setting env; regret = EV(optimal setting) − EV(setting played), exact
  over all 53,524,680 dealer hands, on a fixed set of hands whose every setting's EV is cached.
- `card_removal`: the same on the hands where the strategy table (exact EVs that ignore which
  cards the player holds) is *not* optimal; the column *regret − table's* is negative for an agent
  that beats the table there. A candidate is solved only when the table's two best settings are
  within `card_removal_margin` (0.03) by table EV: in 500 fully solved Asia hands, 45 differ from
  the optimum and 3 of them (7%) have a wider margin, so the task covers about 93% of such hands.
- `bets`: the full round with the bet phase (`PaiGowPoker-v0`); regret = the EV lost on the bet
  and bonus choice plus the setting's, `(a/u)·setting regret + (a/u − 1)(−V*) + (b/u)(−β_b)`
  (ante `a`, bonus `b`, table minimum `u`, `V*` the value of optimal play per unit, `β_b` the
  bonus's exact return). The single-round optimum bets the minimum with no bonus (every bonus and,
  for Pai Gow, `V*` ≈ −2.2% are negative); for Asia against asia-000 the sign of `V*` is not
  settled (docs/sessions.md), so the task refuses it.
- `session`: a bankroll session (`PaiGowPokerSession-v0`, the house way setting the cards); the
  policy's bet at every bankroll of the DP's grid is read off and its success probability solved
  exactly (agents/sessions/dp.py); regret = the DP optimum's probability − the policy's.

**Reference rows** (a grid's `references:`, or `--references` on the command line, comma-separated
and repeatable; a card path holding a comma given whole, as its own `--references`) are scored on
the same test set as the runs: baselines by name (`table`, `house-way`, `mc-best`, `random`:
`splitpoker.agents.policies.baselines`) and strategy cards by path
(`configs/strategies/paigow_igw_house_way.yaml`; a relative path is read from the current
directory, in a grid file as on the command line). A card is loaded with the grid: a missing file
or a bad rule stops `scripts/benchmark_rl.py` (exit 2, `--check` included) naming the reference,
before anything is solved or trained. It sets each hand by its rules and bets the table minimum
with no bonus, as `house-way` does, so it is scored on the `setting`, `card_removal` and `bets`
tasks of its own game (the `session` task's rows are the DP's); on the other game's tasks it is
skipped with a log line, and a card of a game that no env of the grid deals hands of is refused.
Its row is `card: <name>` (the card's `name:`, else its file's stem), apart from every baseline's.
The cached rows (`<out>/references/<label>.json`) are keyed by the card's content (sha256), not its
path: an edited card is scored again. A card is scored against the env's dealer; its row names the
card's `style:` (`card_style`, the house way it is meant against) and that `dealer`, and where the
two differ the log and the report's row say so ("meant against paigow-foxwoods").

**Statistics** (`agents/benchmark/stats.py`, the estimators of Agarwal et al., NeurIPS 2021, checked
against `rliable` and worked examples): per task and algorithm the interquartile mean (IQM) of the
final regret across seeds with a stratified-bootstrap 95% interval, beside the mean ± Student-t
interval; across tasks the IQM of the normalised score, performance profiles (share of runs whose
normalised score exceeds tau) and the probability of improvement P(X > Y) of each pair.
"""


def training_label(warm_start: dict | None) -> str:
    """``pure RL``, or the warm start's teacher, size and loss (behaviour cloning on the teacher's
    actions, or distillation of its action values at a temperature; then RL)."""
    if not warm_start:
        return "pure RL"
    how = "BC"
    if warm_start.get("target") == "soft":
        from splitpoker.agents.training.warm_start import DEFAULT_TEMPERATURE

        how = f"distillation (T = {warm_start.get('temperature', DEFAULT_TEMPERATURE):g})"
    return (f"warm start: {how} from `{warm_start.get('teacher', 'table')}` on {warm_start.get('hands', 20000):,} hands, "
            "then RL")


def _extra(task: str) -> tuple[str, str]:
    """The task's own column: header and the row key."""
    return {"setting": ("plays optimally", "optimal_rate"), "card_removal": ("regret − table's", "regret_vs_table"),
            "bets": ("bets the minimum", "min_bet_rate"), "session": ("P(reach target)", "success")}[task]


def _fmt_extra(key: str, m, ci) -> str:
    if key in ("optimal_rate", "min_bet_rate"):
        return "–" if _isnan(m) else _pm(100 * m, None if _isnan(ci) else 100 * ci, 1) + "%"
    return _pm(m, ci, 4, sign=key == "regret_vs_table")


def _set_line(label: str, sets: dict) -> str:
    parts = []
    for split in ("validation", "test"):
        s = sets[split]
        if "sha256" in s:
            what = "card-removal hands" if s.get("kind") == "card_removal" else "hands"
            extra = f" (of {s['candidates_scanned']:,} deals scanned)" if s.get("candidates_scanned") else ""
            parts.append(f"{split}: {s['hands']} {what}{extra}, seed {s['seed']}, sha256 `{s['sha256'][:12]}…`")
        else:
            parts.append(f"{split}: exact (no sample)")
    return "; ".join(parts)


def _task_notes(sets: dict) -> str:
    t = sets["test"]
    notes = [f"random legal policy's exact expected regret {t['random_regret']:.4f}"]
    if "table_regret" in t:
        notes.append(f"strategy table's regret on these hands {t['table_regret']:.4f}")
    if "v_star" in t:
        notes.append(f"V* = {t['v_star']:+.4f} ± {t['v_star_ci95']:.4f} per unit (house way {t['v_house_way']:+.4f})")
    if "p_optimal" in t:
        notes.append(f"${t['bankroll']:g} → ${t['target']:g}: DP optimum {t['p_optimal']:.4f}, bold {t['p_bold']:.4f}, "
                     f"flat {t['p_flat']:.4f}, random {t['p_random']:.4f}")
    return "; ".join(notes)


def markdown(summary: dict, plots: dict[str, str], command: str, extra_plots: dict[str, str] | None = None,
             data: str | None = None) -> str:
    """One grid's section: ``## Grid <name>``, the across-task aggregates, then one table and one
    curve plot per task. ``data``: the name of the grid's data file beside the report."""
    lines = [f"## Grid `{summary['name']}`", ""]
    if summary.get("description"):
        lines += [summary["description"].strip(), ""]
    lines += [
        f"Every run trains for **{summary['total_timesteps']:,} environment steps** and is scored every "
        f"{summary['eval_every']:,} steps on every task of its environment, on a **validation** split (seed "
        f"{summary['splits']['validation']['seed']}: for tuning and selection) and a disjoint **test** split (seed "
        f"{summary['splits']['test']['seed']}); every figure below is the test split's. Regret is exact "
        "(docs/rl_benchmark/rl_benchmark.md, \"Tasks\"). Algorithm rows: **IQM** of the final regret across seeds with its "
        "stratified-bootstrap 95% interval [low, high], the mean ± 95% Student-t interval across seeds, and the "
        "normalised score (0 = random legal policy, 1 = exact optimum; IQM [95% CI]); reference rows: mean ± 95% "
        "interval across hands (exact where marked). *steps/s*: end-to-end training steps per second of wall "
        "time (environment and learner, scoring excluded), one CPU per run.",
        "",
        f"Made with `{command}`" + (f" ({summary['runs_done']}/{summary['runs_total']} runs finished)"
                                    if summary["runs_done"] < summary["runs_total"] else "") + ".",
        "",
    ]
    if data:
        commits = summary.get("run_commits") or {}
        at = "; ".join(f"`{c[:10]}{'+dirty' if c.endswith('+dirty') else ''}` ({n} runs)" for c, n in commits.items())
        lines += [f"Data: [`{data}`]({data}), the grid's `benchmark.json` as this report was written from it "
                  "(every row, per-seed regrets, curves, versions)" + (f"; runs trained at commit {at}" if at else "")
                  + ".", ""]
    agg = summary.get("aggregate", {})
    if agg.get("algorithms"):
        lines += [f"### Across tasks ({', '.join(agg['tasks'])})", "",
                  "| algorithm | IQM normalised score [95% CI] | steps/s (mean over tasks) |", "|---|---|---|"]
        for algo, a in agg["algorithms"].items():
            sps = [r["steps_per_second"] for r in summary["rows"] if r["algorithm"] == algo]
            lines.append(f"| {algo} | {_iv(a['iqm_normalized'], a['iqm_normalized_ci95'], 3)} | "
                         f"{sum(sps) / len(sps):,.0f} |")
        lines.append("")
        poi = [p for p in summary.get("probability_of_improvement", []) if p["p"] >= 0.5]
        if poi:
            lines += ["Probability of improvement P(X > Y) (normalised score, averaged over tasks; per task on the "
                      "regret), 95% interval:", "",
                      "| X > Y | over tasks | " + " | ".join(agg["tasks"]) + " |",
                      "|---|---|" + "---|" * len(agg["tasks"])]
            for p in poi:
                cells = [_iv(p["per_task"][t]["p"], p["per_task"][t]["ci95"], 2) for t in agg["tasks"]]
                lines.append(f"| {p['x']} > {p['y']} | {_iv(p['p'], p['ci95'], 2)} | " + " | ".join(cells) + " |")
            lines.append("")
        for name, fig in (extra_plots or {}).items():
            lines += [f"![{name}]({fig})", ""]
    sep = summary.get("separation", {})
    for label, sets in summary["tasks"].items():
        task = sets["test"]["task"]
        head, key = _extra(task)
        lines += [f"### {label} (`{sets['test']['env_id']}`): {TASK_TITLES.get(task, task)}", "",
                  _set_line(label, sets) + ". " + _task_notes(sets) + ".", ""]
        if label in sep:
            lines += [f"Pairs of algorithms whose IQM intervals are apart: {sep[label]['pairs_apart']} of "
                      f"{sep[label]['pairs']}.", ""]
        lines += [f"| algorithm | training | steps | IQM regret [95% CI] | mean ± t | normalised IQM [95% CI] | {head} | "
                  "validation IQM | steps/s | seeds |", "|---|---|---|---|---|---|---|---|---|---|"]
        rows = sorted((r for r in summary["rows"] if r["env"] == label), key=lambda r: r.get("warm_start") is not None)
        for row in rows:
            lines.append(
                f"| {row['algorithm']} | {training_label(row.get('warm_start'))} | {row['steps']:,} "
                f"| {_iv(row['iqm_regret'], row.get('iqm_regret_ci95'))} | {_pm(row['mean_regret'], row['mean_regret_ci95'])} "
                f"| {_iv(row['iqm_normalized'], row.get('iqm_normalized_ci95'), 3)} "
                f"| {_fmt_extra(key, row.get(key), row.get(key + '_ci95'))} | {row['validation']['iqm_regret']:.4f} "
                f"| {row['steps_per_second']:,.0f} | {len(row['seeds'])} |")
        for name, ref in summary["references"].get(label, {}).items():
            exact = " (exact)" if ref.get("exact") else ""
            if ref.get("card_style") and ref["card_style"] != ref.get("dealer"):
                exact += f" (meant against {ref['card_style']})"
            lines.append(
                f"| *{REFERENCE_LABELS.get(name, name)}*{exact} | reference | – | – | {_pm(ref['mean_regret'], ref.get('regret_ci95'))} "
                f"| {ref.get('normalized', math.nan):.3f} | {_fmt_extra(key, ref.get(key), None)} | – | – | – |")
        lines.append("")
        if label in plots:
            lines += [f"![regret learning curves, {label}]({plots[label]})", ""]
    return "\n".join(lines)


def write_report(summary: dict, report: Path, command: str, append: bool = False) -> dict[str, Path]:
    """Write the markdown report and its PNGs next to it (``<report stem>_<task>.png``, or
    ``<report stem>_<grid>_<task>.png`` when appending; ``…_profiles.png`` and ``…_poi.png`` for the
    grid) and the grid's data, the summary the report is written from, as
    ``<report stem>_<grid>.json`` (so a published report always has its numbers beside it);
    returns the plot and data paths. ``append``: add this grid's section to an existing report
    (replacing an older section of the same grid name) instead of starting anew."""
    from splitpoker.agents.output import write_json

    report = Path(report)
    report.parent.mkdir(parents=True, exist_ok=True)
    data = report.with_name(f"{report.stem}_{summary['name']}.json")
    write_json(data, summary)
    stem = f"{report.stem}_{summary['name']}" if append else report.stem
    plots = {}
    for label in summary["tasks"]:
        path = report.with_name(f"{stem}_{label}.png")
        curve_plot(summary, label, path)
        plots[label] = path
    extra = {}
    if summary.get("aggregate", {}).get("performance_profiles"):
        extra["performance profiles"] = report.with_name(f"{stem}_profiles.png")
        profile_plot(summary, extra["performance profiles"])
        if summary.get("probability_of_improvement"):
            extra["probability of improvement"] = report.with_name(f"{stem}_poi.png")
            poi_plot(summary, extra["probability of improvement"])
    section = markdown(summary, {k: v.name for k, v in plots.items()}, command, {k: v.name for k, v in extra.items()},
                       data=data.name)
    text = HEADER + "\n" + section
    if append and report.exists():
        old = report.read_text()
        head = f"## Grid `{summary['name']}`"
        if head in old:  # replace this grid's previous section, keep the others
            start = old.index(head)
            nxt = old.find("\n## Grid `", start + len(head))
            old = old[:start] + (old[nxt + 1:] if nxt >= 0 else "")
        text = old.rstrip("\n") + "\n\n" + section
    report.write_text(text.rstrip("\n") + "\n")
    return {**plots, **extra, "data": data}
