"""The lead's team windows, driven as a lead does on a SQLite project with real screenshots: assigning
samples (Team > Assign…), reading progress and agreement (Team > Progress…), and adjudicating the
double-annotated samples (Team > Adjudicate…) with the keys and by picking boxes on the pictures."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QProgressBar
from sqlalchemy import select

from desktop_app import api
from desktop_app.formats.transfer import import_path
from desktop_app.store import edits
from desktop_app.store.models import ActionBox, Step
from desktop_app.teams import assignment
from desktop_app.teams.views import sample_heads, version_screens
from desktop_app.ui.team.adjudication_window import AdjudicationWindow
from desktop_app.ui.team.assign_dialog import AssignDialog
from desktop_app.ui.team.progress_dialog import ProgressDialog

from conftest import make_image
from gui_helpers import click, key

pytestmark = pytest.mark.gui

SCENARIOS = ["popup"] * 6 + ["search"] * 4
# the double-annotated samples' versions: (x1, y1, x2, y2, label) on step 0
ONE = {"ann": [(10, 10, 110, 50, "gold"), (200, 200, 260, 230, "other")],
       "bob": [(12, 8, 112, 52, "distracted")]}
TWO = {"ann": [(50, 50, 150, 90, "gold"), (200, 150, 300, 200, "other")],
       "bob": [(52, 50, 150, 92, "gold"), (20, 200, 120, 260, "distracted")]}


def write_samples(folder):
    """Ten one-screen samples (six popup, four search) and one three-step task, each screen 400 x 300."""
    lines = []
    for i, scenario in enumerate(SCENARIOS):
        make_image(folder / "images" / f"s{i}.png", size=(400, 300), color=(20 * i, 90, 160))
        lines.append({"id": f"{scenario}-{i}", "goal": f"Close the {scenario} on screen {i}",
                      "scenario": scenario,
                      "steps": [{"image": f"images/s{i}.png", "instruction": "", "actions": []}]})
    steps = []
    for i in range(3):
        make_image(folder / "images" / f"t{i}.png", size=(400, 300), color=(200, 40 * i, 60))
        steps.append({"image": f"images/t{i}.png", "instruction": f"Tap button {i + 1}", "actions": []})
    lines.append({"id": "checkout", "goal": "Buy the blue shoes", "scenario": "task", "steps": steps})
    (folder / "episodes.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return folder


@pytest.fixture
def team(project, tmp_path):
    import_path(project, write_samples(tmp_path / "data"), "screenlab")
    return project


def _sample(project, key_):
    return next(h.episode_id for h in sample_heads(project, list(range(1, 200))) if h.key == key_)


def _copies(project, who):
    return {e.meta["copy_of"]: e.id for e in api.queue(project, who) if e.kind == "copy"}


def _step_id(project, episode_id, index=0):
    with project.reading() as s:
        return s.execute(select(Step.id).where(Step.episode_id == episode_id, Step.index == index)
                         ).scalar_one()


def _label(project, copy_id, who, boxes, index=0, done=True, seconds=0.0):
    values = [{"x1": b[0], "y1": b[1], "x2": b[2], "y2": b[3], "label": b[4]} for b in boxes]
    edits.create_boxes(project, _step_id(project, copy_id, index), values, actor=who)
    if seconds:  # time spent counts while labelling, not on a look at finished work
        assignment.note_work(project, copy_id, seconds, edited=True, annotator=who)
    if done:
        api.set_state(project, copy_id, "done", annotator=who)


def _stored(project, episode_id):
    with project.reading() as s:
        return [(b.label, b.author, (b.meta or {}).get("adjudicated_from"), (b.x1, b.y1, b.x2, b.y2))
                for b in s.execute(select(ActionBox).join(Step).where(Step.episode_id == episode_id)
                                   .order_by(ActionBox.id)).scalars()]


@pytest.fixture
def double_labelled(team):
    """ann and bob on the popup samples, three of them double; two doubled ones finished by both (ONE, TWO),
    the third finished by ann only. ann also has two search samples: she did one and skipped one."""
    project = team
    report = api.assign(project, ["ann", "bob"], {"scenarios": ["popup"]}, overlap=0.5, seed=1, lead="lead")
    assert (report.samples, report.double, report.per_annotator) == (6, 3, {"ann": 4, "bob": 5})
    api.assign(project, ["ann"], {"scenarios": ["search"]}, limit=2, lead="lead")
    ann, bob = _copies(project, "ann"), _copies(project, "bob")
    one, two, three = sorted(ann)
    _label(project, ann[one], "ann", ONE["ann"], seconds=30.0)
    _label(project, bob[one], "bob", ONE["bob"])
    _label(project, ann[two], "ann", TWO["ann"], seconds=90.0)
    _label(project, bob[two], "bob", TWO["bob"])
    _label(project, ann[three], "ann", [(5, 5, 50, 50, "gold")])
    _label(project, bob[three], "bob", [(5, 5, 50, 50, "gold")], done=False)  # bob still labelling
    search = [e.id for e in api.queue(project, "ann") if e.scenario == "search"]
    api.set_state(project, search[0], "done", annotator="ann")
    api.set_state(project, search[1], "skipped", annotator="ann", reason="the screen is blank")
    return project, {"one": one, "two": two, "three": three, "ann": ann, "bob": bob}


def _shown(window):
    window.show()
    window.activateWindow()  # the lead works in it: its keys go to it
    QApplication.processEvents()


# --------------------------------------------------------------------------- core reads (teams/views.py)


def test_version_screens_give_each_step_its_screenshot_for_the_sample_and_its_copies(team):
    project = team
    task = _sample(project, "checkout")
    api.assign(project, ["ann", "bob"], {"ids": [task]}, overlap=1.0, lead="lead")
    screens = version_screens(project, task)
    assert sorted(screens) == [0, 1, 2]
    assert all(s.path.exists() and (s.width, s.height) == (400, 300) for s in screens.values())
    assert [s.instruction for s in screens.values()] == ["Tap button 1", "Tap button 2", "Tap button 3"]
    # the copies show the very same files
    copy = _copies(project, "ann")[task]
    copies = version_screens(project, copy)
    assert {i: s.path for i, s in copies.items()} == {i: s.path for i, s in screens.items()}
    heads = sample_heads(project, [task, _sample(project, "popup-0"), 99999])
    assert [(h.key, h.goal, h.steps) for h in heads] == [("checkout", "Buy the blue shoes", 3),
                                                         ("popup-0", "Close the popup on screen 0", 1)]


# --------------------------------------------------------------------------- assigning


def test_assign_dialog_gives_out_samples_and_reports_them(qtbot, team):
    project = team
    dialog = AssignDialog(project, lead="lead")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.keyClicks(dialog.names, "ann, bob")
    dialog.overlap.selectAll()
    qtbot.keyClicks(dialog.overlap, "50")
    qtbot.keyClicks(dialog.scenarios, "popup")
    with qtbot.waitSignal(dialog.assigned) as sent:
        qtbot.mouseClick(dialog.assign_button, Qt.LeftButton)
    report = sent.args[0]
    assert dialog.summary.text() == ("6 samples given out, 3 of them to two annotators (double); 0 were "
                                     "already assigned and left as they were.")
    assert not dialog.error.isVisible() and dialog.report_box.isVisible()
    shown = {dialog.per_annotator.item(r, 0).text(): int(dialog.per_annotator.item(r, 1).text())
             for r in range(dialog.per_annotator.rowCount())}
    assert shown == report.per_annotator and sum(shown.values()) == 6 + 3
    # what is stored: each queue holds what the report says, three blind copies each, only popup samples
    for who in ("ann", "bob"):
        queue = api.queue(project, who)
        assert len(queue) == shown[who]
        assert sum(e.kind == "copy" for e in queue) == 3
        assert {e.scenario for e in queue} == {"popup"}

    # again, for cat, without a scenario, at most two: the popup samples are taken already
    for field in (dialog.names, dialog.scenarios):
        field.clear()
    qtbot.keyClicks(dialog.names, "cat")
    dialog.overlap.selectAll()
    qtbot.keyClicks(dialog.overlap, "0")
    dialog.limit.selectAll()
    qtbot.keyClicks(dialog.limit, "2")
    qtbot.mouseClick(dialog.assign_button, Qt.LeftButton)
    assert dialog.summary.text().startswith("2 samples given out, 0 of them to two annotators (double); "
                                            "6 were already assigned")
    assert [e.key for e in api.queue(project, "cat")] == ["search-6", "search-7"]


def test_assign_dialog_shows_what_is_wrong_with_the_input_and_stores_nothing(qtbot, team):
    project = team
    dialog = AssignDialog(project)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.mouseClick(dialog.assign_button, Qt.LeftButton)  # no names at all
    assert dialog.error.isVisible() and dialog.error.text() == "name at least one annotator"
    assert "CC3311" in dialog.error.styleSheet()
    qtbot.keyClicks(dialog.names, " ann ,")
    dialog.overlap.selectAll()
    qtbot.keyClicks(dialog.overlap, "10")
    qtbot.mouseClick(dialog.assign_button, Qt.LeftButton)  # a double annotation by one person
    assert dialog.error.text() == "double annotation needs at least two annotators"
    dialog.names.clear()
    qtbot.keyClicks(dialog.names, "<b>" * 30)  # markup in a name is shown as typed, never rendered
    qtbot.mouseClick(dialog.assign_button, Qt.LeftButton)
    assert dialog.error.text().startswith("annotator name longer than 64 characters: <b><b>")
    assert dialog.error.textFormat() == Qt.PlainText
    assert not dialog.report_box.isVisible()
    assert api.progress(project) == []
    # and after a fix, the message goes and the report comes
    dialog.names.clear()
    qtbot.keyClicks(dialog.names, "ann, bob")
    qtbot.mouseClick(dialog.assign_button, Qt.LeftButton)
    assert not dialog.error.isVisible()
    assert dialog.summary.text().startswith("11 samples given out, 1 of them")


# --------------------------------------------------------------------------- progress and agreement


def _row(table, first):
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == first)
    return [table.item(row, c).text() for c in range(table.columnCount())]


def test_progress_dialog_shows_each_annotator_and_the_agreement(qtbot, double_labelled):
    project, ids = double_labelled
    dialog = ProgressDialog(project)
    qtbot.addWidget(dialog)
    dialog.show()
    table = dialog.table
    assert table.rowCount() == 2
    ann, bob = _row(table, "ann"), _row(table, "bob")
    # annotator, assigned, to do, in progress, done, skipped, double, hours, median s per done: ann did
    # three copies and a search sample, skipped one, and has one popup sample left; her time is 30 + 90 s
    assert ann[:9] == ["ann", "6", "1", "0", "4", "1", "3", "0.03", "60"]
    # bob did two copies; the third copy and his two popup samples are left; no time noted
    assert bob[:9] == ["bob", "5", "3", "0", "2", "0", "3", "0.00", "-"]
    bar = table.cellWidget(0, 9)
    assert isinstance(bar, QProgressBar) and bar.text() == "5 of 6 · 83.3%"
    assert table.cellWidget(1, 9).text() == "2 of 5 · 40.0%"
    assert dialog.waiting_label.text() == "2 samples wait for adjudication"

    # the two finished doubles: ann's gold matches bob's distracted on ONE and bob's gold on TWO; ann's
    # two "other" boxes and bob's distracted on TWO stand alone
    assert _row(dialog.pairs, "ann") == ["ann", "bob", "2", "2", "2", "1", "0.57", "50.0%", "0.00"]
    labels = {dialog.labels.item(r, 1).text(): [dialog.labels.item(r, c).text() for c in range(2, 7)]
              for r in range(dialog.labels.rowCount())}
    assert labels == {"distracted": ["0", "1", "0", "0.0%", "0.00"], "gold": ["2", "1", "1", "66.7%", "0.00"],
                      "other": ["0", "0", "0", "-", "-"]}
    assert dialog.fleiss.text() == ("Fleiss' κ for the team: -0.33 over 2 boxes that both annotators of "
                                    "their screen drew at the same place")
    # the third double has only ann's version finished: not compared, not counted
    assert dialog.agreement_summary.text().startswith("2 double-annotated samples are finished by two or more")

    # bob finishes the third and the lead refreshes: one more waits, and it counts in the agreement
    api.set_state(project, ids["bob"][ids["three"]], "done", annotator="bob")
    qtbot.mouseClick(dialog.refresh_button, Qt.LeftButton)
    assert dialog.waiting_label.text() == "3 samples wait for adjudication"
    assert _row(dialog.pairs, "ann")[:4] == ["ann", "bob", "3", "3"]
    assert _row(dialog.table, "bob")[4] == "3"
    # closed and opened again from the menu, it reads again
    dialog.close()
    api.set_state(project, ids["bob"][ids["three"]], "in_progress", annotator="bob")
    dialog.show()
    assert dialog.waiting_label.text() == "2 samples wait for adjudication"


def test_progress_dialog_on_a_project_nobody_works_on_says_so(qtbot, team):
    dialog = ProgressDialog(team)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.table.rowCount() == 0 and dialog.no_work.isVisible()
    assert dialog.waiting_label.text() == "0 samples wait for adjudication"
    assert dialog.pairs.rowCount() == 0 and "No two annotators" in dialog.agreement_summary.text()
    assert dialog.fleiss.text().startswith("Fleiss' κ for the team: -")


def test_a_kappa_over_one_label_throughout_shows_a_dash_that_says_why(qtbot, team, capsys):
    # ann and bob box the same element "gold" on two doubled samples: they agree on every box (100 %), but
    # with one label throughout chance predicts all of it: kappa is 0/0, shown "-" with the reason, not 1.00.
    from desktop_app.cli.main import main
    from desktop_app.stats.kappa import ONE_LABEL

    project = team
    report = api.assign(project, ["ann", "bob"], {"scenarios": ["search"]}, overlap=1.0, limit=2, lead="lead")
    assert report.double == 2
    ann, bob = _copies(project, "ann"), _copies(project, "bob")
    for sample in ann:
        _label(project, ann[sample], "ann", [(10, 10, 110, 50, "gold")])
        _label(project, bob[sample], "bob", [(12, 8, 112, 52, "gold")])
    dialog = ProgressDialog(project)
    qtbot.addWidget(dialog)
    dialog.show()
    assert _row(dialog.pairs, "ann") == ["ann", "bob", "2", "2", "0", "0", "1.00", "100.0%", "-"]
    assert dialog.pairs.item(0, 8).toolTip() == ONE_LABEL
    gold = next(r for r in range(dialog.labels.rowCount()) if dialog.labels.item(r, 1).text() == "gold")
    assert dialog.labels.item(gold, 6).text() == "-" and dialog.labels.item(gold, 6).toolTip() == ONE_LABEL
    assert dialog.fleiss.text().startswith("Fleiss' κ for the team: - over 2 boxes") and ONE_LABEL in dialog.fleiss.text()

    capsys.readouterr()
    assert main(["team", "agreement", str(project.folder)]) == 0
    out = capsys.readouterr().out
    assert f"label agreement 1.000, Cohen's kappa - ({ONE_LABEL})" in out
    assert f"Fleiss' kappa - ({ONE_LABEL}) over 2 boxes with 2 raters each" in out
    assert "kappa 1.000" not in out  # not per label either


# --------------------------------------------------------------------------- adjudication


def test_adjudication_window_takes_a_version_with_a_key_and_merges_picked_boxes(qtbot, double_labelled):
    project, ids = double_labelled
    one, two = ids["one"], ids["two"]
    window = AdjudicationWindow(project, lead="lead")
    qtbot.addWidget(window)
    _shown(window)
    heads = {h.episode_id: h for h in sample_heads(project, [one, two])}
    assert [window.list.item(r).text() for r in range(window.list.count())] == \
        [f"{heads[e].key}\n{heads[e].goal}" for e in (one, two)]
    assert window.list_title.text() == "2 samples to adjudicate"
    # the first is shown: both versions side by side on the screenshot, blind no more
    assert window.episode_id == one and window.sample_title.text() == heads[one].key
    assert [p.title.text() for p in window.panes] == ["ann", "bob"]
    assert [len(p.view.boxes) for p in window.panes] == [2, 1]
    assert [p.view.sceneRect().size().toTuple() for p in window.panes] == [(400.0, 300.0)] * 2
    assert [p.take_button.text() for p in window.panes] == ["Take ann's version  (1)",
                                                            "Take bob's version  (2)"]
    assert not window.step_choice.isVisible()  # one step: nothing to choose

    key(window, "Down")
    assert window.episode_id == two and window.list.currentRow() == 1
    key(window, "Up")
    assert window.episode_id == one

    with qtbot.waitSignal(window.adjudicated) as sent:
        key(window, "1")  # ann's version of ONE
    assert sent.args == [one]
    assert [(lab, who, xy) for lab, who, _, xy in _stored(project, one)] == \
        [("gold", "ann", (10, 10, 110, 50)), ("other", "ann", (200, 200, 260, 230))]
    assert window.list.count() == 1 and window.list_title.text() == "1 sample to adjudicate"
    assert window.episode_id == two  # the next one is shown
    assert window.status.text() == f"{heads[one].key}: Took ann's version: 2 boxes written."

    # on TWO: ann's gold picked on her picture, bob's distracted ticked in his list
    ann_pane, bob_pane = window.panes
    click(ann_pane.view, 100, 70)
    assert window.picked_in_order() == [ids_of(window, "ann", "gold")]
    tick = next(bob_pane.checklist.item(r) for r in range(bob_pane.checklist.count())
                if bob_pane.checklist.item(r).text().startswith("distracted"))
    tick.setCheckState(Qt.Checked)
    assert window.merge_button.text() == "Merge 2 selected boxes" and window.merge_button.isEnabled()
    checked = [ann_pane.checklist.item(r).checkState() for r in range(ann_pane.checklist.count())]
    assert checked == [Qt.Checked, Qt.Unchecked]  # the click ticked the list as well
    click(bob_pane.view, 140, 290)  # nowhere near a box: nothing changes
    assert len(window.picked) == 2
    picked = window.picked_in_order()
    qtbot.mouseClick(window.merge_button, Qt.LeftButton)
    assert [(lab, who, src, xy) for lab, who, src, xy in _stored(project, two)] == \
        [("gold", "ann", picked[0], (50, 50, 150, 90)), ("distracted", "bob", picked[1], (20, 200, 120, 260))]
    assert window.list.count() == 0 and window.right.currentWidget() is window.nothing
    assert window.status.text() == f"{heads[two].key}: Merged 2 boxes from the versions."
    assert api.awaiting_adjudication(project) == []
    key(window, "1")  # nothing left to take: no crash, nothing stored
    assert len(_stored(project, one)) == 2


def ids_of(window, who, label):
    pane = next(p for p in window.panes if p.version.annotator == who)
    return next(b.id for boxes in pane.version.boxes.values() for b in boxes if b.label == label)


def test_adjudication_window_refuses_versions_still_blind_and_walks_the_steps(qtbot, double_labelled):
    project, ids = double_labelled
    window = AdjudicationWindow(project, lead="lead")
    qtbot.addWidget(window)
    _shown(window)
    assert window.show_sample(ids["three"]) is False  # bob is still labelling it
    assert "bob still labelling" in window.status.text() and "CC3311" in window.status.styleSheet()
    assert window.right.currentWidget() is window.nothing and window.list.currentRow() == -1
    with qtbot.assertNotEmitted(window.adjudicated):
        key(window, "2")
    assert _stored(project, ids["three"]) == []
    # closed, and opened again once bob is done: the third is listed
    window.close()
    api.set_state(project, ids["bob"][ids["three"]], "done", annotator="bob")
    _shown(window)
    assert window.list.count() == 3 and window.show_sample(ids["three"])
    window.show_sample(ids["one"])

    # a three-step task labelled twice: a step selector, each step its own screenshot and boxes
    task = _sample(project, "checkout")
    api.assign(project, ["ann", "bob"], {"ids": [task]}, overlap=1.0, lead="lead")
    ann, bob = _copies(project, "ann")[task], _copies(project, "bob")[task]
    _label(project, ann, "ann", [(20, 20, 120, 60, "gold")], index=0, done=False)
    _label(project, ann, "ann", [(200, 100, 300, 140, "gold")], index=1)
    _label(project, bob, "bob", [(200, 100, 300, 140, "distracted"), (10, 10, 30, 30, "other")], index=1)
    qtbot.mouseClick(window.refresh_button, Qt.LeftButton)
    assert window.list.count() == 4
    assert window.show_sample(task) and window.list.currentRow() == 3
    assert window.step_choice.isVisible() and window.step_choice.count() == 3
    assert window.step_choice.itemText(1) == "Step 2 of 3 · Tap button 2"
    assert [len(p.view.boxes) for p in window.panes] == [1, 0]
    window.step_choice.setCurrentIndex(1)
    assert [len(p.view.boxes) for p in window.panes] == [1, 2]
    screens = version_screens(project, task)
    assert window.screens[1].path == screens[1].path
    with qtbot.waitSignal(window.adjudicated):
        key(window, "2")  # bob's version: both of his boxes, on step 2
    assert [(lab, who) for lab, who, _, _ in _stored(project, task)] == [("distracted", "bob"),
                                                                         ("other", "bob")]
    with project.reading() as s:
        steps = set(s.execute(select(Step.index).join(ActionBox, ActionBox.step_id == Step.id)
                              .where(Step.episode_id == task)).scalars())
    assert steps == {1}
    assert window.list.count() == 3


def test_adjudication_window_shows_a_placeholder_for_a_screenshot_gone_from_the_media_folder(qtbot,
                                                                                            double_labelled):
    from desktop_app.ui.canvas.items import MissingImageItem

    project, ids = double_labelled
    version_screens(project, ids["two"])[0].path.unlink()
    window = AdjudicationWindow(project, lead="lead")
    qtbot.addWidget(window)
    _shown(window)
    assert window.show_sample(ids["two"])
    for pane in window.panes:
        pictures = [i for i in pane.view.scene().items() if isinstance(i, MissingImageItem)]
        assert len(pictures) == 1 and "Image missing from the media folder" in pictures[0].reason
        assert pane.view.sceneRect().size().toTuple() == (400.0, 300.0)
    with qtbot.waitSignal(window.adjudicated):
        key(window, "2")  # the boxes are still there to decide on
    assert [lab for lab, _, _, _ in _stored(project, ids["two"])] == ["gold", "distracted"]
