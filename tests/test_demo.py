"""The bundled demo dataset and the first-run demo project."""

import json

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
