"""The RL benchmark: grid configs, one run, the harness, reports and tuning."""
