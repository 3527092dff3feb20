"""Scoring predictions against annotated actions (EnvDistraction Eq. 4-6) and the metrics."""
