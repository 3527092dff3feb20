"""Team > People…: the lead's list of the project's people on the server, each a login with a role; add a
person (their new password shown once, or kept in this computer's keyring), change a role, take someone
out, reset a lost password. Only wiring over desktop_app.api (teams/members.py): the server enforces who
may do this."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
)

from desktop_app import api
from desktop_app.api.projects import Project
from desktop_app.api.teams import ROLES
from desktop_app.teams.members import member_url
from desktop_app.ui.team.common import ERROR_COLOUR, LEFT, item, table

HEADERS = ("Login", "Role")


class AddPersonDialog(QDialog):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Add a person")
        self.login = QLineEdit(placeholderText="their login, e.g. ana")
        self.role = QComboBox()
        for role in ROLES:
            self.role.addItem(role, role)
        self.role.setCurrentIndex(ROLES.index("annotator"))
        self.keyring = QCheckBox("Keep the password in this computer's keyring (they log in here)")
        form = QFormLayout(self)
        form.addRow("Login", self.login)
        form.addRow("Role", self.role)
        form.addRow(self.keyring)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.button(QDialogButtonBox.Ok).setText("Add")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)


class MembersDialog(QDialog):
    def __init__(self, project: Project, parent=None):
        super().__init__(parent)
        self.project = project
        self.setWindowTitle(f"People of {project.name}")
        self.table = table(HEADERS, stretch=0)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.password = QLineEdit()
        self.password.setReadOnly(True)
        self.password.setPlaceholderText("a new password appears here once")
        copy = QPushButton("Copy")
        copy.clicked.connect(lambda: QApplication.clipboard().setText(self.password.text()))
        self.add_button = QPushButton("Add a person…")
        self.role = QComboBox()
        for role in ROLES:
            self.role.addItem(f"Make {role}", role)
        self.role_button = QPushButton("Change role")
        self.remove_button = QPushButton("Take out of the team")
        self.reset_button = QPushButton("Reset password")
        self.add_button.clicked.connect(self.add)
        self.role_button.clicked.connect(self.change_role)
        self.remove_button.clicked.connect(self.remove)
        self.reset_button.clicked.connect(self.reset)
        actions = QHBoxLayout()
        for widget in (self.add_button, self.role, self.role_button, self.remove_button, self.reset_button):
            actions.addWidget(widget)
        actions.addStretch(1)
        shown = QHBoxLayout()
        shown.addWidget(QLabel("Password:"))
        shown.addWidget(self.password, 1)
        shown.addWidget(copy)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Each person opens the project with their own login; the server enforces what "
                                "their role may see and change."))
        layout.addWidget(self.table, 1)
        layout.addLayout(actions)
        layout.addLayout(shown)
        layout.addWidget(self.status)
        self.add_dialog: AddPersonDialog | None = None
        self.resize(640, 420)
        self.refresh()

    def refresh(self) -> None:
        people = api.members(self.project)
        self.table.setRowCount(len(people))
        for row, person in enumerate(people):
            self.table.setItem(row, 0, item(person.login, LEFT))
            self.table.setItem(row, 1, item(person.role, LEFT))

    def _chosen(self) -> str | None:
        row = self.table.currentRow()
        cell = self.table.item(row, 0) if row >= 0 else None
        return cell.text() if cell is not None else None

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {ERROR_COLOUR}" if error else "")
        self.status.setText(text)

    def _do(self, work) -> None:
        try:
            work()
        except (ValueError, PermissionError) as exc:  # what the lead typed, or what the server refused
            self._say(str(exc), error=True)
        self.refresh()

    def add(self) -> None:
        dialog = AddPersonDialog(self)
        dialog.accepted.connect(lambda: self._add(dialog.login.text().strip(), dialog.role.currentData(),
                                                  dialog.keyring.isChecked()))
        self.add_dialog = dialog
        dialog.open()

    def _add(self, login: str, role: str, keyring: bool) -> None:
        def work():
            added = api.add_member(self.project, login, role, keyring=keyring)
            self._hand_over(login, added.password, keyring, f"{login} is now {role}.")
        self._do(work)

    def _hand_over(self, login: str, password: str | None, keyring: bool, head: str) -> None:
        self.password.setText(password if password and not keyring else "")
        if password is None:
            tail = "They already had a login on this server: their password is unchanged."
        elif keyring:
            tail = "Their password is in this computer's keyring."
        else:
            tail = "Hand them the password above (shown this once)."
        self._say(f"{head} {tail} They open: {member_url(self.project, login)}")

    def change_role(self) -> None:
        login = self._chosen()
        if login:
            self._do(lambda: (api.set_member_role(self.project, login, self.role.currentData()),
                              self._say(f"{login} is now {self.role.currentData()} (from their next login).")))

    def remove(self) -> None:
        login = self._chosen()
        if login:
            self._do(lambda: self._say(f"{login} is out of the team; their work stays." if
                                       api.remove_member(self.project, login) else f"{login} was not in the team."))

    def reset(self) -> None:
        login = self._chosen()
        if login:
            self._do(lambda: self._hand_over(login, api.reset_password(self.project, login), False,
                                             f"{login} has a new password."))
