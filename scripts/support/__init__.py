"""What the scripts share (arguments, JSON, Ctrl-C) and the speed benchmarks behind scripts/benchmark.py."""
