"""The uno_env test suite (a package so that ``python -m tests.golden.regenerate`` works)."""
