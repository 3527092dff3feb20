"""The box an annotator gets from OCR suggestions: what is offered, and what accepting a selection makes.

OCR reads words, but an agent clicks elements: accepting the word "Sign" must give the "Sign in" button,
not a box on half its label. So a single word grows to the outlined element around it (a button, an input,
an icon) or, with no outline, to its line of text; several suggestions selected together become one box
around them all (the annotator picked the parts of one element), saying each word once. A proposal covering
most of the screen is never offered: clicking an empty spot would select it and Enter would box the whole page.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.ocr.base import Box, Proposal, Word, reading_order
from desktop_app.ocr.elements import MAX_SHARE_OF_SCREEN, contains, text_lines

FRAMED = ("button", "input", "icon")  # outlined elements a word can belong to
MAX_GROWTH = 40.0  # an element at most this many times the word's area: a word inside a card stays itself


@dataclass(frozen=True)
class Piece:
    """One selected suggestion: a word, a line or an element proposal."""

    box: Box
    text: str
    kind: str


def offered(proposals: list[Proposal], width: int, height: int) -> list[Proposal]:
    """The proposals worth showing on a width x height screen."""
    limit = MAX_SHARE_OF_SCREEN * width * height
    return [p for p in proposals if _area(p.box) <= limit]


def box_values(pieces: list[Piece], words: list[Word], elements: list[Proposal]) -> dict | None:
    """The fields of the one box accepting `pieces` makes (x1..y2, element_text, action_type, source), or
    None."""
    if not pieces:
        return None
    if len(pieces) == 1 and pieces[0].kind == "word":
        box, text, kind = _grown(pieces[0], words, elements)
    else:
        box = (min(p.box[0] for p in pieces), min(p.box[1] for p in pieces),
               max(p.box[2] for p in pieces), max(p.box[3] for p in pieces))
        text = " ".join(p.text for p in _in_reading_order(_saying_something(pieces)) if p.text)
        kind = "input" if any(p.kind == "input" for p in pieces) else pieces[0].kind
    # a box from a model's answer says so (desktop_app/prelabel.py), one from the screen's pixels and words is OCR's
    source = "llm" if any(p.kind == "model" for p in pieces) else "ocr"
    return {"x1": float(box[0]), "y1": float(box[1]), "x2": float(box[2]), "y2": float(box[3]),
            "element_text": text, "action_type": "type" if kind == "input" else "click", "source": source}


def _grown(word: Piece, words: list[Word], elements: list[Proposal]) -> tuple[Box, str, str]:
    centre = ((word.box[0] + word.box[2]) / 2, (word.box[1] + word.box[3]) / 2)
    around = [e for e in elements if e.kind in FRAMED and contains(e.box, centre)
              and _area(e.box) <= MAX_GROWTH * max(_area(word.box), 1.0)]
    if around:
        element = min(around, key=lambda e: _area(e.box))
        return element.box, element.text or word.text, element.kind
    for line_box, members in text_lines(words):
        if any(_same(m.xyxy, word.box) for m in members):
            return line_box, " ".join(m.text for m in members), "text"
    return word.box, word.text, word.kind


def _saying_something(pieces: list[Piece]) -> list[Piece]:
    """The pieces whose text is not already said by a bigger piece around them: a word picked together with
    its chat bubble is one of the bubble's words (an element's text is the words inside it), and joining both
    made "Thanks Thanks for following...". A piece stays when the one around it does not name all its words
    (an icon with no text, a model's answer in its own words), and so does a word said by a piece beside it."""
    return [p for i, p in enumerate(pieces)
            if not any(_says(q, p) and (_area(q.box), -j) > (_area(p.box), -i) for j, q in enumerate(pieces) if j != i)]


def _says(outer: Piece, inner: Piece) -> bool:
    """outer holds inner (its centre, the rule an element's text is made by) and names every word of it."""
    centre = ((inner.box[0] + inner.box[2]) / 2, (inner.box[1] + inner.box[3]) / 2)
    words = outer.text.casefold().split()
    return contains(outer.box, centre) and bool(words) and all(w in words for w in inner.text.casefold().split())


def _in_reading_order(pieces: list[Piece]) -> list[Piece]:
    # reading_order works on OCR words: each piece stands in as a word with the same box
    as_words = [(Word(_quad(p.box), p.text, 1.0), p) for p in pieces]
    order = {id(w): i for i, w in enumerate(reading_order([w for w, _ in as_words]))}
    return [p for w, p in sorted(as_words, key=lambda wp: order[id(wp[0])])]


def _quad(box: Box):
    x1, y1, x2, y2 = box
    return ((x1, y1), (x2, y1), (x2, y2), (x1, y2))


def _same(a: Box, b: Box, tol: float = 0.5) -> bool:
    return all(abs(u - v) <= tol for u, v in zip(a, b, strict=True))


def _area(box: Box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])
