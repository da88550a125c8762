"""``splitpoker.agents``: what plays the environments: policies, training, the RL benchmark, exact
strategy, evaluation and bankroll sessions (it imports :mod:`splitpoker.envs`, never the reverse)."""

if __name__ != "splitpoker.agents":  # the source folder imported under its old top-level name
    raise ImportError(f"this folder is the package splitpoker.agents, imported here as {__name__!r}: write "
                      f"`import splitpoker.agents` (`agents` was replaced by `splitpoker.agents` in 0.2, docs/migration.md)")
