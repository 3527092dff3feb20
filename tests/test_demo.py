"""The bundled demo dataset and the first-run demo project."""

import json

import pytest

from desktop_app.demo import DEMO_FOLDER, ensure_demo_project
from desktop_app.paths import demo_dataset_dir, user_data_dir
from desktop_app.store.project import Project
from desktop_app.store.queries import project_counts


def test_demo_dataset_is_small_and_covers_the_four_scenarios():
    folder = demo_dataset_dir()
    size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    assert size < 5_000_000
    lines = [json.loads(x) for x in (folder / "episodes.jsonl").read_text().splitlines()]
    assert len(lines) >= 24
    assert {x["scenario"] for x in lines} == {"popup", "search", "recommendation", "chat"}
    for line in lines:  # every sample can score an agent: a gold and a distracted box
        labels = {a["label"] for s in line["steps"] for a in s["actions"] if a["box"]}
        assert {"gold", "distracted"} <= labels, line["id"]


def test_first_run_copies_the_demo_into_the_user_data_folder():
    path = ensure_demo_project()
    assert path == user_data_dir() / DEMO_FOLDER
    with Project.open(path) as project, project.reading() as s:
        counts = project_counts(s)
    assert counts["episodes"] >= 24 and counts["actions_by_label"]["distracted"] >= 24
    # the multi-step episodes and their ambiguous variants come along, to try the Navi-plus workflow
    assert counts["episodes_by_scenario"]["ambiguous"] >= 6 and counts["episodes_by_scenario"]["navigation"] >= 4
    # second start: the same project, with the user's edits, is reused, not rebuilt
    marker = path / "media" / "marker"
    marker.write_text("user data")
    assert ensure_demo_project() == path and marker.read_text() == "user data"


def test_the_demo_has_judged_trajectories_to_show_the_agreement_at_once():
    from desktop_app import api

    with Project.open(ensure_demo_project()) as project:
        every = api.trajectories(project)
        runs = {r.name: r for r in api.judge_runs(project)}
        report = api.agreement(project)
    # the live run's two tasks are trajectories too, not labelled yet (tests/test_demo_live.py)
    live = sorted(r.policy for r in every if r.source.get("protocol") == "live")
    assert live == ["scripted agent · live (demo)"] * 2
    rows = [r for r in every if r.source.get("protocol") != "live"]
    # three policies on each of the six flows, labelled by two annotators (ben has two to do)
    assert len(rows) == 18 and {r.policy for r in rows} == {"demonstration", "early-stop", "wrong-turn"}
    assert sum(len(r.labels) for r in rows) == 18 + 16
    assert set(runs) == {"reply-trusting judge (demo)", "last-action judge (demo)"}
    assert all(r.kind == "imported" and r.status == "done" for r in runs.values())
    # reference: the 6 demonstrations succeed, 11 other trajectories fail; the flights early stop is a tie
    # (ana failure, ben success) and has none, as have the live run's two nobody labelled
    assert report["reference"] == {"success": 6, "failure": 11, "none": 1 + 2}
    # the careful judge misreads one demonstration: TP 5, FN 1, TN 11 -> accuracy 16/17, FNR 1/6
    careful = report["runs"][runs["last-action judge (demo)"].id]["confusion"]
    assert (careful["tp"], careful["fn"], careful["tn"], careful["fp"]) == (5, 1, 11, 0)
    assert careful["fnr"] == pytest.approx(1 / 6)
    # the gullible one believes every "Done.": the 5 scored early stops and 3 of the 6 wrong turns are
    # false positives -> TP 6, FP 8, TN 3, accuracy 9/17
    trusting = report["runs"][runs["reply-trusting judge (demo)"].id]
    assert tuple(trusting["confusion"][k] for k in ("tp", "fp", "tn", "fn")) == (6, 8, 3, 0)
    assert trusting["confusion"]["accuracy"] == pytest.approx(9 / 17)
    # policy ranking: humans demonstration 1, early-stop 0, wrong-turn 0; this judge 1, 1, 0.5 -> pairs
    # (demo, early) tied by the judge, (demo, wrong) concordant, (early, wrong) tied by the humans:
    # tau-b = 1 / sqrt(2 * 2) = 0.5
    assert trusting["ranking"]["tau_b"] == pytest.approx(0.5)
