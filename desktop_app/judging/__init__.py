"""Trajectory judges: human labels, model verdicts, and how well they agree (Agent-Eval-Refine)."""
