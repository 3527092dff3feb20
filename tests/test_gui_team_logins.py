"""The window follows the person who logged in (PostgreSQL, each person their own login): an annotator sees
her own queue and nothing of anyone else's, the status bar names her and her role, the Team menu offers
what her role may do, and an idle window holds one connection; a lead who labels a sample blind on a copy
is sent to the copy when she edits the shared original; a reviewer returns work with a pinned comment,
which the annotator reads over the canvas where she labels it."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QGraphicsRectItem, QMessageBox

from desktop_app import api
from desktop_app.formats.transfer import import_path
from desktop_app.settings import Settings

from conftest import make_image
from gui_helpers import drag, key
from team_server import step_of

pytestmark = [pytest.mark.gui, pytest.mark.parametrize("backend", ["postgresql"])]



@pytest.fixture
def work(team, tmp_path):
    """Four screens: A to ana in place, B to ben in place, C to nobody, D blind to lena and ana."""
    for i in range(4):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(600, 400), color=(40 + i * 50, 60, 90))
    lena = team.open("lena")
    import_path(lena, tmp_path / "shots", "images")
    with lena.reading() as s:
        from desktop_app.store.queries import EpisodeFilter, episode_ids

        a, b, c, d = episode_ids(s, EpisodeFilter())
    api.assign(lena, ["ana"], {"ids": [a]})
    api.assign(lena, ["ben"], {"ids": [b]})
    api.assign(lena, ["lena", "ana"], {"ids": [d]}, overlap=1.0)
    copies = {e.meta["annotator"]: e.id for who in ("lena", "ana") for e in api.queue(team.open(who))
              if e.kind == "copy"}
    return team, {"a": a, "b": b, "c": c, "d": d, "copies": copies}


def _window(qtbot, team, who):
    """The window opened by `who` on the project: their URL with the password typed for the session."""
    from desktop_app.ui.main_window import MainWindow

    window = MainWindow(Settings(annotator="typed-name", show_suggestions=False))
    qtbot.addWidget(window)
    window.resize(1400, 900)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    assert window.open_project(team.url(who), str(team.media))
    QApplication.processEvents()
    window.view.actual_size()
    window.view.setFocus()
    QApplication.processEvents()
    return window


def _rows(window):
    model = window.browser.model
    return [model.episode_id_at(r) for r in range(model.rowCount())]


def _connections(team, who) -> int:
    with team.connect("owner") as owner:
        return owner.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = %s AND datname = "
                              "current_database()", (who,)).fetchone()[0]


def test_an_annotators_window_holds_her_work_only_and_names_her(qtbot, work):
    team, ids = work
    team.close()  # the set-up's own connections: what is left to count is the window's
    window = _window(qtbot, team, "ana")
    assert window.status.annotator.text() == "ana (annotator)"  # the login, not the name typed in Settings
    queue = window.browser.queue
    assert [queue.itemText(i) for i in range(queue.count())] == ["My queue (ana)"] and not queue.isEnabled()
    assert set(_rows(window)) == {ids["a"], ids["copies"]["ana"]}
    offered = {k: a.isEnabled() for k, a in window.team._by_role.items()}
    assert offered == {"work.accept": False, "work.return": False, "people": False, "assign": False,
                       "adjudicate": False, "password": True}  # her own password is hers to change
    # she labels her sample and finishes it, as in any project
    window.browser.show_episode(ids["a"])
    QApplication.processEvents()
    key(window, "W")
    drag(window.view, (40, 40), (200, 120))
    assert "All changes saved" in window.saved_label.text(), window.statusBar().currentMessage()
    key(window, "Ctrl+Return")
    # an idle window keeps one connection to the server
    QApplication.processEvents()
    assert _connections(team, "ana") <= 1
    assert api.states(team.open("lena"), [ids["a"]], "ana")[ids["a"]][0] == "done"
    window.close_project()
    assert _connections(team, "ana") == 0


def test_a_lead_editing_a_sample_she_labels_blind_is_sent_to_her_copy(qtbot, work):
    team, ids = work
    window = _window(qtbot, team, "lena")
    assert window.status.annotator.text() == "lena (lead)"
    queue = window.browser.queue
    assert [queue.itemText(i) for i in range(queue.count())] == [
        "Everyone's samples", "My queue (lena)", "ana's queue", "ben's queue"]
    assert queue.currentData() == "lena"  # she has work: her queue first
    assert all(a.isEnabled() for a in window.team._by_role.values())
    queue.setCurrentIndex(0)  # everyone's samples: the shared original of D is there
    QApplication.processEvents()
    window.browser.show_episode(ids["d"])
    QApplication.processEvents()
    assert window.ws.episode.id == ids["d"]
    key(window, "W")
    drag(window.view, (60, 60), (220, 140))
    QApplication.processEvents()
    assert window.ws.episode.id == ids["copies"]["lena"]  # her copy is open instead
    assert "your own copy" in window.statusBar().currentMessage()
    lena = team.open("lena")
    assert api.screen(lena, step_of(lena, ids["d"]).id).boxes == []  # the original is untouched
    key(window, "Esc")
    key(window, "W")
    drag(window.view, (60, 60), (220, 140))
    assert len(api.screen(lena, step_of(lena, ids["copies"]["lena"]).id).boxes) == 1
    window.close_project()


def test_a_reviewer_returns_work_with_a_pinned_comment_that_the_annotator_reads(qtbot, work):
    team, ids = work
    ana = team.open("ana")
    (box,) = api.add_boxes(ana, step_of(ana, ids["a"]).id, [{"x1": 50, "y1": 50, "x2": 250, "y2": 120,
                                                            "label": "other"}])
    api.set_state(ana, ids["a"], "done")
    rita = _window(qtbot, team, "rita")
    assert rita.status.annotator.text() == "rita (reviewer)"
    assert rita.team._by_role["work.return"].isEnabled() and not rita.team._by_role["assign"].isEnabled()
    rita.browser.show_episode(ids["a"])
    QApplication.processEvents()
    rita.scene.select_ids([box.id])
    QApplication.processEvents()
    key(rita, "Ctrl+Shift+N")
    dialog = rita.team.return_dialog
    assert dialog is not None and dialog.isVisible() and dialog.on_box.isChecked()
    dialog.comment.setPlainText("This is the Save button: gold, not other.")
    dialog._accept()
    QApplication.processEvents()
    assert "ana's work returned" in rita.statusBar().currentMessage()
    rita.close_project()
    (returned,) = api.work_reviews(ana, ids["a"])
    assert (returned.reviewer, returned.pin.box_id) == ("rita", box.id)

    window = _window(qtbot, team, "ana")
    row = _rows(window).index(ids["a"])
    assert window.browser.model.data(window.browser.model.index(row, 5)) == "↩ returned"
    window.browser.show_episode(ids["a"])
    QApplication.processEvents()
    assert window.review_banner.isVisible()
    text = window.review_banner.label.text()
    assert "Returned to ana by rita" in text and "This is the Save button: gold, not other." in text
    rings = [i for i in window.scene.items() if isinstance(i, QGraphicsRectItem) and i.zValue() == 1000]
    assert len(rings) == 1 and rings[0].rect().contains(box.x1, box.y1)
    # her fix and "done" put it before the reviewer again; the comment is gone from her screen
    window.scene.select_ids([box.id])
    key(window, "1")
    key(window, "Ctrl+Return")
    window.browser.show_episode(ids["a"])
    QApplication.processEvents()
    assert not window.review_banner.isVisible()
    assert (ids["a"], "ana") in api.awaiting_review(team.open("rita"))
    window.close_project()


def test_the_lead_adds_a_person_in_team_people_and_hands_over_the_password(qtbot, work):
    from sqlalchemy.engine import make_url

    from desktop_app.store.project import Project
    from desktop_app.ui.team.members_dialog import MembersDialog

    team, _ids = work
    with team.open("owner").engine.begin() as conn:  # a login an earlier test of this server left
        conn.exec_driver_sql('DROP ROLE IF EXISTS "cara"')
    window = _window(qtbot, team, "lena")
    window.team.show_members()
    dialog = window.opened.beside("people")
    assert isinstance(dialog, MembersDialog) and dialog.isVisible()
    dialog.add_button.click()
    dialog.add_dialog.login.setText("cara")
    dialog.add_dialog.accept()
    QApplication.processEvents()
    password = dialog.password.text()
    assert len(password) >= 20 and "Hand them the password above" in dialog.status.text()
    logins = [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())]
    assert "cara" in logins
    url = make_url(team.location).set(username="cara", password=password).render_as_string(hide_password=False)
    with Project.open(url, team.media) as cara:
        assert (cara.identity.user, cara.identity.role) == ("cara", "annotator")
    # a mistake is said in the dialog, nothing changes
    dialog.table.selectRow(logins.index(team.owner_login))
    dialog.remove_button.click()
    assert "owner" in dialog.status.text() and team.owner_login in [
        dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())]
    window.close_project()


def test_an_annotator_changes_her_own_password_from_the_team_menu(qtbot, work, tmp_path, monkeypatch):
    import keyring

    from desktop_app.store.project import Project

    from secrets_sweep import VAULT_FILE_VAR, FileKeyring

    team, _ids = work
    monkeypatch.setenv(VAULT_FILE_VAR, str(tmp_path / "vault.json"))
    previous = keyring.get_keyring()
    keyring.set_keyring(FileKeyring())
    try:
        window = _window(qtbot, team, "ben")
        assert window.team._by_role["password"].isEnabled()
        window.team.change_password()
        box = window.team.password_box
        assert box is not None and "ben" in box.text()
        box.button(QMessageBox.Yes).click()
        QApplication.processEvents()
        assert "keyring" in window.statusBar().currentMessage()
        window.close_project()
        monkeypatch.delenv("SCREENLAB_DB_PASSWORD", raising=False)
        with Project.open(team.url("ben", password=False), team.media) as again:  # the keyring's password
            assert again.identity.user == "ben"
        with pytest.raises(Exception, match="password authentication failed"):
            Project.open(team.url("ben"), team.media)  # the old one no longer works
    finally:
        keyring.set_keyring(previous)
