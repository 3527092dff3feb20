"""Trajectory judges in the window, driven with keys as a user would: labelling trajectories (S / F, 1-4,
Enter, PgDn / PgUp), blind mode, the agreement view's numbers, and reviewing a disagreement.

The data is honest: the demo's six navigation flows made into trajectories, a second annotator's labels,
and a judge run through the real engine and openai client against the local fake server, whose answers
are scripted per task below.
"""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication, QLabel, QTextBrowser
from sqlalchemy import text

from desktop_app import api
from desktop_app.formats.transfer import import_path
from desktop_app.judging.labels import reviews_of
from desktop_app.paths import judge_demo_dataset_dir, navi_demo_dataset_dir
from desktop_app.settings import Settings
from desktop_app.store.project import Project
from desktop_app.ui.judge import AgreementView, TrajectoryView
from desktop_app.ui.judge.trajectory_view import EMPTY

from openai_server import FakeOpenAI, Response, user_text
from test_gui_editing import open_window

pytestmark = pytest.mark.gui

# the six trajectories, by a word of their task (in import order)
TASKS = {"shoes": "blue running shoes", "table": "Olive & Ash", "timeout": "screen timeout",
         "money": "Pocketly", "flights": "Lisbon to Berlin", "alarm": "6:45 AM"}
TIMEOUT_THOUGHTS = "The timeout list still shows 30 seconds, not 2 minutes."
JUDGE = {  # the fake judge's answer per task
    "shoes": 'Thoughts: the order page shows a confirmation.\nStatus: "success"',
    "table": 'Thoughts: the booking is confirmed for 4 people.\nStatus: "success"',
    "timeout": f'Thoughts: {TIMEOUT_THOUGHTS}\nStatus: "failure"',
    "money": 'Thoughts: no payment was sent.\nStatus: "failure"',
    "flights": "I am not sure what to say about this one.",  # no Status line: a parse failure
    "alarm": 'Thoughts: the alarm list shows 6:45 AM, Gym.\nStatus: "success"',
}
ALICE = {"shoes": "success", "table": "success", "timeout": "success", "money": "failure", "flights": "failure"}
# Worked out by hand from JUDGE and ALICE (alarm has no human label, flights no verdict):
#   shoes  human success, judge success -> TP      table  success / success -> TP
#   timeout success / failure -> FN               money  failure / failure -> TN
#   flights: parse failure (not scored)           alarm: no reference (not scored)
# scored 4: TP 2, FN 1, TN 1, FP 0
#   accuracy (2+1)/4 = 75.0 %, precision 2/(2+0) = 100.0 %, recall 2/(2+1) = 66.7 %,
#   F1 2*2/(2*2+0+1) = 4/5 = 80.0 %, false-negative rate 1/(1+2) = 33.3 %
#   kappa: observed 3/4; humans say success 3/4, the judge 2/4 -> chance 3/4*2/4 + 1/4*2/4 = 1/2;
#          (3/4 - 1/2) / (1 - 1/2) = 0.50
# After accepting the judge on "timeout" (the reference becomes failure): TP 2, TN 2 -> accuracy 100.0 %,
#   false-negative rate 0/2 = 0.0 %, no disagreement left.


@pytest.fixture
def judged(tmp_path):
    """(project folder, task name -> episode id, judge run id)."""
    path = tmp_path / "p"
    with Project.init(path) as project:  # the navigation flows alone (the demo project also has judged ones)
        import_path(project, navi_demo_dataset_dir(), "screenlab")
        made = api.trajectories_from_episodes(project, {"scenarios": ["navigation"]})
        rows = {r.episode_id: r for r in api.trajectories(project)}
        ids = {name: next(i for i in made if word in rows[i].intent) for name, word in TASKS.items()}
        assert sorted(ids.values()) == sorted(made) and len(made) == 6
        for name, outcome in ALICE.items():
            api.label_trajectory(project, ids[name], "alice", outcome)

        def respond(body, n):
            asked = user_text(body)
            return Response(text=next(JUDGE[name] for name, word in TASKS.items() if word in asked))

        with FakeOpenAI(respond) as server:
            judge = api.agent(name="judge-a", base_url=server.base_url, model="judge-model", concurrency=2)
            run_id, progress = api.run(project, judge, protocol="judge")
        assert progress.done == 6 and progress.errors == 0
    return path, ids, run_id


def double_click(widget, pos) -> None:
    """Press, release, double-click, release at `pos` of `widget`, sent to it as gui_helpers sends mouse events
    (qtbot.mouseDClick works on a lone AgreementView, but inside the main window no event reached the table)."""
    for kind, buttons in ((QEvent.MouseButtonPress, Qt.LeftButton), (QEvent.MouseButtonRelease, Qt.NoButton),
                          (QEvent.MouseButtonDblClick, Qt.LeftButton), (QEvent.MouseButtonRelease, Qt.NoButton)):
        event = QMouseEvent(kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), Qt.LeftButton, buttons,
                            Qt.NoModifier)
        QApplication.sendEvent(widget, event)
    QApplication.processEvents()


def visible_text(widget) -> str:
    return "\n".join([w.text() for w in widget.findChildren(QLabel) if w.isVisible()]
                     + [w.toPlainText() for w in widget.findChildren(QTextBrowser) if w.isVisible()])


def test_label_trajectories_with_keys(qtbot, judged):
    path, ids, run_id = judged
    order = [ids[n] for n in TASKS]
    with Project.open(path) as project:
        # a frame whose image is gone shows a placeholder, never an error
        money_final = api.trajectory(project, ids["money"]).steps[-1]
        project.media.path_for(money_final.sha256, money_final.ext).unlink()
        view = TrajectoryView()
        qtbot.addWidget(view)
        view.resize(1400, 900)
        view.show()
        qtbot.waitExposed(view)
        view.set_project(project)
        view.set_annotator("me")
        view.setFocus()

        assert view.count.text() == "6 of 6 left" and view.current_id == order[0]
        assert view.selected == len(view.trajectory.steps) - 1  # the final frame first
        assert "blue running shoes" in view.intent.text()
        # the next trajectory's frames are decoded while this one is looked at
        table = api.trajectory(project, ids["table"])
        qtbot.waitUntil(lambda: all(s.sha256 in view.loader.cache for s in table.steps), timeout=5000)

        qtbot.keyClick(view, Qt.Key_S)
        assert view.panel.outcome_buttons["success"].isChecked()
        assert api.trajectory_labels(project, [ids["shoes"]]).get(ids["shoes"], {}).get("me") is None  # not yet
        qtbot.keyClick(view, Qt.Key_Return)
        assert api.trajectory_labels(project)[ids["shoes"]]["me"].outcome == "success"
        assert view.current_id == ids["table"] and view.count.text() == "5 of 6 left"
        assert ids["shoes"] not in view.ids()
        assert view.frame_view.frame is not None and view.frame_view.frame.image is not None  # prefetched: at once

        # a label for the second step: Home, Right, 2 (towards-the-goal), then the outcome and Enter
        qtbot.keyClick(view, Qt.Key_Home)
        qtbot.keyClick(view, Qt.Key_Right)
        assert view.selected == 1 and view.actions.currentRow() == 1
        qtbot.keyClick(view, Qt.Key_2)
        assert view.panel.step_buttons["towards-the-goal"].isChecked()
        assert "[towards-the-goal]" in view.actions.item(1).text()
        qtbot.keyClick(view, Qt.Key_F)
        qtbot.keyClick(view, Qt.Key_Return)
        label = api.trajectory_labels(project)[ids["table"]]["me"]
        steps = len(api.trajectory(project, ids["table"]).steps)
        assert label.outcome == "failure"
        assert label.step_labels == ("", "towards-the-goal") + ("",) * (steps - 2)
        assert view.current_id == ids["timeout"]

        # blind (the default): neither alice's label nor the judge's reasoning is on screen
        assert view.panel.blind.isChecked()
        assert TIMEOUT_THOUGHTS not in visible_text(view) and "alice" not in visible_text(view)
        qtbot.mouseClick(view.panel.blind, Qt.LeftButton)
        assert not view.panel.blind.isChecked()
        shown = visible_text(view)
        assert TIMEOUT_THOUGHTS in shown and "FAILURE" in shown and "alice: success" in shown
        qtbot.mouseClick(view.panel.blind, Qt.LeftButton)
        assert TIMEOUT_THOUGHTS not in visible_text(view)

        # PgDn / PgUp and N / P move without saving; the missing image is a placeholder
        view.setFocus()
        qtbot.keyClick(view, Qt.Key_S)
        qtbot.keyClick(view, Qt.Key_PageDown)
        assert view.current_id == ids["money"] and "me" not in api.trajectory_labels(project)[ids["timeout"]]
        qtbot.waitUntil(lambda: view.frame_view.missing, timeout=5000)
        assert "missing" in view.frame_view.frame.error
        qtbot.keyClick(view, Qt.Key_N)
        assert view.current_id == ids["flights"]
        qtbot.keyClick(view, Qt.Key_P)
        qtbot.keyClick(view, Qt.Key_PageUp)
        assert view.current_id == ids["timeout"] and view.panel.outcome is None

        # a label that cannot be stored says why and stays on screen (here the trajectory was deleted meanwhile)
        qtbot.keyClick(view, Qt.Key_PageDown)
        with project.engine.begin() as conn:
            conn.execute(text("DELETE FROM episode WHERE id = :i"), {"i": ids["money"]})
        qtbot.keyClick(view, Qt.Key_U)
        qtbot.keyClick(view, Qt.Key_Return)
        assert f"no trajectory {ids['money']}" in view.panel.status.text() and view.current_id == ids["money"]

        # with every trajectory in the queue, a save marks its row in place (money is gone: 5 left, 2 mine)
        view.only_unlabelled.setChecked(False)
        assert view.count.text() == "3 of 5 left" and len(view.ids()) == 5
        view.open_trajectory(ids["timeout"])
        qtbot.keyClick(view, Qt.Key_S)
        qtbot.keyClick(view, Qt.Key_Return)
        item = view.queue_panel.list.item(view.ids().index(ids["timeout"]))
        assert item.text().startswith("✓ ") and "success" in item.text() and view.count.text() == "2 of 5 left"
        assert view.current_id == ids["flights"]

        # without an annotator name nothing can be labelled, and the panel says where to set it
        view.set_annotator("")
        qtbot.keyClick(view, Qt.Key_F)
        assert view.panel.outcome is None and "Settings" in view.panel.status.text()
        assert not view.panel.save_button.isEnabled() and "Settings" in view.panel.save_button.toolTip()
        view.set_project(None)


def test_agreement_view_and_reviewing_a_disagreement(qtbot, judged):
    path, ids, run_id = judged
    window = open_window(qtbot, path, Settings(annotator="me", show_suggestions=False))
    pages = window.judge
    agreement = pages.agreement
    with qtbot.waitSignal(agreement.refreshed, timeout=10000):
        window.actions_by_id["judge.agreement"].trigger()
    assert pages.current() == "agreement" and not window.left.isVisible()

    table = agreement.runs_table
    cells = {table.horizontalHeaderItem(c).text().rstrip(" ⚠"): table.item(0, c).text()
             for c in range(table.columnCount())}
    assert cells == {"Judge run": cells["Judge run"], "Model": "judge-model", "Mode": "end_to_end",
                     "Trajectories": "6", "Scored": "4", "Parse failures": "1", "Accuracy": "75.0%",
                     "Precision": "100.0%", "Recall": "66.7%", "F1": "80.0%", "False-negative rate": "33.3%",
                     "Kappa": "0.50", "Kendall τ-b": "-"}  # one policy: no ranking to compare
    fnr = table.horizontalHeaderItem(10)
    assert fnr.font().bold() and "retries" in fnr.toolTip()
    assert table.item(0, 10).font().bold()
    assert [[agreement.confusion.item(r, c).text().split()[0] for c in range(2)] for r in range(2)] == [["2", "1"],
                                                                                                          ["0", "1"]]
    assert "3 success · 2 failure · 1 unscored (a tie or no usable label) · 0 corrected" in agreement.reference.text()
    rows = agreement.disagreement_table
    assert rows.rowCount() == 1
    assert [rows.item(0, c).text() for c in range(1, 5)] == ["demonstration", "success", "failure", "open"]

    # Enter on a disagreement opens it, as a double-click does
    opened = []
    agreement.open_requested.connect(lambda episode, run: opened.append((episode, run)))
    rows.setFocus()
    rows.selectRow(0)
    qtbot.keyClick(rows, Qt.Key_Return)
    assert opened == [(ids["timeout"], run_id)] and pages.current() == "label"
    with qtbot.waitSignal(agreement.refreshed, timeout=10000):
        window.actions_by_id["judge.agreement"].trigger()

    # double-click the disagreement: the labeller shows it with the judge's reasoning, even though blind
    rect = rows.visualItemRect(rows.item(0, 0))
    double_click(rows.viewport(), rect.center())
    labeller = pages.labeller
    assert pages.current() == "label" and labeller.current_id == ids["timeout"]
    assert labeller.panel.blind.isChecked() and labeller.panel.review_box.isVisible()
    assert TIMEOUT_THOUGHTS in labeller.panel.review_text.toPlainText()
    assert "alice: success" in labeller.panel.review_text.toPlainText()

    qtbot.mouseClick(labeller.panel.tag_boxes["misread screenshot"], Qt.LeftButton)
    labeller.panel.review_note.setText("the setting was saved after all")
    qtbot.mouseClick(labeller.panel.accept_button, Qt.LeftButton)
    review = reviews_of(window.project, [run_id])[(run_id, ids["timeout"])]
    assert (review.reviewer, review.decision, review.judged) == ("me", "accept", "failure")
    assert review.tags == ("misread screenshot",) and review.note == "the setting was saved after all"
    assert "judge accepted" in labeller.panel.review_state.text()

    # back in the agreement: the reference follows the review, the disagreement is gone
    with qtbot.waitSignal(agreement.refreshed, timeout=10000):
        window.actions_by_id["judge.agreement"].trigger()
    assert table.item(0, 6).text() == "100.0%" and table.item(0, 10).text() == "0.0%"
    assert rows.rowCount() == 0 and "1 corrected by review" in agreement.reference.text()
    window.actions_by_id["judge.agreement"].trigger()  # the same key again: back to the screens
    assert pages.current() == "annotate" and window.left.isVisible()


def test_a_project_without_trajectories_says_how_to_get_some(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy, Settings(annotator="", show_suggestions=False))
    assert window.actions_by_id["judge.label"].shortcut().toString() == "Ctrl+Shift+J"
    window.actions_by_id["judge.label"].trigger()
    labeller = window.judge.labeller
    assert window.judge.current() == "label" and labeller.pages.currentWidget() is labeller.empty
    # no name in Settings: the labeller and the status bar both use the OS user, as the audit log does
    assert labeller.annotator and window.annotator_label.text() == f"Annotator: {labeller.annotator}"
    assert labeller.empty.isVisible() and labeller.empty.text() == EMPTY and "from-episodes" in EMPTY
    qtbot.keyClick(labeller, Qt.Key_S)  # nothing to label: nothing happens, and S did not snap a box
    qtbot.keyClick(labeller, Qt.Key_Return)
    # the hidden canvas's Ctrl keys are off (Ctrl+A would select its boxes, Ctrl+Z undo an edit unseen);
    # the window's own keys stay
    assert window.actions_by_id["edit.undo"].shortcuts() == [] and window.actions_by_id["edit.select_all"].shortcuts() == []
    assert window.actions_by_id["file.open"].shortcut().toString() == "Ctrl+O"
    qtbot.keyClick(labeller, Qt.Key_A, Qt.ControlModifier)
    assert window.scene.selectedItems() == []
    with qtbot.waitSignal(window.judge.agreement.refreshed, timeout=10000):
        window.actions_by_id["judge.agreement"].trigger()
    assert window.judge.agreement.empty.isVisible()
    window.actions_by_id["judge.label"].trigger()
    window.actions_by_id["judge.label"].trigger()
    assert window.judge.current() == "annotate" and window.view.isVisible()
    assert window.actions_by_id["edit.undo"].shortcut().toString() == "Ctrl+Z"  # back with the canvas
    qtbot.keyClick(window.view, Qt.Key_A, Qt.ControlModifier)
    assert window.scene.selectedItems()  # the demo screen's boxes
    window.close_project()
    assert window.judge.labeller.project is None


def test_standalone_agreement_view_on_no_project(qtbot):
    view = AgreementView()
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.refreshed, timeout=5000):
        view.set_project(None)
    assert view.pages.currentWidget() is view.empty and view.selected_run() is None


def test_taps_are_rings_and_swipes_arrows(qapp):
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QColor, QImage, QPainter

    from desktop_app.ui.judge.filmstrip_frames import ACTION_COLOUR, draw_action

    def painted(points) -> QImage:
        image = QImage(400, 200, QImage.Format_RGB32)
        image.fill(QColor("black"))
        painter = QPainter(image)
        draw_action(painter, QRectF(0, 0, 400, 200), points)
        painter.end()
        return image

    def coloured(image, x, y) -> bool:
        """The action's colour at (x, y), or a pixel beside it (the strokes are antialiased)."""
        def close(c):
            return sum(abs(a - b) for a, b in zip(c.getRgb()[:3], ACTION_COLOUR.getRgb()[:3], strict=True)) < 60

        return any(close(image.pixelColor(x + dx, y + dy)) for dx in (-1, 0, 1) for dy in (-1, 0, 1))

    # a tap at (0.5, 0.5) -> a ring of radius 0.02 * 400 = 8 px around (200, 100), and the point itself
    tap = painted(((0.5, 0.5),))
    assert coloured(tap, 200, 100) and coloured(tap, 208, 100) and not coloured(tap, 204, 100)
    assert not coloured(tap, 300, 100)
    # a swipe from (0.25, 0.5) to (0.75, 0.5): the line between, the head at the lift point (300, 100)
    swipe = painted(((0.25, 0.5), (0.75, 0.5)))
    assert coloured(swipe, 250, 100) and coloured(swipe, 296, 100) and not coloured(swipe, 250, 120)


def test_the_demo_shows_its_judges_and_imports_more_verdicts(qtbot, tmp_path, first_start_demo):
    path = first_start_demo
    with Project.open(path) as project:
        view = AgreementView()
        qtbot.addWidget(view)
        view.resize(1400, 900)
        view.show()
        with qtbot.waitSignal(view.refreshed, timeout=10000):
            view.set_project(project)
        # a new user sees figures at once: the demo's two scripted judges, the gullible one's FNR 0 %
        names = [view.runs_table.item(r, 0).text() for r in range(view.runs_table.rowCount())]
        assert names == ["last-action judge (demo)", "reply-trusting judge (demo)"]
        assert view.runs_table.item(0, 2).text() == "imported"
        # the 18 judged ones, and the demo live run's 2 tasks, which nobody labelled yet
        assert "20 trajectories · reference: 6 success, 11 failure, 3 without one" in view.summary.text()

        # a bad file: a message naming the line, nothing imported, the window goes on
        bad = tmp_path / "bad.jsonl"
        bad.write_text('{"task_uid": "nope", "user_uid": "j", "annotation": "Success"}\n')
        view.import_verdicts(str(bad))
        qtbot.waitUntil(lambda: view.error_box is not None and view.error_box.isVisible(), timeout=10000)
        assert "line 1" in view.error_box.text() and "no trajectory 'nope'" in view.error_box.text()
        view.error_box.close()
        assert len(api.judge_runs(project)) == 2

        # the demo judges' own file again under another user: several judges in one file -> the one chosen
        lines = (judge_demo_dataset_dir() / "verdicts" / "last-action.jsonl").read_text().splitlines()
        mixed = tmp_path / "mixed.jsonl"
        mixed.write_text("\n".join(lines + [lines[0].replace("last-action judge (demo)", "someone")]) + "\n")
        with qtbot.waitSignal(view.refreshed, timeout=10000):
            view.import_verdicts(str(mixed), user="someone")
        assert view.runs_table.rowCount() == 3
        assert view.selected_run() == max(r.id for r in api.judge_runs(project))  # the new run is shown
        assert view.runs_table.item(view.runs_table.currentRow(), 0).text() == "someone"

        # exports of the selected judge (the careful one): its verdicts, the trajectories it passed; its
        # verdicts are whole-trajectory ones, so there are no step rewards to filter by
        view.select_run(next(r.id for r in api.judge_runs(project) if r.name == "last-action judge (demo)"))
        with qtbot.waitSignal(view.message, timeout=10000) as said:
            view.export("verdicts", str(tmp_path / "careful.jsonl"))
        assert said.args[0].startswith("18 verdicts written")
        exported = [json.loads(x) for x in (tmp_path / "careful.jsonl").read_text().splitlines()]
        assert sum(x["annotation"] == "Success" for x in exported) == 5
        with qtbot.waitSignal(view.message, timeout=10000):
            view.export("passed", str(tmp_path / "passed"))
        assert len(json.loads((tmp_path / "passed" / "trajectory_log.json").read_text())) == 5
        view.export("steps", str(tmp_path / "steps"), min_reward=0.5)
        qtbot.waitUntil(lambda: view.error_box.isVisible(), timeout=10000)
        assert "no step labels" in view.error_box.text() and not (tmp_path / "steps").exists()
        view.error_box.close()
