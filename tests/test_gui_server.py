"""The window on a project on a PostgreSQL server: opened through File > Open project on a server (the
password typed for the session, never stored), and a server that goes away mid-session: the edit is
refused and said so, a banner retries, and editing goes on when the server is back."""

import json

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.formats.transfer import import_path
from desktop_app.settings import Settings, settings_path
from desktop_app.store.project import Project

from conftest import make_image
from gui_helpers import drag, key

pytestmark = pytest.mark.gui


def _box_count(url, media):
    from sqlalchemy import func, select

    from desktop_app.store.models import ActionBox

    with Project.open(url, media) as p, p.reading() as s:
        return s.execute(select(func.count()).select_from(ActionBox)).scalar_one()


def test_open_on_a_server_and_survive_the_server_going_away(qtbot, own_server, tmp_path, monkeypatch):
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.server_dialog import ServerDialog

    url = own_server.new_database()
    media = tmp_path / "shared-media"
    for i in range(2):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(500, 400), color=(i * 90, 30, 30))
    with Project.init(url, media) as project:
        import_path(project, tmp_path / "shots", "images")
    monkeypatch.delenv("SCREENLAB_DB_PASSWORD", raising=False)

    settings = Settings(annotator="ann", show_suggestions=False)
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.resize(1300, 850)
    window.show()
    qtbot.waitExposed(window)
    # File > Open project on a server: URL without the password, the password typed in its own field
    window.open_server_project()
    dialog = window.findChild(ServerDialog)
    dialog.url.setText(url.replace(":team-secret@", "@"))
    dialog.password.setText("team-secret")
    dialog.media.setText(str(media))
    dialog._open()
    QApplication.processEvents()
    assert window.project is not None and window.ws.episode is not None
    assert "team-secret" not in window.project.url
    saved = settings_path().read_text() if settings_path().exists() else json.dumps(settings.__dict__)
    assert "team-secret" not in saved and str(media) in saved

    window.activateWindow()
    window.view.actual_size()
    window.view.setFocus()
    QApplication.processEvents()
    key(window, "W")
    drag(window.view, (40, 60), (200, 160))
    assert _box_count(url, media) == 1, (window.saved_label.text(), window.statusBar().currentMessage())

    own_server.pause()  # the server goes away
    key(window, "Esc")
    key(window, "W")
    drag(window.view, (240, 60), (400, 160))
    assert "NOT saved" in window.saved_label.text()
    assert window.connection_banner.isVisible()
    assert "NOT saved" in window.connection_banner.label.text()
    assert window.ws.undo_stack.count() == 1  # only the saved box can be undone

    own_server.resume()
    qtbot.waitUntil(lambda: not window.connection_banner.isVisible(), timeout=20000)
    key(window, "Esc")
    key(window, "W")
    drag(window.view, (240, 60), (400, 160))
    assert "All changes saved" in window.saved_label.text(), window.statusBar().currentMessage()
    assert _box_count(url, media) == 2
    window.close_project()


def test_create_a_server_project_with_its_images_in_the_database(qtbot, pg_server, tmp_path, monkeypatch):
    """The lead creates the project from the window (no shared folder), and the screens imported into it
    show on the canvas of a window on another machine that was given no media folder."""
    from desktop_app.ui.canvas.scene import ImageItem
    from desktop_app.ui.main_window import MainWindow
    from desktop_app.ui.server_dialog import ServerDialog

    monkeypatch.setenv("SCREENLAB_DATA_DIR", str(tmp_path / "lead-machine"))
    url = pg_server.new_database()
    settings = Settings(annotator="lead", show_suggestions=False)
    window = MainWindow(settings)
    qtbot.addWidget(window)
    window.open_server_project()
    dialog = window.findChild(ServerDialog)
    dialog.url.setText(url)
    dialog.media.clear()
    assert not dialog.in_database.isEnabled()
    dialog.create.click()
    dialog.in_database.click()
    assert dialog.open_button.text() == "Create"
    dialog.open_button.click()
    QApplication.processEvents()
    assert window.project is not None and window.project.media.in_database
    assert window.project.url not in settings.server_media  # nothing to remember: the project knows
    window.close_project()

    make_image(tmp_path / "shots" / "s0.png", size=(500, 400), color=(200, 30, 30))
    with Project.open(url) as project:
        import_path(project, tmp_path / "shots", "images")
    monkeypatch.setenv("SCREENLAB_DATA_DIR", str(tmp_path / "ann-machine"))
    other = MainWindow(Settings(annotator="ann", show_suggestions=False))
    qtbot.addWidget(other)
    assert other.open_project(url)
    assert isinstance(other.scene.background, ImageItem)
    assert other.scene.background.boundingRect().size().toSize().width() == 500
    other.close_project()
