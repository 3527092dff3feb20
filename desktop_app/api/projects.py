"""Opening and creating projects in the Python API (desktop_app/opening.py: the one way every door opens a
project, with the re-scoring after edits)."""

from __future__ import annotations

from desktop_app.opening import init_project, keep_verdicts_current, open_project

__all__ = ["init_project", "keep_verdicts_current", "open_project"]
