"""splitpoker environments. The rules core is :mod:`envs.rules`."""
