"""kill -9 in the middle of editing loses nothing the window showed as done."""

from __future__ import annotations

import pytest
from window_kill import demo_project, kill_while_drawing

pytestmark = pytest.mark.gui


def test_kill_minus_nine_while_drawing_loses_no_shown_edit(tmp_path):
    project = demo_project(tmp_path / "p")
    outcome = kill_while_drawing(project, tmp_path, kill_after=12, annotator="killed")
    assert outcome.killed and outcome.shown == 12, outcome.stderr
    assert outcome.integrity_ok
    assert outcome.stored >= 12
