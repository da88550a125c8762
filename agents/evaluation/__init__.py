"""Evaluation of policies: common random numbers, exact regret, reports."""
