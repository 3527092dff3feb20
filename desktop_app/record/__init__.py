"""Recording tasks in a real browser and replaying them (issue 37): see tasks.py for the two core functions."""
