"""The RL benchmark's human outputs: a markdown report in RL Zoo's ``benchmark.md`` style (one row
per algorithm and environment, mean ± 95% CI across seeds) and learning curves with CI bands.

Input: the summary of :func:`splitpoker.agents.benchmark.harness.collect` (``benchmark.json``).
"""

from __future__ import annotations

import math
from pathlib import Path

REFERENCE_LABELS = {"table": "strategy table", "house-way": "house way", "mc-best": "Monte Carlo best",
                    "random": "random legal action", "optimal": "exact optimum"}


def _pm(m: float, ci: float, digits: int = 4, sign: bool = False) -> str:
    fmt = f"{{:{'+' if sign else ''}.{digits}f}}"
    if ci is None or (isinstance(ci, float) and math.isnan(ci)):
        return fmt.format(m)
    return f"{fmt.format(m)} ± {ci:.{digits}f}"


def curve_plot(summary: dict, env: str, path: Path) -> None:
    """Exact regret against environment steps: mean across seeds with the 95% CI band per
    algorithm, the reference rows as horizontal lines."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for row in summary["rows"]:
        if row["env"] != env:
            continue
        xs = [p["steps"] for p in row["curve"]]
        ys = [p["mean_regret"] for p in row["curve"]]
        cis = [0.0 if math.isnan(p["ci95"]) else p["ci95"] for p in row["curve"]]
        (line,) = ax.plot(xs, ys, marker="o", ms=3, label=f"{row['algorithm']} ({len(row['seeds'])} seeds)")
        # regret is never negative: the band is clipped at 0
        ax.fill_between(xs, [max(y - c, 0.0) for y, c in zip(ys, cis, strict=True)], [y + c for y, c in zip(ys, cis, strict=True)],
                        color=line.get_color(), alpha=0.2)
    styles = iter(["--", ":", "-.", (0, (1, 3)), (0, (5, 1))])
    for name, ref in summary["references"].get(env, {}).items():
        if name == "random":
            continue  # far above every learner; it would flatten the plot (its value is in the table)
        ax.axhline(ref["mean_regret"], color="gray", ls=next(styles, "--"), lw=1,
                   label=f"{REFERENCE_LABELS.get(name, name)} {ref['mean_regret']:.4f}")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("exact regret per hand (units wagered)")
    ev = summary["evalsets"][env]
    ax.set_title(f"{env}: exact regret on {ev['hands']} fixed hands (mean, 95% CI across seeds)", fontsize=10)
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_ylim(bottom=0.0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


HEADER = """# RL benchmark

Made by `scripts/benchmark_rl.py` (docs: README, "RL benchmark"); every figure below comes from the
run named under its grid. Pure RL unless a grid says otherwise.
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


def markdown(summary: dict, plots: dict[str, str], command: str) -> str:
    """One grid's section: ``## Grid <name>``, then one table and one plot per environment."""
    lines = [f"## Grid `{summary['name']}`", ""]
    if summary.get("description"):
        lines += [summary["description"].strip(), ""]
    lines += [
        f"Every run trains for **{summary['total_timesteps']:,} environment steps** and is scored every "
        f"{summary['eval_every']:,} steps by **exact regret**: on a fixed evaluation set whose every setting's exact EV "
        "(over all dealer hands) is cached, regret = EV of the optimal setting − EV of the setting played "
        "(deterministic policy; an invalid action counts as EV −1). *vs house way*: the paired reward difference "
        "to the house way on the same deals (common random numbers; one dealer hand per deal, so it carries "
        "dealer luck that exact regret does not). Algorithm rows: mean ± 95% Student-t interval **across seeds** of "
        "the final scores; reference rows: mean ± 95% interval **across hands**. Wall time: training only "
        "(scoring excluded; a warm start's cloning included), per run, one CPU per run. *training*: pure RL, or "
        "a warm start (behaviour cloning from a teacher, then RL: the steps are the RL steps).",
        "",
        f"Made with `{command}`" + (f" ({summary['runs_done']}/{summary['runs_total']} runs finished)"
                                    if summary["runs_done"] < summary["runs_total"] else "") + ".",
        "",
    ]
    for env, ev in summary["evalsets"].items():
        lines += [f"### {env} (`{ev['env_id']}`)", "",
                  f"Evaluation set: {ev['hands']} hands (seed {ev['seed']}, sha256 `{ev['sha256'][:16]}…`); "
                  f"paired reward on {ev['paired_hands']} hands.", "",
                  "| algorithm | policy | training | steps | exact regret / hand | plays optimally | vs house way | train wall time (s) | seeds |",
                  "|---|---|---|---|---|---|---|---|---|"]
        # pure RL rows first, warm-started ones after them: the two are always reported apart
        rows = sorted((r for r in summary["rows"] if r["env"] == env), key=lambda r: r.get("warm_start") is not None)
        for row in rows:
            lines.append(
                f"| {row['algorithm']} | {row['policy']} | {training_label(row.get('warm_start'))} | {row['steps']:,} "
                f"| {_pm(row['mean_regret'], row['mean_regret_ci95'])} "
                f"| {_pm(100 * row['optimal_rate'], 100 * row['optimal_rate_ci95'], 1)}% "
                f"| {_pm(row['diff_vs_house_way'], row['diff_vs_house_way_ci95'], sign=True)} "
                f"| {_pm(row['train_seconds'], row['train_seconds_ci95'], 0)} | {len(row['seeds'])} |")
        for name, ref in summary["references"].get(env, {}).items():
            lines.append(
                f"| *{REFERENCE_LABELS.get(name, name)}* (reference) | `{name}` | – | – | {_pm(ref['mean_regret'], ref['regret_ci95'])} "
                f"| {100 * ref['optimal_rate']:.1f}% | {_pm(ref['diff_vs_house_way'], ref['diff_vs_house_way_ci95'], sign=True)} "
                f"| – | – |")
        lines.append("")
        if env in plots:
            lines += [f"![exact regret learning curves, {env}]({plots[env]})", ""]
    return "\n".join(lines)


def write_report(summary: dict, report: Path, command: str, append: bool = False) -> dict[str, Path]:
    """Write the markdown report and one curve PNG per environment next to it
    (``<report stem>_<env>.png``, or ``<report stem>_<grid>_<env>.png`` when appending); returns the plot paths. ``append``: add this grid's section to
    an existing report (replacing an older section of the same grid name) instead of starting anew."""
    report = Path(report)
    report.parent.mkdir(parents=True, exist_ok=True)
    plots = {}
    for env in summary["evalsets"]:
        # appended grids name their plots after the grid too: two grids may share an env label
        stem = f"{report.stem}_{summary['name']}" if append else report.stem
        path = report.with_name(f"{stem}_{env}.png")
        curve_plot(summary, env, path)
        plots[env] = path
    section = markdown(summary, {k: v.name for k, v in plots.items()}, command)
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
    return plots
