"""A computer with no Chromium, Chrome or Edge (issue 38): rendering says so, whole and readable, before
Playwright's driver is started (an installer unpacks 124 MB of it on its first start), and the page-variants
window shows the message and its advice in a normal, wrapped message area."""

from __future__ import annotations

import threading

import pytest

from desktop_app.render.browser import INSTALL_HINT, BrowserNotFound


@pytest.fixture
def no_browser(tmp_path, monkeypatch):
    """No browser on PATH, none installed by Playwright, none named by a variable."""
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "ms-playwright"))
    monkeypatch.delenv("SCREENLAB_BROWSER", raising=False)


def test_no_browser_is_said_before_the_driver_starts(no_browser):
    from desktop_app.render import renderer as module

    seen = {}

    def render() -> None:  # in a thread of its own: the driver is per thread
        try:
            module.Renderer().start()
        except BrowserNotFound as exc:
            seen["error"] = str(exc)
        seen["driver"] = getattr(module._drivers, "pw", None)

    worker = threading.Thread(target=render)
    worker.start()
    worker.join(60)
    assert seen["error"].startswith("No Chromium, Chrome or Edge found.") and INSTALL_HINT in seen["error"]
    assert seen["driver"] is None  # no Node.js started, nothing unpacked for it


def test_a_browser_playwright_installed_still_lets_the_driver_look(no_browser, tmp_path):
    from desktop_app.render.browser import check_browser_before_driver

    (tmp_path / "ms-playwright" / "chromium-1200").mkdir(parents=True)
    check_browser_before_driver()  # only the driver knows its exact path: no early refusal


@pytest.mark.gui
def test_page_variants_without_a_browser_shows_the_whole_message(qtbot, tmp_path, no_browser):
    from PySide6.QtWidgets import QApplication

    from desktop_app.store.project import Project

    from test_gui_editing import open_window

    Project.init(tmp_path / "p").close()
    window = open_window(qtbot, tmp_path / "p")
    window.resize(1366, 768)
    window.variants_action.trigger()  # Variants > Page variants…
    vaf = window.vaf_window
    qtbot.waitExposed(vaf)
    vaf.resize(1366, 768)
    tab = vaf.page
    tab.show_page()  # the first demo page, as the window shows it on opening
    qtbot.waitUntil(lambda: tab.problem.isVisible(), timeout=30_000)
    text = tab.problem.text()
    assert "No Chromium, Chrome or Edge found." in text and INSTALL_HINT in text
    # wrapped and given the height it needs: every line of it is on screen
    assert tab.problem.wordWrap() and tab.problem.height() >= tab.problem.heightForWidth(tab.problem.width())
    QApplication.processEvents()
    assert vaf.width() <= 1366  # no message widens the window past the laptop's screen
    assert "message above" in tab.view.message  # the note over the page points to it, short enough to fit
    tab.view.grab().save(str(tmp_path / "view.png"))  # the note is painted without error
    vaf.close()
