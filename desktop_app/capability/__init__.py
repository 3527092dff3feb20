"""Capability probes of the Sphinx benchmark: trajectory evaluators, the action grammar, and their metrics."""
