"""Settings: annotator, theme, label palette, OCR, keyboard shortcuts, LLM endpoint and browser."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_app.settings import Settings
from desktop_app.ui.llm_settings import KeyStoreError, LlmSettingsPage
from desktop_app.ui.palette import PALETTE_NAMES
from desktop_app.ui.shortcuts import ACTIONS, WHERE, WINDOW_KEYS, conflicts, keys_for
from desktop_app.ui.theme import THEMES


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.resize(620, 560)
        self.settings = settings

        general = QWidget()
        form = QFormLayout(general)
        self.annotator = QLineEdit(settings.annotator)
        self.annotator.setPlaceholderText("your name, written into a local project's audit trail")
        self.annotator.setToolTip("Who you are in projects on this computer (SQLite). On a server you are the "
                                  "login you open the project with; this name is not used there.")
        self.theme = QComboBox()
        for theme in THEMES:
            self.theme.addItem({"system": "Follow the system"}.get(theme, theme.capitalize()), theme)
        self.theme.setCurrentIndex(max(self.theme.findData(settings.theme), 0))
        self.palette = QComboBox()
        for key, name in PALETTE_NAMES.items():
            self.palette.addItem(name, key)
        self.palette.setCurrentIndex(max(self.palette.findData(settings.palette), 0))
        self.box_captions = QComboBox()
        for key, name in (("always", "Always"), ("hover", "On hover and selection only"), ("never", "Never")):
            self.box_captions.addItem(name, key)
        self.box_captions.setCurrentIndex(max(self.box_captions.findData(settings.box_captions), 0))
        form.addRow("Annotator", self.annotator)
        form.addRow("Theme", self.theme)
        form.addRow("Label colours", self.palette)
        form.addRow("Box captions", self.box_captions)
        self.ambiguous_problems = QComboBox()
        self.ambiguous_problems.addItem("Warn, then let me accept", "warn")
        self.ambiguous_problems.addItem("Refuse to accept", "block")
        self.ambiguous_problems.setToolTip("An ambiguous task whose checklist is empty, or whose removed detail "
                                           "no question asks for")
        self.ambiguous_problems.setCurrentIndex(max(self.ambiguous_problems.findData(settings.ambiguous_problems),
                                                    0))
        form.addRow("Ambiguous task with problems", self.ambiguous_problems)

        keys = QWidget()
        self.table = QTableWidget(len(ACTIONS), 3)
        self.table.setHorizontalHeaderLabels(["Group", "Action", "Shortcut"])
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.Stretch)
        self.editors: dict[str, QKeySequenceEdit] = {}
        for row, spec in enumerate(ACTIONS):
            for column, text in enumerate((spec.group, spec.text)):
                item = QTableWidgetItem(text)
                item.setFlags(Qt.ItemIsEnabled)
                self.table.setItem(row, column, item)
            bound = keys_for(spec.id, settings.shortcuts)
            editor = QKeySequenceEdit(QKeySequence(bound[0] if bound else ""))
            editor.setMaximumSequenceLength(1)  # one key combination, no chords
            editor.setClearButtonEnabled(True)
            if len(bound) > 1:
                editor.setToolTip("Also: " + ", ".join(bound[1:]) + " (until you change this binding)")
            editor.keySequenceChanged.connect(self._check)
            self.editors[spec.id] = editor
            self.table.setCellWidget(row, 2, editor)
        self.warning = QLabel()
        self.warning.setStyleSheet("color: #d9534f")
        reset = QPushButton("Reset all to defaults")
        reset.clicked.connect(self._reset)
        layout = QVBoxLayout(keys)
        layout.addWidget(self.table)
        layout.addWidget(self.warning)
        layout.addWidget(reset, 0, Qt.AlignLeft)

        ocr = QWidget()
        form = QFormLayout(ocr)
        from desktop_app.ocr.registry import status

        self.ocr_engine = QComboBox()
        for name, (ok, reason) in status(settings.ocr_language).items():
            self.ocr_engine.addItem(name if ok else f"{name} (unavailable)", name)
            self.ocr_engine.setItemData(self.ocr_engine.count() - 1, reason, Qt.ToolTipRole)
        self.ocr_engine.setCurrentIndex(max(self.ocr_engine.findData(settings.ocr_engine), 0))
        self.ocr_language = QLineEdit(settings.ocr_language)
        self.easyocr_dir = QLineEdit(settings.easyocr_model_dir)
        self.easyocr_dir.setPlaceholderText("folder with EasyOCR's .pth model files")
        self.allow_downloads = QCheckBox("Allow OCR engines to download model files")
        self.allow_downloads.setChecked(settings.allow_downloads)
        self.snap_on_draw = QCheckBox("Snap a new box to the element under it")
        self.snap_on_draw.setChecked(settings.snap_on_draw)
        self.ocr_reason = QLabel()
        self.ocr_reason.setWordWrap(True)
        self.ocr_reason.setStyleSheet("color: gray")
        self.ocr_engine.currentIndexChanged.connect(
            lambda _=0: self.ocr_reason.setText(self.ocr_engine.currentData(Qt.ToolTipRole) or ""))
        self.ocr_reason.setText(self.ocr_engine.currentData(Qt.ToolTipRole) or "")
        form.addRow("Engine", self.ocr_engine)
        form.addRow("", self.ocr_reason)
        form.addRow("Language", self.ocr_language)
        form.addRow("EasyOCR models", self.easyocr_dir)
        form.addRow(self.allow_downloads)
        form.addRow(self.snap_on_draw)

        self.llm = LlmSettingsPage(settings)
        tabs = QTabWidget()
        tabs.addTab(general, "General")
        tabs.addTab(ocr, "OCR")
        tabs.addTab(keys, "Keyboard")
        tabs.addTab(self.llm, "LLM && browser")
        self.tabs = tabs
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        outer = QVBoxLayout(self)
        outer.addWidget(tabs)
        outer.addWidget(self.buttons)

    def _bindings(self) -> dict[str, str]:
        """Only changed bindings are stored; an untouched action keeps all its default keys."""
        out = {}
        for spec in ACTIONS:
            text = self.editors[spec.id].keySequence().toString(QKeySequence.PortableText)
            if text != (spec.keys[0] if spec.keys else ""):
                out[spec.id] = text
        return out

    def _check(self) -> None:
        clash = conflicts(self._bindings())
        self.warning.setText("; ".join(f"{k} is bound to {len(v)} actions" for k, v in clash.items()))
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(not clash)

    def _reset(self) -> None:
        for spec in ACTIONS:
            self.editors[spec.id].setKeySequence(QKeySequence(spec.keys[0] if spec.keys else ""))

    def accept(self) -> None:
        # the typed API key goes to the OS keyring first: when that fails the dialog stays open
        try:
            self.llm.apply_to(self.settings)
        except KeyStoreError as exc:
            QMessageBox.warning(self, "API key not stored", str(exc))
            return
        super().accept()

    def apply_to(self, settings: Settings) -> None:
        self.llm.apply_to(settings)
        settings.annotator = self.annotator.text().strip()
        settings.theme = self.theme.currentData()
        settings.palette = self.palette.currentData()
        settings.box_captions = self.box_captions.currentData()
        settings.shortcuts = self._bindings()
        settings.ocr_engine = self.ocr_engine.currentData()
        settings.ocr_language = self.ocr_language.text().strip() or "en"
        settings.easyocr_model_dir = self.easyocr_dir.text().strip()
        settings.allow_downloads = self.allow_downloads.isChecked()
        settings.snap_on_draw = self.snap_on_draw.isChecked()
        settings.ambiguous_problems = self.ambiguous_problems.currentData()


class ShortcutsDialog(QDialog):
    """Help > Keyboard shortcuts: every key of the table (ui/shortcuts.py) under the window it acts in: the main
    window's bindings in force, then each tool window's and page's fixed keys, with a search over actions,
    groups, windows and keys (type "undo", "ctrl+z", "review" or "adjudication")."""

    def __init__(self, overrides: dict[str, str], parent=None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.resize(600, 620)
        sections = [("Main window (rebind its keys in Settings)", [(s.group, s) for s in ACTIONS])]
        for group in dict.fromkeys(s.group for s in WINDOW_KEYS):
            sections.append((f"{group}: {WHERE[group]}", [("", s) for s in WINDOW_KEYS if s.group == group]))
        table = QTableWidget(sum(len(rows) + 1 for _, rows in sections), 3)
        table.setHorizontalHeaderLabels(["Group", "Action", "Keys"])
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(1, QHeaderView.Stretch)
        self.headings: dict[int, str] = {}  # row -> the window's heading
        self.window_of: dict[int, str] = {}  # an action's row -> the heading it is under
        row = 0
        for heading, rows in sections:
            self.headings[row] = heading
            item = QTableWidgetItem(heading)
            font = item.font()
            font.setBold(True)
            item.setFont(font)
            table.setItem(row, 0, item)
            for column in (1, 2):  # spanned over; empty so every row reads alike
                table.setItem(row, column, QTableWidgetItem(""))
            table.setSpan(row, 0, 1, 3)
            row += 1
            for group, spec in rows:
                keys = keys_for(spec.id, overrides) if spec.mode != "window" else spec.keys
                for column, text in enumerate((group, spec.text, "  or  ".join(keys))):
                    table.setItem(row, column, QTableWidgetItem(text))
                table.item(row, 1).setToolTip(spec.text)
                self.window_of[row] = heading
                row += 1
        table.setEditTriggers(QTableWidget.NoEditTriggers)
        table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeToContents)  # "Ctrl++  or  Ctrl+=" whole
        # a long action wraps onto more lines, measured again as the columns take their widths
        table.horizontalHeader().geometriesChanged.connect(table.resizeRowsToContents)
        table.horizontalHeader().sectionResized.connect(lambda *_: table.resizeRowsToContents())
        self.table = table
        self.search = QLineEdit(placeholderText="Search actions, windows or keys…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        hint = QLabel("Also: mouse wheel zooms, Space+drag or the middle button pans, "
                      "drag a box to move it, drag its handles to resize. Rebind keys in Settings.")
        hint.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(table)
        layout.addWidget(hint)
        layout.addWidget(buttons)

    def _filter(self, text: str) -> None:
        """A key typed as a key ("Ctrl+Z", "Y") finds the actions bound to it; words find the actions whose
        window, group, name or keys have words starting with each of them ("acc sam" finds Accept sample).
        A window's heading shows while one of its actions does."""
        query = text.strip().lower()
        as_key = "+" in query or 0 < len(query) <= 2
        words = query.split()
        shown_under: set[str] = set()
        for row, heading in self.window_of.items():
            keys = [k.strip().lower() for k in self.table.item(row, 2).text().split("  or  ")]
            if as_key:
                hit = query in keys
            else:
                cells = [self.table.item(row, c).text() for c in range(3)] + [heading]
                tokens = " ".join(cells).lower().replace("+", " ").split()
                hit = all(any(t.startswith(w) for t in tokens) for w in words)
            self.table.setRowHidden(row, not hit)
            if hit:
                shown_under.add(heading)
        for row, heading in self.headings.items():
            self.table.setRowHidden(row, heading not in shown_under)

    def visible_actions(self) -> list[str]:
        return [self.table.item(r, 1).text() for r in self.window_of if not self.table.isRowHidden(r)]

    def visible_windows(self) -> list[str]:
        """The headings shown: the windows whose actions the search found."""
        return [h for r, h in self.headings.items() if not self.table.isRowHidden(r)]
