"""What the Edit and Navigate keys do to the boxes of the screen shown: draw or select, set the role or the
class (keys 4-9, the class picker), delete,
nudge, copy, paste, duplicate, snap, move between boxes and steps; and a finished gesture on the canvas
(drawn, moved, resized) becomes a workspace edit. Only wiring: the rules (where a box may go, what the
clipboard may hold, what snapping does) are the core's, applied by the workspace."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPoint, QRectF
from PySide6.QtWidgets import QApplication

from desktop_app.api.boxes import boxes_from_clipboard, classes, clipboard_text
from desktop_app.ui.shortcuts import key_name

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

    # roles and classes ------------------------------------------------------------------------------
    def set_label(self, label: str) -> None:
        """Keys 1-3: the selected boxes' role; with none selected, the role of the next box drawn."""
        ids = self.selected_ids()
        if ids and self.ws is not None:
            self.ws.change_boxes({i: {"label": label} for i in ids}, f"Label {label}")
        else:
            self.scene.next_label = label
            self.window.status.update_mode()

    def set_class(self, name: str) -> None:
        """The selected boxes' class ("" clears it), one undoable edit."""
        ids = self.selected_ids()
        if not ids or self.ws is None:
            self.window.status.show_message("Select a box first: the class is set on the selected boxes", 5000)
            return
        self.ws.change_boxes({i: {"category": name} for i in ids}, f"Class {name}" if name else "Clear class")
        self.window.status.show_message(f"Class: {name}" if name else "No class", 3000)

    def set_class_number(self, number: int) -> None:
        """Keys 4-9: the project's 1st to 6th class, in the order it added them."""
        vocabulary = classes(self.window.project)  # keys 4-9 act only while a project is open
        if number - 1 < len(vocabulary):
            self.set_class(vocabulary[number - 1])
        else:
            have = f"has {len(vocabulary)} class{'es' if len(vocabulary) != 1 else ''}" if vocabulary \
                else "has no class yet"
            self.window.status.show_message(f"This project {have}, no class no. {number}: Edit > Classes of "
                                            "this project… adds them", 6000)

    def pick_class(self) -> None:
        """The class picker over the canvas, for the selected boxes (ui/class_picker.py)."""
        ids = self.selected_ids()
        vocabulary = classes(self.window.project)
        if not vocabulary:
            self.window.status.show_message("This project has no class yet: Edit > Classes of this project… "
                                            "adds them", 6000)
            return
        if not ids or self.ws is None:
            self.window.status.show_message(f"Select a box first, then {key_name('label.class')} for its class",
                                            5000)
            return
        picker = self.picker()
        first = self.ws.boxes.get(ids[0])
        picker.open_with(vocabulary, first.category if first is not None else "", self._picker_anchor(ids))

    def picker(self):
        if getattr(self, "_picker", None) is None:
            from desktop_app.ui.class_picker import ClassPicker

            self._picker = ClassPicker(self.view)
            self._picker.chosen.connect(self.set_class)
            self._picker.closed.connect(self.view.setFocus)  # the keys go back to the canvas
        return self._picker

    def _picker_anchor(self, ids: list[int]):
        """Just below the first selected box on screen (the picker keeps inside the canvas by itself), so the
        box stays in sight; None (the canvas's top) for a box with no place on the screen."""
        item = self.scene.items_by_id.get(ids[0])
        if item is None:
            return None
        rect = self.view.mapFromScene(item.rect()).boundingRect()
        return rect.bottomLeft() + QPoint(0, 12)

    def classes_dialog(self) -> None:
        from desktop_app.ui.classes_dialog import ClassesDialog

        dialog = ClassesDialog(self.window.project, self.window)
        dialog.changed.connect(self.classes_changed)
        dialog.open()

    def classes_changed(self) -> None:
        """The dialog is about the open project: its class lists follow."""
        self.window.properties.reload_classes()
        self.window.properties.refresh_boxes()
        self.window.browser.reload_classes()

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
