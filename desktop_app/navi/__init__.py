"""Ambiguous tasks with follow-up questions (Navi-plus): data, generation, evaluation."""
