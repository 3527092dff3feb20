"""A box's role and its class are two things (issue 35, ADR 0047): the role (gold, distracted, other) is what
every protocol scores; the class comes from the project's vocabulary of any size, case kept, and no verdict
reads it. Existing projects migrate with their own labels becoming classes, their verdicts and exports as they
were."""

from __future__ import annotations

import json
import re

import pytest
from alembic import command
from sqlalchemy import text

from desktop_app import api
from desktop_app.cli.main import main
from desktop_app.evaluation.rules.base import target_of
from desktop_app.formats import exporters
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store import edits, migrate
from desktop_app.store import models as m
from desktop_app.store.label_set import LabelError
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from conftest import make_image

STAMPS = re.compile(rb"<(created|updated|dumped)>[^<]*</\1>")
COCO_80 = [f"Class_{i}" for i in range(1, 81)]


def _one_step(project, tmp_path) -> int:
    make_image(tmp_path / "shots" / "a.png", size=(300, 200))
    import_path(project, tmp_path / "shots", "images")
    with project.reading() as s:
        return s.exec(select(m.Step)).first().id


def test_classes_keep_their_case_have_no_limit_and_are_never_scored(any_project, tmp_path):
    step = _one_step(any_project, tmp_path)
    box = {"x1": 1, "y1": 1, "x2": 50, "y2": 40, "label": "gold", "category": "Car"}
    with pytest.raises(ValueError, match=r"unknown class 'Car' \(this project's classes: none yet\)"):
        edits.create_boxes(any_project, step, [box])

    assert api.add_classes(any_project, ["Car", "car", "sports ball"]) == ("Car", "car", "sports ball")
    assert len(api.add_classes(any_project, COCO_80)) == 83  # no six-label ceiling
    (made,) = edits.create_boxes(any_project, step, [box])
    assert (made.label, made.category) == ("gold", "Car")
    assert target_of(made).label == "gold"  # what a verdict on it reads: the role

    with pytest.raises(LabelError, match="exists already"):
        api.add_class(any_project, "Car")
    with pytest.raises(LabelError, match="is a role"):
        api.add_class(any_project, "Gold")
    with pytest.raises(LabelError, match="1 to 64 characters"):
        api.add_class(any_project, "x" * 65)
    with pytest.raises(LabelError, match="exists already"):  # all or none: "Bus" was not added either
        api.add_classes(any_project, ["Bus", "car"])
    assert "Bus" not in api.classes(any_project)
    with pytest.raises(LabelError, match="1 box has the class 'Car'; change them first"):
        api.remove_class(any_project, "Car")
    assert "car" not in api.remove_class(any_project, "car")  # the other spelling is another class

    export_path(any_project, tmp_path / "coco", "coco")
    coco = json.loads((tmp_path / "coco" / "annotations" / "instances_default.json").read_text())
    names = {c["id"]: c["name"] for c in coco["categories"]}
    assert list(names.values())[:4] == ["gold", "distracted", "other", "Car"]
    (annotation,) = coco["annotations"]
    assert names[annotation["category_id"]] == "Car" and annotation["attributes"]["role"] == "gold"

    # the file goes back into a fresh project as it left: the class with its case, the role from the attribute
    with Project.init(tmp_path / "fresh") as fresh:
        report = api.import_data(fresh, tmp_path / "coco", "coco", add_labels=True)
        assert report.labels_added == ["Car"] and "classes: 1 Car" in report.summary()
        with fresh.reading() as s:
            back = s.exec(select(m.ActionBox)).one()
        assert (back.label, back.category) == ("gold", "Car")


def test_the_command_line_lists_adds_removes_and_sets_a_class(project, tmp_path, capsys):
    where = str(project.folder)
    step = _one_step(project, tmp_path)
    (box,) = edits.create_boxes(project, step, [{"x1": 1, "y1": 1, "x2": 50, "y2": 40}])
    assert main(["labels", where, "--add", "Traffic light", "--add", "ad"]) == 0
    assert capsys.readouterr().out.splitlines() == ["Traffic light", "ad"]  # one a line: names hold spaces
    assert main(["labels", where, "--add", "other"]) == 2
    assert "is a role" in capsys.readouterr().err
    assert main(["boxes", "edit", where, str(box.id), "--set", "class=Traffic light", "--set", "role=distracted"]) == 0
    capsys.readouterr()
    with project.reading() as s:
        stored = s.get(m.ActionBox, box.id)
    assert (stored.label, stored.category) == ("distracted", "Traffic light")
    assert main(["labels", where, "--remove", "Traffic light"]) == 2
    assert "change them first" in capsys.readouterr().err
    assert main(["labels", where, "--remove", "ad"]) == 0
    assert capsys.readouterr().out.splitlines() == ["Traffic light"]


# -------------------------------------------------------------------------------- the migration (0013 -> 0014)


def _verdicts(project) -> list[tuple]:
    runs = [r.id for r in api.runs(project)]
    return sorted(json.dumps(row, sort_keys=True, default=str)
                  for row in api.per_sample(project, runs))


def _exports(project, out) -> dict[str, bytes]:
    """Every export format's files, the export's own time (CVAT's <created>, <updated>, <dumped>) blanked."""
    files = {}
    for fmt in exporters():
        export_path(project, out / fmt, fmt)
        files.update({f"{fmt}/{p.relative_to(out / fmt)}": STAMPS.sub(rb"<\1></\1>", p.read_bytes())
                      for p in sorted((out / fmt).rglob("*")) if p.is_file()})
    return files


def _to(project, revision: str) -> None:
    cfg = migrate._config()
    with project.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        (command.downgrade if revision != "head" else command.upgrade)(cfg, revision)


def test_the_migration_changes_no_verdict_and_no_export(demo_copy, tmp_path):
    """Down to the schema before the split and up again, the demo project's verdicts (two offline agents under
    every rule set) and its files in every export format are byte for byte what they were. Then as a project
    of that time had them: its "other" boxes labelled with its own label "ad" (which scored as other) become
    role other, class "ad": no verdict moves, and each export names them "ad", as the old label did."""
    with Project.open(demo_copy) as project:
        api.run(project, "center")
        api.run(project, "random")
        before = _verdicts(project)
        assert any('"gold"' in row for row in before) and any('"other"' in row for row in before)
        files = _exports(project, tmp_path / "before")

        _to(project, "0013")
        _to(project, "head")
        assert _verdicts(project) == before
        assert _exports(project, tmp_path / "again") == files

        _to(project, "0013")
        with project.engine.begin() as conn:
            relabelled = conn.execute(text("UPDATE action_box SET label = 'ad' WHERE label = 'other'")).rowcount
            conn.execute(text("INSERT INTO project_setting (key, value) VALUES ('labels', '[\"ad\"]')"))
        assert relabelled > 0
        _to(project, "head")
        assert api.classes(project) == ("ad",)
        with project.reading() as s:
            kinds = s.exec(select(m.ActionBox.label, m.ActionBox.category).where(m.ActionBox.category != "")).all()
        assert len(kinds) == relabelled and set(kinds) == {("other", "ad")}
        assert _verdicts(project) == before

        coco = json.loads((tmp_path / "before" / "coco" / "annotations" / "instances_default.json").read_text())
        export_path(project, tmp_path / "after" / "coco", "coco")
        after = json.loads((tmp_path / "after" / "coco" / "annotations" / "instances_default.json").read_text())
        names = {c["id"]: c["name"] for c in after["categories"]}
        assert list(names.values()) == ["gold", "distracted", "other", "ad"]
        old_names = {c["id"]: c["name"] for c in coco["categories"]}
        # every annotation as before, its category "ad" where it was "other"
        assert [(a["bbox"], {"other": "ad"}.get(old_names[a["category_id"]], old_names[a["category_id"]]))
                for a in coco["annotations"]] == [(a["bbox"], names[a["category_id"]]) for a in after["annotations"]]
