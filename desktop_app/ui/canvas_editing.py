"""What the Edit and Navigate keys do to the boxes of the screen shown: draw or select, label, delete,
nudge, copy, paste, duplicate, snap, move between boxes and steps; and a finished gesture on the canvas
(drawn, moved, resized) becomes a workspace edit. Only wiring: the rules (where a box may go, what the
clipboard may hold, what snapping does) are the core's, applied by the workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QRectF
from PySide6.QtWidgets import QApplication

from desktop_app.api.boxes import boxes_from_clipboard, clipboard_text, labels

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow


class CanvasEditing(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.window = window
        self.scene, self.view = window.scene, window.view
        self.clipboard: list[dict] = []  # the last copy in this window: a paste's fallback (see paste)
        self.scene.boxDrawn.connect(self.box_drawn)
        self.scene.boxesChanged.connect(self.boxes_moved)
        window.ocr.screenRead.connect(self.screen_read)

    @property
    def ws(self):
        return self.window.ws

    def selected_ids(self) -> list[int]:
        """The boxes the user means: those picked in the properties' list (text-only ones included),
        else those selected on the canvas."""
        properties = self.window.properties
        if properties is not None and properties.selected:
            return list(properties.selected)
        return self.scene.selected_ids()

    # modes --------------------------------------------------------------------------------------
    def toggle_draw(self) -> None:
        self.view.set_mode("select" if self.scene.mode == "draw" else "draw")
        self.view.setFocus()
        self.window.status.update_mode()

    def escape(self) -> None:
        if self.scene.mode == "draw":
            self.view.set_mode("select")
        else:
            self.scene.clearSelection()
            if self.scene.suggestions is not None:  # a selected suggestion is a selection too
                self.scene.suggestions.take_selected()
        self.window.status.update_mode()

    # gestures -----------------------------------------------------------------------------------
    def box_drawn(self, rect: QRectF) -> None:
        if self.ws is not None:
            self.ws.add_drawn_box((rect.left(), rect.top(), rect.right(), rect.bottom()), self.scene.next_label,
                                  self.window.ocr.reading(), self.window.settings.snap_on_draw)

    def screen_read(self) -> None:
        """OCR's words of the screen shown are known: boxes drawn on it before then get theirs."""
        if self.ws is not None:
            self.ws.text_arrived(self.window.ocr.reading())

    def boxes_moved(self, changes) -> None:
        if self.ws is None:
            return
        after = {i: {"x1": r.left(), "y1": r.top(), "x2": r.right(), "y2": r.bottom()} for i, _, r in changes}
        verb = "Move" if all(o.size() == r.size() for _, o, r in changes) else "Resize"
        self.ws.change_boxes(after, f"{verb} box{'es' if len(changes) > 1 else ''}")

    # labels -------------------------------------------------------------------------------------
    def set_label(self, label: str) -> None:
        ids = self.selected_ids()
        if ids and self.ws is not None:
            self.ws.change_boxes({i: {"label": label} for i in ids}, f"Label {label}")
        else:
            self.scene.next_label = label
            self.window.status.update_mode()

    def set_own_label(self, number: int) -> None:
        """Keys 4-9: the project's own labels, in the order it added them."""
        own = labels(self.window.project)  # keys 4-9 act only while a project is open
        if number - 1 < len(own):
            self.set_label(own[number - 1])
        else:
            self.window.status.show_message(f"This project has no label no. {number} (Edit > Labels of this "
                                            "project…)", 5000)

    def labels_dialog(self) -> None:
        from desktop_app.ui.labels_dialog import LabelsDialog

        dialog = LabelsDialog(self.window.project, self.window.settings.palette, self.window)
        dialog.changed.connect(self.labels_changed)
        dialog.open()

    def labels_changed(self) -> None:
        self.window.properties.reload_labels()  # the dialog is about the open project
        self.window.properties.refresh_boxes()
        self.scene.set_own_labels(labels(self.window.project)[3:])

    # edits of the selection ------------------------------------------------------------------------
    def delete_selected(self) -> None:
        layer = self.scene.suggestions
        if layer is not None and layer.selected:  # Backspace on suggestions dismisses them
            layer.dismiss_selected()
        elif self.ws is not None:
            self.ws.delete_boxes(self.selected_ids())

    def nudge(self, dx: int, dy: int) -> None:
        if self.ws is not None:
            self.ws.nudge(self.scene.selected_ids(), dx, dy)

    def duplicate_selected(self) -> None:
        if self.ws is not None:
            self.ws.duplicate(self.selected_ids())

    def copy_selected(self) -> None:
        if self.ws is None:
            return
        values = self.ws.copied(self.selected_ids())
        if values:
            self.clipboard = values
            # Plain text, not a Python-made QMimeData: the clipboard outlives the interpreter
            # and deleting a Python-owned QMimeData at process exit crashes PySide6.
            QApplication.clipboard().setText(clipboard_text(values))
            self.window.status.show_message(f"Copied {len(values)} box(es)", 3000)

    def paste(self) -> None:
        """The system clipboard's boxes (from any ScreenLab window), else this window's last copy (another
        program may have replaced the clipboard's text since)."""
        if self.ws is None:
            return
        values = boxes_from_clipboard(QApplication.clipboard().text()) or self.clipboard
        if values:
            self.ws.paste(values)

    def snap_selected(self) -> None:
        if self.ws is None:
            return
        rules = self.ws.snap(self.scene.selected_ids(), self.window.ocr.reading())
        if rules:
            self.window.status.show_message(f"Snapped to: {', '.join(rules)}", 3000)

    # moving around --------------------------------------------------------------------------------
    def cycle_box(self, delta: int) -> None:
        order = self.scene.ordered_ids()
        if not order:
            return
        current = self.scene.selected_ids()
        index = order.index(current[0]) if current and current[0] in order else (-1 if delta > 0 else 0)
        chosen = order[(index + delta) % len(order)]
        self.scene.select_ids([chosen])
        self.view.ensureVisible(self.scene.items_by_id[chosen].rect(), 40, 40)

    def go_step(self, delta: int) -> None:
        ws = self.ws
        if ws is not None and ws.steps:
            index = min(max(ws.step_index + delta, 0), len(ws.steps) - 1)
            if index != ws.step_index:
                ws.load_step(index)
