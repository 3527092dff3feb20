"""Agents: output conventions (parsers), prompts for working patterns, the run engine and scoring."""
