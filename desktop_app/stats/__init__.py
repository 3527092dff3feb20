"""Statistics shared by several parts of the app (teams, judging), in plain Python: no numpy, no database."""
