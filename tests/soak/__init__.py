"""Soak suites: hostile input, faults, load, endurance.  Each suite is a function in
this package that takes its counts and returns its figures; the tests run them with the small
CI counts (`ci_counts`), `benchmarks/soak.py` with the full ones."""
