"""evals/simulators."""
