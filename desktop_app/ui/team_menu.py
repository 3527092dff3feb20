"""The team's part of the window: marking the current screen done / skipped (then the next one), a
reviewer's accept / return of the work on it, the reviewer's comment where returned work is labelled, an
edit of a sample the person labels on a private copy opening that copy, and the Team menu (people, assign,
progress and agreement, adjudication), offered by role. Only wiring: the rules live in teams/ and the
workspace, and the server enforces them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, Qt
from PySide6.QtWidgets import QInputDialog, QMessageBox

from desktop_app import api
from desktop_app.teams.assignment import SKIP_REASONS
from desktop_app.ui.action_button import ActionButton
from desktop_app.ui.tool_window import bring_forward

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


class TeamWiring(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.skip_dialog: QInputDialog | None = None
        self.return_dialog = None
        self.password_box: QMessageBox | None = None
        self._by_role: dict[str, object] = {}  # menu actions offered only to some roles
        self._on_project: list = []  # every Team action: none is usable while no project is open
        self.last_point: QPointF | None = None  # where the pointer last rested on the screen (a pin)
        window.scene.cursorMoved.connect(self._pointer)

    def _pointer(self, pos: QPointF) -> None:
        if self.window.scene.image_rect.contains(pos):
            self.last_point = QPointF(pos)

    # a project opened: what this person is offered, and following its workspace -------------------------
    def project_opened(self, project, ws) -> None:
        for action in self._on_project:
            action.setEnabled(True)
        me = project.identity
        offered = {"assign": me.can_assign, "adjudicate": me.can_assign, "people": me.can_assign and project.on_server,
                   "work.accept": me.is_staff, "work.return": me.is_staff, "password": project.on_server}
        for key, action in self._by_role.items():
            action.setEnabled(offered.get(key, True))
            action.setToolTip("" if offered.get(key, True) else f"Not for your role ({me.role})")
        # the annotator's main step, in view with its key (as labelme's and CVAT's "next" buttons are)
        self.window.properties.buttons.addWidget(ActionButton(
            self.window.actions_by_id["work.done"], "Mark this screen done and open the next one in the list that "
                                                    "is not done or skipped"))
        ws.stepLoaded.connect(lambda: self.window.review_banner.show_for(ws.open_return, ws.step_index,
                                                                         self.window.scene, ws.boxes))
        ws.redirected.connect(self.open_own_copy)

    def project_closed(self) -> None:
        for action in self._on_project:
            action.setEnabled(False)

    def open_own_copy(self, copy_id: int, message: str) -> None:
        self.window.browser.show_episode(copy_id)  # the open project's workspace asked: its list is there
        self.window.status.show_message(message, 8000)

    # marking work (the actions are greyed out while no project is open) -----------------------------------
    def _after_mark(self) -> None:
        """On to the next screen in the list that is not finished (done, skipped, accepted), past those that are."""
        browser = self.window.browser
        row, marked = browser.current_row(), self.window.ws.episode.id
        browser.refresh()
        # a state filter may have dropped the marked row: then the next one already stands at its place
        start = row + 1 if browser.model.episode_id_at(row) == marked else row
        found = browser.next_unfinished(start)
        if found is None:
            self.window.status.show_message("Every screen in this list is done or skipped.", 8000)
        browser.select_row(start if found is None else found)

    def done_and_next(self) -> None:
        if self.window.ws.mark("done"):
            self._after_mark()

    def reopen(self) -> None:
        if self.window.ws.mark("in_progress"):
            self.window.browser.model.invalidate_rows()

    def skip_and_next(self) -> None:
        """Ask why (a list to pick from, or typed), without blocking the window; then skip and move on."""
        if self.window.ws.episode is None:
            return
        dialog = QInputDialog(self.window)
        dialog.setWindowTitle("Skip this screen")
        dialog.setLabelText("Why skip it? (the reason is kept with the screen)")
        dialog.setComboBoxItems(list(SKIP_REASONS))
        dialog.setComboBoxEditable(True)
        dialog.textValueSelected.connect(self._skip_with)
        dialog.finished.connect(lambda _r: setattr(self, "skip_dialog", None))
        self.skip_dialog = dialog
        dialog.open()

    def _skip_with(self, reason: str) -> None:
        ws = self.window.ws
        if reason.strip() and ws is not None and ws.mark("skipped", reason):  # (closed while the dialog was up)
            self._after_mark()

    # review: a reviewer's decision on the work shown ------------------------------------------------------
    def _work(self):
        window = self.window
        return (window.project, window.ws) if window.ws.episode is not None else None

    def accept_work(self) -> None:
        found = self._work()
        if found is not None:
            project, ws = found
            self._decide(lambda: api.review_work(project, ws.episode.id, "accept"), "accepted")

    def return_work(self) -> None:
        from desktop_app.ui.team.return_dialog import ReturnDialog

        found = self._work()
        if found is None:
            return
        project, ws = found
        people = api.states(project, [ws.episode.id])[ws.episode.id][1] or "its annotator"
        selected = self.window.selected_ids()
        dialog = ReturnDialog(people, selected[0] if len(selected) == 1 else None, self.last_point, self.window)
        step = ws.step_index
        dialog.accepted.connect(lambda: self._decide(
            lambda: api.review_work(project, ws.episode.id, "return", dialog.text(), step=step, **dialog.pin()),
            "returned"))
        self.return_dialog = dialog
        dialog.open()

    def _decide(self, decide, what: str) -> None:
        try:
            decided = decide()
        except (ValueError, PermissionError, RuntimeError) as exc:  # nothing finished, not theirs, refused
            self.window.status.show_message(f"Not {what}: {exc}", 10000)
            return
        self.window.status.show_message(f"{decided.annotator}'s work {what}.", 6000)
        self.window.ws.reload()
        self.window.browser.refresh()

    # the Team menu --------------------------------------------------------------
    def add_menu(self, menubar) -> None:
        a = self.window.actions_by_id
        menu = menubar.addMenu("&Team")
        for key in ("work.done", "work.skip", "work.reopen"):
            menu.addAction(a[key])
            self._on_project.append(a[key])
        menu.addSeparator()
        for key in ("work.accept", "work.return"):
            menu.addAction(a[key])
            self._by_role[key] = a[key]
        menu.addSeparator()
        self._by_role["people"] = menu.addAction("People…")
        self._by_role["people"].triggered.connect(self.show_members)
        self._by_role["assign"] = menu.addAction("Assign samples…")
        self._by_role["assign"].triggered.connect(self.show_assign)
        progress = menu.addAction("Progress and agreement…")
        progress.triggered.connect(self.show_progress)
        self._by_role["adjudicate"] = menu.addAction("Adjudicate double annotations…")
        self._by_role["adjudicate"].triggered.connect(self.show_adjudication)
        menu.addSeparator()
        self._by_role["password"] = menu.addAction("Change my password…")
        self._by_role["password"].triggered.connect(self.change_password)
        self._on_project.extend(self._by_role.values())
        self._on_project.append(progress)
        self.project_closed()

    def _show(self, name: str, make) -> None:
        """One window of each kind per open project, kept by it (closed with it)."""
        opened = self.window.opened
        widget = opened.beside(name)
        if widget is None:
            widget = make(opened.project, self.window)
            opened.keep_beside(name, widget)
        bring_forward(widget)  # in front, with the keys: Esc closes it (ui/tool_window.py)

    def change_password(self) -> None:
        """A new password for one's own login, kept in this computer's keyring (shown if it cannot be). Asks
        first, without blocking the window."""
        project = self.window.project
        if not project.on_server:  # offered only there (project_opened)
            return
        box = QMessageBox(QMessageBox.Question, "Change my password",
                          f"A new password is made for your login {project.user} and kept in this computer's "
                          "keyring; the old one stops working. Go on?", QMessageBox.Yes | QMessageBox.Cancel,
                          self.window)
        box.button(QMessageBox.Yes).clicked.connect(lambda: self._new_password(project))
        box.finished.connect(lambda _r: setattr(self, "password_box", None))
        self.password_box = box
        box.open()

    def _new_password(self, project) -> None:
        try:
            api.change_password(project)
        except api.PasswordNotKept as exc:
            self._say_box("Change my password", f"{exc}.\n\nYour new password, shown once (note it now):\n"
                                                f"{exc.password}")
            return
        except (ValueError, PermissionError, RuntimeError) as exc:
            self._say_box("Change my password", f"Not changed: {exc}")
            return
        self.window.status.show_message("Your new password is in this computer's keyring.", 8000)

    def _say_box(self, title: str, text: str) -> None:
        box = QMessageBox(QMessageBox.Warning, title, text, QMessageBox.Ok, self.window)
        box.setAttribute(Qt.WA_DeleteOnClose)
        box.setTextInteractionFlags(Qt.TextSelectableByMouse)  # a password shown must be copyable
        box.open()

    def show_members(self) -> None:
        from desktop_app.ui.team.members_dialog import MembersDialog

        self._show("people", MembersDialog)

    def show_assign(self) -> None:
        from desktop_app.ui.team.assign_dialog import AssignDialog

        self._show("assign", AssignDialog)

    def show_progress(self) -> None:
        from desktop_app.ui.team.progress_dialog import ProgressDialog

        self._show("progress", ProgressDialog)

    def show_adjudication(self) -> None:
        from desktop_app.ui.team.adjudication_window import AdjudicationWindow

        self._show("adjudication", AdjudicationWindow)
