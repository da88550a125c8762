"""Training with stable-baselines3 / sb3-contrib: configs, schedules, saved state, warm start, the native VecEnv."""
