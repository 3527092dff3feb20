"""Text shown to a reviewer exactly as stored: the characters that change how text looks without being
seen (bidirectional overrides, zero-width characters, other control characters) are written out as
⟨U+202E⟩, so "SUBMIT" spelled backwards by an RTL override does not read as SUBMIT. The window shows
such text as plain text (never as markup)."""

from __future__ import annotations

import unicodedata

_KEEP = {"\n", "\t"}


def visible(text: str) -> str:
    out = []
    for ch in str(text):
        if ch not in _KEEP and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn"):
            out.append(f"⟨U+{ord(ch):04X}⟩")
        else:
            out.append(ch)
    return "".join(out)
