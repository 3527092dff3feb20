"""OCR and element proposals: words with boxes, UI element suggestions, box snapping.

No Qt here: the GUI calls these from a worker thread and the CLI calls them directly.
Importing this package loads numpy and OpenCV, no models: engines load theirs when first
asked for (registry.get_engine) and stay loaded for the process.
"""

from desktop_app.ocr.base import OcrEngine, OcrOutcome, OcrUnavailable, Proposal, Word, reading_order
from desktop_app.ocr.elements import propose, text_inside
from desktop_app.ocr.snap import snap, snap_box

__all__ = ["OcrEngine", "OcrOutcome", "OcrUnavailable", "Proposal", "Word", "propose", "reading_order", "snap",
           "snap_box", "text_inside"]
