"""House ways: one module per style, their shared helpers, the registry and the batch checks."""
