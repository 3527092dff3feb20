"""How much of one model answer a project keeps, and when an answer is long enough to read off the event loop.

A model that loops, or a server that echoes a page, can answer megabytes. A run reads the WHOLE answer (the
verdict, the point, the element and every other parsed field come from the full text; a long one is read on a
worker thread: RunContext.read), then stores at most KEPT_CHARS characters of it: the first and the last
HEAD_CHARS, with a marker between them saying how many characters were cut. No cut of the middle can be proven
harmless for every convention (an action object may sit anywhere in a reasoning answer), so nothing is scored
from a cut text at run time. What reads the stored text again later (the authors' rules in
evaluation/rules/envdistraction.py, a probe run's evaluation) reads the kept part and says so in its note.

The response cache keeps only answers it can keep whole (a cut answer returned from the cache would parse
differently from the answer the model gave): a longer one is asked again on a rerun.
"""

from __future__ import annotations

import re

KEPT_CHARS = 65_536  # characters of one answer a project stores (64 Ki: about 16k tokens of ordinary text)
HEAD_CHARS = KEPT_CHARS // 2  # kept from the start, and as many from the end
READ_INLINE_CHARS = KEPT_CHARS  # up to this long, an answer is read on the event loop (well under a millisecond)
_MARKER = "\n[... {cut} characters of this answer cut by ScreenLab ...]\n"
_MARKER_RE = re.compile(r"\n\[\.\.\. (\d+) characters of this answer cut by ScreenLab \.\.\.\]\n")


def cut(text: str) -> str:
    """`text` as a project stores it: whole up to KEPT_CHARS characters, else its first and last HEAD_CHARS with
    the marker between them (the marker holds one number, so no coordinate parser reads a point in it)."""
    if len(text) <= KEPT_CHARS:
        return text
    return text[:HEAD_CHARS] + _MARKER.format(cut=len(text) - 2 * HEAD_CHARS) + text[-HEAD_CHARS:]


def cut_all(value):
    """Every string in a JSON-like value cut (a parse's raw text, element, thought; the calls of a CoT run)."""
    if isinstance(value, str):
        return cut(value)
    if isinstance(value, dict):
        return {k: cut_all(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(cut_all(v) for v in value)
    return value


def characters_cut(stored: str) -> int:
    """How many characters of the answer were cut when it was stored (0: it is whole)."""
    if len(stored) <= KEPT_CHARS:
        return 0
    found = _MARKER_RE.search(stored, HEAD_CHARS, HEAD_CHARS + 200)
    return int(found.group(1)) if found else 0
