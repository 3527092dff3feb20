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


@pytest.fixture
def own_server():
    """A server of this test's own, since it is stopped and started again."""
    from pg_server import PgServer, binaries

    if binaries() is None:
        pytest.skip("PostgreSQL is not installed")
    server = PgServer().start()
    yield server
    server.stop()


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
