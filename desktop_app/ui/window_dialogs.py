"""The dialogs and side windows the menus open: settings, help, the Capability menu's windows (what the agent
reads, knowledge probes, the capability profile) and jobs (grounding tasks, their instructions), the page
variants window. Each side window is its own window beside the main one, not modal. Only wiring: the work
is the API's, run off the UI thread."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop_app import api
from desktop_app.guide import NOT_BUILT, guide_index
from desktop_app.settings import save_settings
from desktop_app.ui.settings_dialog import SettingsDialog, ShortcutsDialog
from desktop_app.ui.tasks import run_in_background
from desktop_app.ui.theme import apply_theme
from desktop_app.ui.tool_window import bring_forward

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


class WindowDialogs(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.guide_missing: QMessageBox | None = None  # Help > User guide's "not built" note, while shown

    def _say(self, text: str, timeout_ms: int = 0) -> None:
        self.window.status.show_message(text, timeout_ms)

    # Edit > Settings, Help ---------------------------------------------------------------------------
    def settings(self, tab: str = "") -> None:
        window, settings = self.window, self.window.settings
        dialog = SettingsDialog(settings, window)
        for index in range(dialog.tabs.count()):
            if dialog.tabs.tabText(index) == tab:
                dialog.tabs.setCurrentIndex(index)
        browser = settings.browser_path
        if not dialog.exec():
            return
        dialog.apply_to(settings)
        if settings.browser_path != browser:
            window.stop_render_service()  # the next render starts the browser chosen now
        save_settings(settings)
        window.apply_shortcuts()
        apply_theme(QApplication.instance(), settings.theme)
        window.scene.set_palette(settings.palette)
        window.scene.set_caption_mode(settings.box_captions)
        if window.opened is not None:  # its views' palette, and (a folder project) who works: Settings' name
            window.opened.settings_changed(settings)
        window.judge.settings_changed()

    def check_project(self):
        """File > Check project…: a window beside the main one, checking at once (off the UI thread)."""
        from desktop_app.ui.project_check_dialog import ProjectCheckDialog

        project = self.window.project  # the menu item is greyed out while no project is open
        dialog = ProjectCheckDialog(project, self.window)
        dialog.setAttribute(Qt.WA_DeleteOnClose)
        dialog.show()
        dialog.run()
        return dialog

    def record_task(self):
        """File > Record a task…: a window beside the main one; a recorded episode is selected in the list,
        and Replay and check acts on it (or, before one is recorded, on the episode selected there)."""
        from desktop_app.ui.record_dialog import RecordTaskDialog

        opened = self.window.opened  # the menu item is greyed out while no project is open
        dialog = RecordTaskDialog(opened.project, opened.browser.current_episode_id(),
                                  self.window.settings.browser_path, self.window)  # it frees itself
        dialog.recorded.connect(lambda episode_id: self._show_recorded(opened, episode_id))
        dialog.show()
        return dialog

    def _show_recorded(self, opened, episode_id: int) -> None:
        if self.window.opened is not opened:  # another project was opened while recording
            return
        opened.browser.reload_choices()  # a new scenario ("recorded") may be there now
        opened.browser.apply_filter()
        opened.browser.show_episode(episode_id)

    def welcome(self) -> None:
        from desktop_app.ui.welcome import WelcomeDialog

        WelcomeDialog(self.window.settings.shortcuts, self.window).exec()

    def user_guide(self) -> None:
        """Help > User guide: the built pages in the system's browser, read from disk (no network). Not built
        (a checkout before `make guide`): a message saying how to build it."""
        index = guide_index()
        if index is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(index)))
            return
        # not modal: it only informs, and the window stays usable behind it
        self.guide_missing = QMessageBox(QMessageBox.Information, "User guide not built",
                                         NOT_BUILT[0].upper() + NOT_BUILT[1:] + ".", QMessageBox.Ok, self.window)
        self.guide_missing.open()

    def shortcuts(self) -> None:
        ShortcutsDialog(self.window.settings.shortcuts, self.window).exec()

    def about(self) -> None:
        """The version, this user's folders (each opens), and "Remove my data…", which closes the window first."""
        from desktop_app.ui.about_dialog import AboutDialog

        dialog = AboutDialog(self.window)
        dialog.remove_requested.connect(self.window.close_and_remove_data)
        dialog.exec()

    # Capability: jobs ---------------------------------------------------------------------------------
    def extract_grounding(self) -> None:
        """One pending grounding task per distinct element action of the recorded tasks (off the UI thread)."""
        project = self.window.project  # the menu item is greyed out while no project is open
        self._say("Making grounding tasks…")
        run_in_background(self.window, lambda: api.extract_grounding_tasks(project),
                          lambda report: self._grounding_done(report.summary()),
                          lambda exc: self._say(f"Could not make grounding tasks: {exc}", 10000),
                          wait="Making grounding tasks")

    def write_instructions(self) -> None:
        """The LLM of Settings writes the instruction of every grounding task without one (off the UI thread)."""
        from desktop_app.synth.llm import LlmEndpoint

        endpoint = LlmEndpoint.from_settings(self.window.settings)
        project = self.window.project  # the menu item is greyed out while no project is open
        if endpoint is None:
            self._say("Set an LLM endpoint first (Edit > LLM endpoint and browser)", 10000)
            return
        self._say(f"Writing grounding instructions with {endpoint.model}…")
        run_in_background(self.window, lambda: api.write_grounding_instructions(project, endpoint),
                          lambda report: self._grounding_done(report.summary()),
                          lambda exc: self._say(f"Could not write instructions: {exc}", 10000),
                          wait="Writing grounding instructions")

    def _grounding_done(self, text: str) -> None:
        self._say(text + " · Review > Verification queue shows them", 10000)
        opened = self.window.opened
        if opened is not None:  # still open after the job
            opened.browser.refresh()
            opened.ws.reload()  # the job wrote goals: the episode on screen must not keep a stale copy

    # side windows --------------------------------------------------------------------------------------
    def _open_beside(self, attr: str, make) -> None:
        """A window of its own beside the main one (not modal), closed and freed by the user; the main window
        project keeps it under `attr` (MainWindow.vaf_window and the like read it)."""
        window = make()
        window.setAttribute(Qt.WA_DeleteOnClose)
        bring_forward(window)  # in front, with the keys: Esc closes it (ui/tool_window.py)
        self.window.opened.keep_beside(attr, window)  # it reads this project: it closes with it

    def show_observation(self) -> None:
        from desktop_app.ui.observation_view import ObservationView

        window = self.window
        if window.ws.step is None:  # the menu item needs an open project; a screen must be shown too
            self._say("Select a screen first", 4000)
            return
        self._open_beside("observation_view", lambda: ObservationView(window.project, window.ws.step.id, window))

    def show_probes(self) -> None:
        from desktop_app.ui.probe_editor import ProbeEditor

        window = self.window  # the menu item is greyed out while no project is open
        self._open_beside("probe_editor", lambda: ProbeEditor(window.project, window.ws.actor, window))

    def show_capability_profile(self) -> None:
        from desktop_app.ui.capability_view import CapabilityView

        window = self.window  # the menu item is greyed out while no project is open
        self._open_beside("capability_view", lambda: CapabilityView(window.project, window))

    def show_page_variants(self) -> None:
        from desktop_app.ui.vaf.window import VafWindow

        window = self.window  # the menu item is greyed out while no project is open
        if window.vaf_window is not None:  # one per project: a study being generated keeps its progress bar
            bring_forward(window.vaf_window)
            return
        self._open_beside("vaf_window", lambda: VafWindow(window.project, window.render_service,
                                                          window.annotator_name(), window))
