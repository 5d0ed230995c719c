"""The test suite (a regular package, so that a stray top-level ``tests`` package some
wheels install into site-packages, glicko2 2.1.0's for one, cannot shadow it)."""
