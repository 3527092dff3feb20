"""The Sphinx layout: a real recorded task imported and exported unchanged, annotators' fixes exported,
and bad files refused with the file and field named, nothing imported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from desktop_app import api
from desktop_app.a11y.tree import UiTree, format_bounds
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store import edits
from desktop_app.store.queries import episode_ids, load_bundles

from conftest import make_image, snapshot

REAL_TASK = Path(__file__).parent / "data" / "sphinx_task_101_money"
GOAL = "Create an expense for today: dinner 10 in the default currency"


def real_layout(tmp_path: Path) -> Path:
    """The authors' task 101 in the money app (dumps, actions, evaluators as released), with placeholder
    screenshots of the recorded size (768 x 1280) since the test data leaves the PNGs out."""
    root = tmp_path / "sphinx"
    folder = root / "groundtruth" / "101" / "money"
    shutil.copytree(REAL_TASK, folder, ignore=shutil.ignore_patterns("README*"))
    for xml in folder.glob("*.xml"):
        make_image(xml.with_suffix(".png"), size=(768, 1280), color=(int(xml.stem) * 30, 80, 120))
    (root / "task_info.json").write_text(json.dumps([{"id": 101, "description": GOAL, "apps": ["money"]}]))
    return root


def only_bundle(project):
    with project.reading() as s:
        (bundle,) = load_bundles(s, episode_ids(s))
    return bundle


def tiny_task(tmp_path: Path, xml: str | None = None, meta=None, evaluators=None) -> Path:
    """A two-step task of our own: tap the button, then stop."""
    root = tmp_path / "tiny"
    folder = root / "groundtruth" / "7" / "demo"
    folder.mkdir(parents=True)
    dump = xml or ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\">\n"
                   '  <node index="0" text="" class="android.widget.FrameLayout" package="p" clickable="false" '
                   'bounds="[0,0][200,100]">\n'
                   '    <node index="0" text="Go" resource-id="p:id/go" class="android.widget.Button" package="p" '
                   'clickable="true" bounds="[10,10][90,50]" />\n  </node>\n</hierarchy>\n')
    for i in range(2):
        make_image(folder / f"{i}.png", size=(200, 100))
        (folder / f"{i}.xml").write_text(dump)
    element = {"text": "Go", "resource-id": "p:id/go", "class": "android.widget.Button", "bounds": "[10,10][90,50]"}
    actions = meta if meta is not None else [{"type": "click", "element": element}, {"type": "stop", "element": None}]
    (folder / "meta.json").write_text(json.dumps(actions))
    checks = evaluators if evaluators is not None else [
        {"type": "findaction", "match_type": "equal", "match_rules": {"action_type": "click"},
         "check_type": "equal", "check_rules": {"text": "Go"}}]
    (folder / "evaluator.json").write_text(json.dumps(checks))
    return root


def test_a_real_task_imports_with_trees_and_exports_unchanged(project, tmp_path):
    source = real_layout(tmp_path)
    report = import_path(project, source, "sphinx")
    assert (report.episodes, report.steps, report.trees) == (1, 6, 6)
    bundle = only_bundle(project)
    assert bundle.episode.goal == GOAL and bundle.episode.key == "sphinx-101-money"
    meta = json.loads((source / "groundtruth/101/money/meta.json").read_text())
    # every acting step has its gold box at the reference element's bounds; the stop step has none
    for step, action in zip(bundle.steps, meta, strict=True):
        gold = [b for b in step.boxes if b.label == "gold"]
        if action["type"] == "stop":
            assert gold == [] and step.step.meta["completion"] == "stop"
        else:
            assert format_bounds((gold[0].x1, gold[0].y1, gold[0].x2, gold[0].y2)) == action["element"]["bounds"]
            assert step.step.meta["completion"] == "continue"
    # the reference trajectory passes the authors' own evaluators
    (check,) = api.check_references(project)
    assert check.passed and len(check.evaluators) == 2

    out = tmp_path / "out"
    export_path(project, out, "sphinx")
    written = out / "groundtruth/101/money"
    assert json.loads((written / "meta.json").read_text()) == meta
    assert json.loads((written / "evaluator.json").read_text()) == json.loads(
        (source / "groundtruth/101/money/evaluator.json").read_text())
    for i in range(6):
        assert (written / f"{i}.xml").read_bytes() == (source / f"groundtruth/101/money/{i}.xml").read_bytes()
        assert (written / f"{i}.png").read_bytes() == (source / f"groundtruth/101/money/{i}.png").read_bytes()
    assert json.loads((out / "task_info.json").read_text()) == [{"id": 101, "description": GOAL, "apps": ["money"]}]
    # and the export imports again as the same task
    with api.init_project(tmp_path / "again") as again:
        assert import_path(again, out, "sphinx").steps == 6


def test_a_box_moved_to_the_button_and_a_clickable_fix_are_exported(project, tmp_path):
    """The paper fixed boxes drawn on a label instead of its button: our export writes the button."""
    import_path(project, real_layout(tmp_path), "sphinx")
    bundle = only_bundle(project)
    first = bundle.steps[0]
    stored = api.screen_tree(project, first.step.id)
    label = stored.tree.best_match((first.boxes[0].x1, first.boxes[0].y1, first.boxes[0].x2, first.boxes[0].y2))
    assert label.text == "Food" and not label.flag("clickable")  # the recorded target is a bare text label
    button = stored.tree.clickable_ancestor(label.id)
    assert button is not None and button.id != label.id
    edits.update_boxes(project, [(first.boxes[0].id, dict(zip(("x1", "y1", "x2", "y2"), button.bounds,
                                                              strict=True)))])
    api.flag_tree_node(project, stored.tree_id, label.id, {"clickable": "true"})
    assert api.screen_tree(project, first.step.id).tree.nodes[label.id].flag("clickable")

    out = tmp_path / "out"
    export_path(project, out, "sphinx")
    meta = json.loads((out / "groundtruth/101/money/meta.json").read_text())
    assert meta[0]["element"]["bounds"] == format_bounds(button.bounds)
    assert meta[0]["element"]["resource-id"] == button.attrs["resource-id"]
    written = UiTree.from_xml((out / "groundtruth/101/money/0.xml").read_bytes())
    assert written.nodes[label.id].flag("clickable")  # the correction is in the exported dump
    with project.reading() as s:  # the stored dump stays as recorded
        from desktop_app.store.models import ScreenTree
        assert 'clickable="false"' in s.get(ScreenTree, stored.tree_id).xml


@pytest.mark.parametrize("case, where", [
    ("malformed xml", ("1.xml", "line 4", "not well-formed")),
    ("bad bounds", ("meta.json", "field '[0].element.bounds'")),
    ("unknown assertion", ("evaluator.json", "field '[0].type'")),
    ("no stop", ("meta.json", "field '[1].type'")),
    ("actions for screens", ("meta.json", "3 reference actions for 2 screens")),
])
def test_bad_files_are_refused_by_file_and_field_and_nothing_is_imported(project, tmp_path, case, where):
    element = {"text": "Go", "class": "android.widget.Button", "bounds": "[10,10][90,50]"}
    args = {}
    if case == "bad bounds":
        args["meta"] = [{"type": "click", "element": {**element, "bounds": "[10,10][90]"}}, {"type": "stop"}]
    elif case == "unknown assertion":
        args["evaluators"] = [{"type": "findtext", "match_rules": {}}]
    elif case == "no stop":
        args["meta"] = [{"type": "click", "element": element}, {"type": "back", "element": None}]
    elif case == "actions for screens":
        args["meta"] = [{"type": "click", "element": element}] * 2 + [{"type": "stop", "element": None}]
    root = tiny_task(tmp_path, **args)
    if case == "malformed xml":
        (root / "groundtruth/7/demo/1.xml").write_text("<?xml version='1.0' ?>\n<hierarchy>\n<node bounds=\"[0,0][1,1]\"\n"
                                                       "</hierarchy>\n")
    before = snapshot(project)
    with pytest.raises(FormatError) as caught:
        import_path(project, root, "sphinx")
    message = str(caught.value)
    for part in where:
        assert part in message
    assert snapshot(project) == before


def test_a_folder_without_tasks_says_what_the_layout_is(project, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(FormatError, match="groundtruth/<task>/<app>/"):
        import_path(project, tmp_path / "empty", "sphinx")


def test_the_gold_box_s_type_and_text_are_what_export_writes(project, tmp_path):
    """An annotator's change to the reference (typed text corrected, a click made a long press) is exported;
    a box moved where the tree has no node keeps the recorded element, and the export says so."""
    import_path(project, real_layout(tmp_path), "sphinx")
    bundle = only_bundle(project)
    typed = next(s for s in bundle.steps if s.step.meta["reference_action"]["type"] == "input")
    clicked = bundle.steps[1]
    edits.update_boxes(project, [(typed.boxes[0].id, {"type_text": "12"}),
                                 (clicked.boxes[0].id, {"action_type": "long_press"}),
                                 (bundle.steps[0].boxes[0].id, {"x1": 0, "y1": 1270, "x2": 2, "y2": 1272})])
    report = export_path(project, tmp_path / "out", "sphinx")
    meta = json.loads((tmp_path / "out/groundtruth/101/money/meta.json").read_text())
    assert meta[typed.step.index]["message"] == "12"
    assert meta[1]["type"] == "longclick"
    original = json.loads((REAL_TASK / "meta.json").read_text())
    assert meta[0]["element"] == original[0]["element"]  # no node under the moved box: the recorded one
    assert "1 moved gold boxes with no node under them" in report.summary()
