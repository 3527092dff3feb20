"""What OCR knows of the screen being edited, and the edits it helps with: snapping boxes to what they
frame, the text a new box holds, the one box accepted suggestions make.

The window keeps the words of the current screen (ui/ocr_assist.py) and edits through the workspace;
the rules live here, without Qt, so a script gets the same boxes from the same words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop_app.ocr.base import OcrOutcome
from desktop_app.ocr.elements import propose, text_inside
from desktop_app.ocr.suggested_box import Piece, box_values

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)

Box = tuple[float, float, float, float]


def _no_pixels() -> np.ndarray | None:
    return None


@dataclass
class ScreenReading:
    """outcome: the screen's OCR (None before it ran: no words, snapping reads the pixels alone);
    pixels: the screen as RGB, read when a snap first needs it (None when it cannot be read)."""

    outcome: OcrOutcome | None = None
    pixels: Callable[[], np.ndarray | None] = field(default=_no_pixels)

    def text_in(self, box: Box) -> str:
        return text_inside(box, self.outcome.words) if self.outcome else ""

    def snap(self, box: Box, others: Iterable[Box] = ()) -> tuple[Box, str]:
        """The box fitted to what it frames (ocr/snap.py) and the rule that did it; `others`: the other
        boxes on the screen, whose padding a sibling may copy. Unchanged ("none") without pixels."""
        # with the first snap: it needs numpy at import, a launch does not
        from desktop_app.ocr.snap import snap

        image = self.pixels()
        if image is None:
            return box, "none"
        words = self.outcome.words if self.outcome else []
        proposals = self.outcome.elements if self.outcome else propose(image, [])
        return snap(image, box, words, proposals, list(others))

    def box_for(self, pieces: list[Piece]) -> dict | None:
        """The one box accepting these suggestions makes: a word grows to its element or line, several
        merge (ocr/suggested_box.py)."""
        words = self.outcome.words if self.outcome else []
        elements = self.outcome.elements if self.outcome else []
        return box_values(pieces, words, elements)


def siblings(boxes: Mapping[int, Any], leave_out: int | None = None) -> list[Box]:
    """The screen's placed boxes as (x1, y1, x2, y2), but one: what a snapped box may take its padding from."""
    return [(b.x1, b.y1, b.x2, b.y2) for i, b in boxes.items() if i != leave_out and b.x1 is not None]


def snapped(boxes: Mapping[int, Any], ids: Iterable[int], reading: ScreenReading) -> tuple[dict[int, dict], list[str]]:
    """Snap these boxes of a screen, each against all the others: box id -> new corners, and the rules
    used (for the status bar). A box with no text also gets the words inside its new corners, as a drawn one
    does (one drawn before OCR had read the screen has none). Text-only boxes and unknown ids are left out."""
    after, rules = {}, set()
    for box_id in ids:
        box = boxes.get(box_id)
        if box is None or box.x1 is None:
            continue
        corners, rule = reading.snap((box.x1, box.y1, box.x2, box.y2), siblings(boxes, box_id))
        rules.add(rule)
        after[box_id] = dict(zip(("x1", "y1", "x2", "y2"), (float(v) for v in corners), strict=True))
        text = "" if box.element_text else reading.text_in(corners)
        if text:
            after[box_id]["element_text"] = text
    return after, sorted(rules)


def missing_texts(boxes: Mapping[int, Any], ids: Iterable[int], reading: ScreenReading) -> dict[int, dict]:
    """OCR's words for these boxes that have no text: box id -> {"element_text": the words inside it}, the
    text drawing the box would have given had OCR already read the screen. Boxes with text, boxes with no
    words inside, text-only boxes and unknown ids are left out."""
    found = {}
    for box_id in ids:
        box = boxes.get(box_id)
        if box is None or box.x1 is None or box.element_text:
            continue
        text = reading.text_in((box.x1, box.y1, box.x2, box.y2))
        if text:
            found[box_id] = {"element_text": text}
    return found


def drawn_box(corners: Box, label: str, reading: ScreenReading, others: Iterable[Box] = (),
              snap_on_draw: bool = False) -> dict:
    """A box the annotator drew: snapped when asked for, and given the OCR words inside it (empty while
    the screen has no OCR yet), a manual click target."""
    if snap_on_draw:
        corners = tuple(float(v) for v in reading.snap(corners, others)[0])
    x1, y1, x2, y2 = corners
    return {"x1": x1, "y1": y1, "x2": x2, "y2": y2, "label": label, "source": "manual", "action_type": "click",
            "element_text": reading.text_in(corners)}


def accepted_box(pieces: list[Piece], label: str, reading: ScreenReading) -> dict | None:
    """The box accepting these suggestions makes, with the label the next box gets; None for nothing."""
    values = reading.box_for(pieces) if pieces else None
    return {**values, "label": label} if values is not None else None
