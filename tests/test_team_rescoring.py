"""On a server an annotator's box edit is judged by the team's rules, not by the annotator: she may not write
the agents' verdicts (ADR 0029), so her edit queues its step, and the next read of results by the lead or a
reviewer judges it first; what they see is as current as after an edit of their own."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from desktop_app import api
from desktop_app.agents.profiles import BASELINES
from desktop_app.formats.transfer import import_path
from desktop_app.runs.engine import create_run, execute
from desktop_app.store import edits
from desktop_app.store import models as m

from conftest import make_image

pytestmark = pytest.mark.parametrize("backend", ["postgresql"])


def test_an_annotators_edit_is_judged_when_the_lead_next_reads_results(team, tmp_path):
    make_image(tmp_path / "data" / "s.png", size=(200, 100))
    line = {"id": "one", "goal": "Sign in", "scenario": "popup", "steps": [{"image": "s.png", "actions": [
        {"label": "gold", "box": [80, 30, 120, 70], "element_text": "Sign in"}]}]}
    (tmp_path / "data" / "episodes.jsonl").write_text(json.dumps(line) + "\n")
    lena = team.open("lena")
    import_path(lena, tmp_path / "data", "screenlab")
    run = create_run(lena, BASELINES["center"])
    execute(lena, run)  # clicks (100, 50): on the gold box
    with lena.reading() as s:
        episode, box = s.execute(select(m.Step.episode_id, m.ActionBox.id).join(m.ActionBox)).one()
    api.assign(lena, ["ana"], {"ids": [episode]})

    def verdict(project):
        return [r["verdict"] for r in api.per_sample(project, [run])]

    ana = team.open("ana")
    api.edit_boxes(ana, {box: {"label": "distracted"}})  # saved; the re-scoring waits for staff
    with lena.reading() as s:
        assert s.execute(select(func.count()).select_from(m.RescoreDue)).scalar_one() == 1
    assert verdict(lena) == ["distracted"]  # the lead's read judged it first
    with lena.reading() as s:
        assert s.execute(select(func.count()).select_from(m.RescoreDue)).scalar_one() == 0
    result = api.evaluate(team.open("rita"), [run])
    assert result["runs"][run]["metrics"]["screenlab"]["overall"]["n"] == 1
    # her deleting the box, and putting one back with undo under its old id, are judged the same way
    saved = api.delete_boxes(ana, [box])
    assert verdict(lena) == ["invalid"]
    edits.restore_boxes(ana, saved)
    assert verdict(lena) == ["distracted"]
