"""What the screenshot scripts share: let Qt settle, then save a widget's picture into docs/."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QApplication

DOCS = Path(__file__).resolve().parent


def settle(rounds: int = 10) -> None:
    for _ in range(rounds):
        QApplication.processEvents()


def shoot(widget, name: str) -> None:
    settle()
    out = DOCS / name
    widget.grab().save(str(out))
    print(f"wrote {out}")
