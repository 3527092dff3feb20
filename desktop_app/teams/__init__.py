"""Annotation teams: assignment, double annotation, agreement and adjudication."""
