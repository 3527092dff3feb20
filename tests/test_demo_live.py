"""The demo project's recorded tasks and live run (issue 37, item 4): built once at development time
(datasets/build_live_demo.py), imported at the first start without a browser; the tasks still replay in real
Chromium, and `screenlab eval` shows the run as it was stored. Also the run folder's two doors (export-run,
import-run) on their own."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from sqlalchemy import select

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.paths import live_demo_dataset_dir
from desktop_app.record.tasks import replay_task
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.trees import tree_of_step

from conftest import copy_first_start


def strip_ids(metrics: dict) -> list[dict]:
    return [{k: v for k, v in t.items() if k != "trajectory"} for t in metrics["per_episode"]]


def stored_outcomes() -> dict[str, dict]:
    """The live run's outcome per task, as the files bundled with the demo hold it."""
    lines = (live_demo_dataset_dir() / "run" / "episodes" / "episodes.jsonl").read_text(encoding="utf-8")
    return {e["goal"]: e["meta"]["live"] for e in map(json.loads, lines.splitlines())}


@pytest.fixture(scope="module")
def demo(tmp_path_factory, first_start_template):
    """A fresh demo project, as a first start makes it (one per module: this file's tests add runs to it)."""
    return copy_first_start(first_start_template, tmp_path_factory.mktemp("data"))


def test_the_bundled_files_are_small_and_the_run_has_a_success_and_a_named_failure():
    folder = live_demo_dataset_dir()
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 2_000_000
    outcomes = stored_outcomes()
    assert len(outcomes) == 2 and sorted(o["success"] for o in outcomes.values()) == [False, True]
    failed = next(o for o in outcomes.values() if not o["success"])
    assert re.match(r"step \d+: stopped on /site/account/", failed["failure"])


def test_a_fresh_demo_has_two_recorded_tasks_that_still_pass_their_evaluators_in_the_browser(demo):
    with Project.open(demo) as project:
        with project.reading() as s:
            tasks = s.execute(select(m.Episode).where(m.Episode.scenario == "recorded")).scalars().all()
            steps = {t.id: s.execute(select(m.Step.id).where(m.Step.episode_id == t.id)).scalars().all()
                     for t in tasks}
        assert sorted(t.goal for t in tasks) == sorted(stored_outcomes())
        for task in tasks:
            record = task.meta["record"]
            assert record["start"].startswith("flow:account") and record["evaluator"]["url"]
            assert task.review_status == "accepted" and len(steps[task.id]) == 3
            assert all(tree_of_step(project, i) is not None for i in steps[task.id])  # a tree per step came along
            report = replay_task(project, task.id)
            assert report.passed and not report.changed, report
            assert report.verdict.passed


def test_screenlab_eval_shows_the_demo_live_run_as_it_was_stored(demo, capsys):
    outcomes = stored_outcomes()
    won = [g for g, o in outcomes.items() if o["success"]]
    (lost,) = [o for o in outcomes.values() if not o["success"]]
    with Project.open(demo) as project:
        (run,) = [r for r in api.runs(project) if r.protocol == "live"]
        metrics = api.evaluate(project, [run.id])["runs"][run.id]["metrics"]
        trajectories = [t for t in api.trajectories(project) if t.policy == run.name]
    assert run.status == "done"
    assert len(trajectories) == 2  # the judges can label and judge them
    assert metrics["rates"]["success"]["hits"] == len(won) and metrics["rates"]["success"]["n"] == 2
    assert main(["eval", str(demo), "--run", str(run.id)]) == 0
    shown = capsys.readouterr().out
    assert re.search(r"SR\s+50\.0 % \[\d+\.\d, \d+\.\d\]\s+\(1/2\)", shown), shown
    steps = outcomes[won[0]]["steps"]
    assert f"steps        {steps:.1f} to success (median {steps}, {steps}-{steps}, 1 task; cap 6, image)" in shown
    step, check = lost["failure"].split("; ")
    assert f"failed       {lost['goal']!r}\n" in shown
    assert re.search(rf"\n {{14,}}{re.escape(step)}\n {{14,}}{re.escape(check)}\n", shown), shown


def test_a_run_folder_brings_a_live_run_with_its_answers_to_another_project(demo, tmp_path, capsys):
    with Project.open(demo) as project:
        (run,) = [r for r in api.runs(project) if r.protocol == "live"]
        before = api.evaluate(project, [run.id])["runs"][run.id]["metrics"]
    out = tmp_path / "run"
    assert main(["export-run", str(demo), "--run", str(run.id), str(out)]) == 0
    assert "2 of its own episodes" in capsys.readouterr().out

    other = tmp_path / "other"
    assert main(["init", str(other)]) == 0
    with Project.open(other) as project:
        import_path(project, live_demo_dataset_dir() / "tasks", "screenlab")
    # an answer on a sample this project does not have: nothing is imported, and the line is named
    broken = tmp_path / "broken"
    shutil.copytree(out, broken)
    lines = (broken / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = json.dumps({**json.loads(lines[1]), "episode": "nowhere-1"})
    (broken / "predictions.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["import-run", str(other), str(broken)]) == 2
    err = capsys.readouterr().err
    assert "predictions.jsonl" in err and "line 2" in err and "no episode 'nowhere-1' in this project" in err
    with Project.open(other) as project:
        assert api.runs(project) == [] and api.trajectories(project) == []

    assert main(["import-run", str(other), str(out), "--name", "carried"]) == 0
    said = capsys.readouterr().out
    assert "5 answers, 2 of its own episodes" in said and "not in this project" not in said
    with Project.open(other) as project:
        (again,) = api.runs(project)
        after = api.evaluate(project, [again.id])["runs"][again.id]["metrics"]
        assert again.name == "carried" and again.status == "done"
        # resume finds every task done: the outcomes point at this project's tasks
        assert api.execute_run(project, again.id).skipped == 2
    # without the tasks it ran on, its outcomes still stand (its answers are on its own trajectories)
    empty = tmp_path / "empty"
    assert main(["init", str(empty)]) == 0
    assert main(["import-run", str(empty), str(out)]) == 0
    assert "2 of the episodes it selected are not in this project" in capsys.readouterr().out
    with Project.open(empty) as project:
        (alone,) = api.runs(project)
        assert strip_ids(api.evaluate(project, [alone.id])["runs"][alone.id]["metrics"]) == strip_ids(before)
    strip = lambda ms: [{k: v for k, v in t.items() if k != "trajectory"} for t in ms["per_episode"]]  # noqa: E731
    assert strip(after) == strip(before)
    assert after["rates"] == before["rates"] and after["steps_to_success"] == before["steps_to_success"]


def test_a_run_folder_that_is_not_one_is_said_in_one_line(tmp_path, capsys):
    assert main(["init", str(tmp_path / "p")]) == 0
    shutil.copytree(live_demo_dataset_dir() / "run", tmp_path / "run")
    run_json = tmp_path / "run" / "run.json"
    data = json.loads(run_json.read_text(encoding="utf-8"))
    data["status"] = "running"
    run_json.write_text(json.dumps(data), encoding="utf-8")
    capsys.readouterr()
    assert main(["import-run", str(tmp_path / "p"), str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "run.json" in err and "status: 'running'" in err and err.count("\n") == 1
    assert main(["import-run", str(tmp_path / "p"), str(tmp_path)]) == 2
    assert "no run.json here: not a run folder" in capsys.readouterr().err
