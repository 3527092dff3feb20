"""Samples chosen by their boxes' class, and results split by it (issue 35, ADR 0047), in every door: the core's
EpisodeFilter(classes=...), `api.where(classes=...)`, the command line's `export --class NAME`, `run --where
class=A|B` and `info`, the report's table by class, and the dashboard's "By class" (the window's list filter is
in tests/test_gui_classes.py). A class is matched as spelled: "Icon" is not "icon"."""

from __future__ import annotations

import json

import pytest

from desktop_app import api
from desktop_app.cli.agent_commands import parse_where
from desktop_app.cli.main import main
from desktop_app.evaluation import tables
from desktop_app.evaluation.rows import rule_rows
from desktop_app.evaluation.target_class import NO_CLASS, with_target_class
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project


def _classed(path) -> tuple[int, str]:
    """Gives the gold box of the first popup sample the class "icon" and a distracted box of a search sample
    "sports ball"; returns the first's episode id and key."""
    with Project.open(path) as project:
        api.add_classes(project, ["icon", "sports ball", "unused"])
        with project.reading() as s:
            gold = s.exec(select(m.ActionBox, m.Episode).join(m.Step, m.Step.id == m.ActionBox.step_id).join(m.Episode, m.Episode.id == m.Step.episode_id)
                          .where(m.Episode.scenario == "popup", m.ActionBox.label == "gold")
                          .order_by(m.Episode.id)).first()
            other = s.exec(select(m.ActionBox).join(m.Step, m.Step.id == m.ActionBox.step_id).join(m.Episode, m.Episode.id == m.Step.episode_id)
                           .where(m.Episode.scenario == "search", m.ActionBox.label == "distracted")
                           .order_by(m.Episode.id)).first()
        api.edit_boxes(project, {gold[0].id: {"category": "icon"}, other.id: {"category": "sports ball"}})
    return gold[1].id, gold[1].key


def test_the_core_and_the_api_select_samples_with_a_box_of_a_class(demo_copy):
    episode, _ = _classed(demo_copy)
    with Project.open(demo_copy) as project:
        assert api.count_samples(project, api.where(classes=["icon"])) == 1
        assert [row[0] for row in api.sample_rows(project, api.where(classes=["icon"]), 0, 10)] == [episode]
        assert api.count_samples(project, api.where(classes=["icon", "sports ball"])) == 2
        assert api.count_samples(project, api.where(classes=["Icon"])) == 0  # case kept
        assert api.count_samples(project, api.where(classes=["unused"])) == 0
        assert api.count_samples(project, api.where(classes=["icon"], scenarios=["search"])) == 0
        assert api.class_counts(project) == {"icon": 1, "sports ball": 1, "unused": 0}


def test_the_command_line_exports_and_runs_only_the_samples_of_a_class(demo_copy, tmp_path, capsys):
    _, key = _classed(demo_copy)
    where = str(demo_copy)
    out = tmp_path / "out"
    assert main(["export", where, str(out), "--format", "screenlab", "--class", "icon"]) == 0
    exported = [json.loads(line) for line in (out / "episodes.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [e["id"] for e in exported] == [key]
    assert main(["export", where, str(tmp_path / "two"), "--format", "screenlab", "--class", "icon",
                 "--class", "sports ball"]) == 0
    assert len((tmp_path / "two" / "episodes.jsonl").read_text(encoding="utf-8").splitlines()) == 2

    assert parse_where("class=icon|sports ball,status=accepted") == {"classes": ("icon", "sports ball"),
                                                                      "review_statuses": ("accepted",)}
    capsys.readouterr()
    assert main(["run", where, "--agent", "center", "--where", "class=Icon"]) == 2
    said = capsys.readouterr().err.strip()
    assert said == ("error: --where class=Icon selects no sample with a box of class Icon (classes boxes "
                    "have: icon, sports ball; names are case-sensitive)")
    assert main(["run", where, "--agent", "center", "--where", "class=icon"]) == 0
    capsys.readouterr()
    with Project.open(demo_copy) as project:
        (run,) = api.runs(project)
        with project.reading() as s:
            answered = s.exec(select(m.Prediction).where(m.Prediction.run_id == run.id)).all()
    assert len(answered) == 1

    assert main(["info", where]) == 0
    shown = capsys.readouterr().out
    assert "\nactions by class:\n  icon               1\n  sports ball        1\n" in shown


@pytest.fixture
def run_on_demo(demo_copy):
    _classed(demo_copy)
    with Project.open(demo_copy) as project:
        api.run(project, "center", api.where(scenarios=("popup", "search")))
    return demo_copy


def test_results_split_by_the_class_of_the_gold_box(run_on_demo, tmp_path):
    with Project.open(run_on_demo) as project:
        (run,) = api.runs(project)
        rows = with_target_class(project, rule_rows(project, [run.id]))
    assert rows and {r["class"] for r in rows} == {"icon", NO_CLASS}  # "sports ball" is on a distracted box
    assert sum(r["class"] == "icon" for r in rows) == 1
    table = tables.breakdown_table(rows, "class")
    assert table.column_field == "class" and set(table.columns) == {"icon", NO_CLASS, tables.ALL}

    assert main(["report", str(run_on_demo), "--out", str(tmp_path / "report"), "--no-plots"]) == 0
    written = (tmp_path / "report" / "table_by_class.md").read_text(encoding="utf-8")
    assert "icon" in written and NO_CLASS in written


def test_a_report_without_classes_writes_what_it_wrote_before(demo_copy, tmp_path):
    with Project.open(demo_copy) as project:
        api.run(project, "center", api.where(scenarios=("popup",)))
    assert main(["report", str(demo_copy), "--out", str(tmp_path / "report"), "--no-plots"]) == 0
    assert not (tmp_path / "report" / "table_by_class.md").exists()
