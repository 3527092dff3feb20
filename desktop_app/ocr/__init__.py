"""OCR and element proposals: words with boxes, UI element suggestions, box snapping.

No Qt here: the GUI calls these from a worker thread and the CLI calls them directly.
Engines load their models when first asked for (registry.get_engine) and keep them for the process.
Nothing is re-exported here: importing one module of the package must not import the others, and the
window imports a few of them (base, screen_reading, cache) before its first screen is painted, without
numpy or OpenCV, which the reading and snapping modules load (ADR 0071).
"""
