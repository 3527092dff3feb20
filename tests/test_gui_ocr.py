"""OCR in the window: suggestions appear without blocking, become boxes, snap works."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop_app.settings import Settings

from gui_helpers import click, drag, key
from test_gui_editing import open_window, stored

pytestmark = pytest.mark.gui


def _iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def test_suggestions_become_boxes_and_sloppy_boxes_snap(qtbot, demo_copy):
    window = open_window(qtbot, demo_copy, Settings(annotator="ann", show_suggestions=True))
    layer = window.scene.suggestions
    qtbot.waitUntil(lambda: bool(window.scene.suggestions.items), timeout=30000)  # OCR ran off the UI thread
    assert "rapidocr" in window.ocr_label.text()
    key_ = window.ws.episode.key
    dom = next(b for b in window.ws.boxes.values() if b.element_text == "Send me my code")
    words = [s for s in layer.items if s.kind == "word" and s.text.lower() == "send"]
    assert words, [s.text for s in layer.items][:30]

    # click a word suggestion and press Enter: a box with that text, the current label, source ocr
    word = words[0]
    before = stored(demo_copy, key_)
    click(window.view, (word.box[0] + word.box[2]) / 2, (word.box[1] + word.box[3]) / 2)
    assert layer.selected
    key(window.view, "Return")
    (new_id,) = set(stored(demo_copy, key_)) - set(before)
    new = stored(demo_copy, key_)[new_id]
    assert (new.element_text.lower(), new.source, new.label) == ("send", "ocr", "gold")
    key(window, "Ctrl+Z")
    assert new_id not in stored(demo_copy, key_)

    # Backspace dismisses a suggestion without touching the annotations
    count = len(layer.items)
    click(window.view, (word.box[0] + word.box[2]) / 2, (word.box[1] + word.box[3]) / 2)
    key(window, "Backspace")
    assert len(layer.items) == count - 1 and set(stored(demo_copy, key_)) == set(before)

    # a sloppy box around the button snaps onto it (S), and gets the button's text
    x1, y1, x2, y2 = dom.x1, dom.y1, dom.x2, dom.y2
    key(window, "W")
    drag(window.view, (x1 + 6, y1 - 5), (x2 - 7, y2 + 4))
    key(window, "Esc")
    (drawn_id,) = set(stored(demo_copy, key_)) - set(before)
    assert "send me my code" in stored(demo_copy, key_)[drawn_id].element_text.lower()
    key(window, "S")
    snapped = stored(demo_copy, key_)[drawn_id]
    assert _iou((snapped.x1, snapped.y1, snapped.x2, snapped.y2), (x1, y1, x2, y2)) >= 0.9
    key(window, "Ctrl+Z")  # snapping is undoable like any edit
    back = stored(demo_copy, key_)[drawn_id]
    assert (back.x1, back.y1) == (round(x1 + 6), round(y1 - 5))  # drawn boxes sit on whole pixels

    # the next time this screen opens, its words come from the cache at once
    key(window, "D")
    key(window, "A")
    QApplication.processEvents()
    assert layer is not window.scene.suggestions and window.scene.suggestions.items
    assert "(cached)" in window.ocr_label.text()
    window.close()
