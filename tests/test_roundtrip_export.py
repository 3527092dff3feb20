"""Exports, and the round trip through ScreenLab's own format."""

import json
import subprocess
import sys

import pytest

from desktop_app.cli.main import main
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.paths import demo_dataset_dir
from desktop_app.store.models import ActionBox, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter

from test_import_formats import _write_envdistraction


def _content(project, times=True):
    """Everything the round trip must preserve, keyed by episode id."""
    with project.reading() as s:
        rows = s.exec(select(Episode, Step, Screen).join(Step, Step.episode_id == Episode.id)
                      .join(Screen, Screen.id == Step.screen_id).order_by(Episode.key, Step.index)).all()
        out = {}
        for episode, step, screen in rows:
            boxes = s.exec(select(ActionBox).where(ActionBox.step_id == step.id).order_by(ActionBox.id)).all()
            out.setdefault(episode.key, {"goal": episode.goal, "scenario": episode.scenario,
                                         "status": episode.review_status, "meta": episode.meta, "steps": []})
            out[episode.key]["steps"].append({
                "sha256": screen.sha256, "size": (screen.width, screen.height),
                "boxes": [(b.x1, b.y1, b.x2, b.y2, b.label, b.action_type, b.element_text, b.type_text,
                           b.source, b.author, b.version, b.created_at if times else None, b.meta)
                          for b in boxes],
            })
    return out


def test_demo_round_trips_exactly_through_screenlab_jsonl(tmp_path):
    with Project.init(tmp_path / "a") as first:
        import_path(first, demo_dataset_dir(), "screenlab")
        export_path(first, tmp_path / "export", "screenlab")
        original = _content(first)
    with Project.init(tmp_path / "b") as second:
        import_path(second, tmp_path / "export", "screenlab")
        copy = _content(second)
    assert len(original) >= 24
    assert copy == original
    # the exported file is byte-identical to the bundled one: nothing drifts on the way
    assert (tmp_path / "export" / "episodes.jsonl").read_text() == (demo_dataset_dir() / "episodes.jsonl").read_text()


def test_envdistraction_export_reimports_with_the_same_labels(project, tmp_path):
    import_path(project, _write_envdistraction(tmp_path / "ed"), "envdistraction")
    export_path(project, tmp_path / "out", "envdistraction")
    lines = [json.loads(x) for x in (tmp_path / "out" / "data.jsonl").read_text().splitlines()]
    popup = next(x for x in lines if x["target"] == "popupbox_phone_2b")
    assert popup["label"]["gold"] == ["Button <icon-cross>", ["No thanks", [500, 600, 620, 640]]]
    assert popup["label"]["bad"] == [["Sign me up", [300, 600, 480, 640]]]
    assert popup["tone"] == "urgent" and popup["distractor"]["Expression"] == "Get 20% off today"
    search = next(x for x in lines if x["target"] == "text_google")
    assert ["Click result 2, Tutorial", "<oos>"] in search["label"]["gold"]

    with Project.init(tmp_path / "again") as again:
        report = import_path(again, tmp_path / "out" / "data.jsonl", "envdistraction")
        assert dict(report.boxes) == {"gold": 4, "distracted": 2, "other": 2}
        # EnvDistraction has no timestamps, so only those are new
        assert _content(again, times=False) == _content(project, times=False)


def test_coco_export_has_one_category_per_label(project, tmp_path):
    import_path(project, _write_envdistraction(tmp_path / "ed"), "envdistraction")
    report = export_path(project, tmp_path / "coco", "coco")
    # COCO's own layout, which pycocotools and datumaro read as it is: no split is datumaro's "default"
    assert [p.name for p in (tmp_path / "coco" / "annotations").iterdir()] == ["instances_default.json"]
    doc = json.loads((tmp_path / "coco" / "annotations" / "instances_default.json").read_text())
    assert [c["name"] for c in doc["categories"]] == ["gold", "distracted", "other"]
    assert len(doc["images"]) == 2 and len(doc["annotations"]) == 3
    by_name = {c["id"]: c["name"] for c in doc["categories"]}
    first = next(a for a in doc["annotations"] if a["attributes"]["element_text"] == "No thanks")
    assert by_name[first["category_id"]] == "gold" and first["bbox"] == [500, 600, 120, 40]
    assert report.skipped == 5  # text-only actions cannot be COCO boxes
    for image in doc["images"]:
        assert (tmp_path / "coco" / "images" / "default" / image["file_name"]).is_file()


def test_screenspot_export_reimports_to_the_same_box(project, tmp_path):
    import_path(project, _write_envdistraction(tmp_path / "ed"), "envdistraction")
    export_path(project, tmp_path / "ss", "screenspot", EpisodeFilter(scenarios=("popup",)))
    rows = json.loads((tmp_path / "ss" / "screenspot.json").read_text())
    assert [r["bbox"] for r in rows] == [[500, 600, 120, 40]]
    with Project.init(tmp_path / "again") as again:
        import_path(again, tmp_path / "ss" / "screenspot.json", "screenspot")
        with again.reading() as s:
            box = s.exec(select(ActionBox)).one()
        assert (box.x1, box.y1, box.x2, box.y2, box.label) == (500, 600, 620, 640, "gold")


def test_export_filters_by_review_status(tmp_path):
    with Project.init(tmp_path / "a") as project:
        import_path(project, demo_dataset_dir(), "screenlab")
        report = export_path(project, tmp_path / "pending", "screenlab", EpisodeFilter(review_statuses=("pending",)))
        lines = (tmp_path / "pending" / "episodes.jsonl").read_text().splitlines()
    assert report.episodes == len(lines) >= 1
    assert all(json.loads(x)["review_status"] == "pending" for x in lines)


def test_export_never_writes_into_a_folder_that_has_files(project, tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "keep.txt").write_text("mine")
    with pytest.raises(FormatError, match="not empty"):
        export_path(project, tmp_path / "busy", "screenlab")
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["keep.txt"]


def test_cli_init_import_info_export(tmp_path, capsys):
    proj = str(tmp_path / "p")
    assert main(["init", proj]) == 0
    assert main(["import", proj, str(demo_dataset_dir()), "--format", "screenlab", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["info", proj, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert set(info["episodes_by_scenario"]) == {"popup", "search", "recommendation", "chat"}
    assert info["screens"] >= 24 and set(info["actions_by_label"]) == {"gold", "distracted", "other"}
    assert main(["export", proj, str(tmp_path / "out"), "--format", "coco", "--scenario", "chat"]) == 0
    files = sorted((tmp_path / "out" / "annotations").glob("instances_*.json"))
    assert files and {i["scenario"] for f in files for i in json.loads(f.read_text())["images"]} == {"chat"}


def test_python_dash_m_runs_the_same_cli():
    out = subprocess.run([sys.executable, "-m", "desktop_app", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("screenlab ")
