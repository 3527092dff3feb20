"""The user guide in the Python API: where its built pages are (desktop_app/guide.py, ADR 0032)."""

from __future__ import annotations

from pathlib import Path

from desktop_app.guide import NOT_BUILT, guide_index

__all__ = ["guide_path"]


def guide_path() -> Path:
    """The built user guide's front page (`index.html`), to open in a browser; it works offline.

    Raises FileNotFoundError saying how to build it (`make guide`) when no built guide is found: an
    installer and a wheel built after `make guide` carry it, a checkout has it in build/guide/.
    """
    index = guide_index()
    if index is None:
        raise FileNotFoundError(NOT_BUILT)
    return index
