"""Pixel helpers shared by word refinement, element proposals and snapping.

"Ink" is any pixel that differs clearly from the local background. The background of a
region is the median colour of a one-pixel ring around it: UI regions sit on flat fills, so
the ring is nearly all background even when text touches one side.
"""

from __future__ import annotations

import numpy as np

from desktop_app.ocr.base import Box, Word, char_weight

# max per-channel difference that counts as ink: antialiased glyph edges fade out below it,
# light placeholder grey (#9ca3af on white, diff 99) stays well above it
INK_DIFF = 48


def clip_box(box: Box, width: int, height: int) -> Box:
    x1, y1, x2, y2 = box
    x1, x2 = min(max(0.0, x1), width), min(max(0.0, x2), width)
    y1, y2 = min(max(0.0, y1), height), min(max(0.0, y2), height)
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def int_box(box: Box, width: int, height: int) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = clip_box(box, width, height)
    return int(np.floor(x1)), int(np.floor(y1)), int(np.ceil(x2)), int(np.ceil(y2))


def ring_background(image: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """Median colour of the pixels just outside box (inside the image)."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = box
    parts = []
    if y1 > 0:
        parts.append(image[y1 - 1, x1:x2])
    if y2 < h:
        parts.append(image[y2, x1:x2])
    if x1 > 0:
        parts.append(image[y1:y2, x1 - 1])
    if x2 < w:
        parts.append(image[y1:y2, x2])
    parts = [p for p in parts if p.size]
    if not parts:  # the box is the whole image: use its own border
        parts = [image[0, :], image[-1, :], image[:, 0], image[:, -1]]
    return np.median(np.concatenate(parts).reshape(-1, image.shape[2]), axis=0)


def ink_mask(region: np.ndarray, background: np.ndarray, diff: int = INK_DIFF) -> np.ndarray:
    return np.abs(region.astype(np.int16) - background.astype(np.int16)).max(axis=2) > diff


def glyph_ink(mask: np.ndarray) -> np.ndarray:
    """The ink of a word's region that can be letters: a row or column inked from end to end is the edge of a
    fill the region overhangs (the engine's box for a white word on a green button may begin a pixel above the
    button, where the page shows against the green), not a glyph, which never spans the engine's whole box."""
    rows, cols = mask.all(axis=1), mask.all(axis=0)
    if not rows.any() and not cols.any():
        return mask
    mask = mask.copy()
    mask[rows, :] = False
    mask[:, cols] = False
    return mask


def content_extent(image: np.ndarray, box: Box, diff: int = INK_DIFF, min_pixels: int = 4) -> Box | None:
    """Tight box around the ink inside box, or None when there is (almost) none."""
    h, w = image.shape[:2]
    x1, y1, x2, y2 = int_box(box, w, h)
    if x2 - x1 < 1 or y2 - y1 < 1:
        return None
    mask = ink_mask(image[y1:y2, x1:x2], ring_background(image, (x1, y1, x2, y2)), diff)
    if mask.sum() < min_pixels:
        return None
    rows, cols = np.where(mask.any(axis=1))[0], np.where(mask.any(axis=0))[0]
    return (float(x1 + cols[0]), float(y1 + rows[0]), float(x1 + cols[-1] + 1), float(y1 + rows[-1] + 1))


def _runs(flags: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of the True runs."""
    padded = np.concatenate([[False], flags, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))


# A gap between ink runs wider than this share of the engine's box height separates two words.
# Measured on our rendered screens: inside a word the widest gap is < 0.27 of the DOM text
# height in 99 % of words, between words it is > 0.28 in 95 %; OCR boxes are ~1.3x taller.
WORD_GAP = 0.24


def refine_words(image: np.ndarray, words: list[Word]) -> list[Word]:
    """Fit axis-aligned OCR word boxes to their ink, and split words the recogniser glued.

    Engines place word boxes from recogniser timing (rapidocr) or proportionally (easyocr),
    a few pixels off horizontally. Here each box's left/right edges move to the outer ink of
    the glyphs (ink runs) whose middle lies in the box, so a cut-off glyph is included and a
    neighbour's glyph is not, and the top/bottom to the font's text box estimated from the
    ink (fit_heights). When the ink of one word
    has a space-sized gap ("★★★★☆4.5" read without its space) the text is cut at the
    character boundary nearest to the gap. Slanted words are left alone.
    """
    if image.ndim != 3 or not words:
        return list(words)
    out: list[Word] = []
    h, w = image.shape[:2]
    for word in words:
        if word.kind != "word" or not _axis_aligned(word):
            out.append(word)
            continue
        out.extend(_refine_one(image, word, w, h))
    return fit_heights(image, out)


def _axis_aligned(word: Word) -> bool:
    (tlx, tly), (trx, try_), (brx, bry), (blx, bly) = word.quad
    return abs(tly - try_) <= 2 and abs(bly - bry) <= 2 and abs(tlx - blx) <= 2 and abs(trx - brx) <= 2


def _refine_one(image: np.ndarray, word: Word, w: int, h: int) -> list[Word]:
    bx1, by1, bx2, by2 = word.xyxy
    bh = by2 - by1
    if bh < 4 or bx2 - bx1 < 2:
        return [word]
    margin = 0.3 * bh
    x1, y1, x2, y2 = int_box((bx1 - margin, by1, bx2 + margin, by2), w, h)
    mask = glyph_ink(ink_mask(image[y1:y2, x1:x2], ring_background(image, (x1, y1, x2, y2))))
    cols = mask.any(axis=0)
    if not cols.any():
        return [word]
    ox1, ox2 = bx1 - x1, bx2 - x1
    # glyphs (ink runs) whose middle lies in the engine's box belong to the word; the box
    # edges are only a few px off, less than half a glyph
    runs = [(s, e) for s, e in _runs(cols) if ox1 <= (s + e) / 2 <= ox2]
    if not runs:
        return [word]
    gaps = sorted(s - e for (_, e), (s, _) in zip(runs, runs[1:], strict=False))
    # a word gap must also stand out from the letter gaps of this word: spaced-out glyphs
    # (star ratings, letter-spaced capitals) have wide but regular gaps
    typical = gaps[len(gaps) // 2] if gaps else 0
    gap = max(2, WORD_GAP * bh, 1.5 * typical + 1)
    kept: list[list[int]] = []
    for s, e in runs:
        if kept and s - kept[-1][1] < gap:
            kept[-1][1] = e
        else:
            kept.append([s, e])
    left, right = x1 + kept[0][0], x1 + kept[-1][1]
    if len(kept) == 1 or len(word.text) < 2:
        return [Word.from_xyxy((float(left), by1, float(right), by2), word.text, word.conf)]
    pieces = _cut_text(word.text, [(x1 + s, x1 + e) for s, e in kept])
    if pieces is None:
        return [Word.from_xyxy((float(left), by1, float(right), by2), word.text, word.conf)]
    return [Word.from_xyxy((float(s), by1, float(e), by2), t, word.conf) for t, (s, e) in pieces]


def _cut_text(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, tuple[int, int]]] | None:
    """Assign the characters of text to ink spans by estimated widths; None when ambiguous."""
    n = len(text)
    if len(spans) > n:
        return None
    line = Word.from_xyxy((spans[0][0], 0, spans[-1][1], 1), text)
    # character boundary positions, from the same width table as proportional splitting
    bounds = _char_bounds(line)
    cuts = []
    for (_, e), (s, _) in zip(spans, spans[1:], strict=False):
        mid = (e + s) / 2
        k = int(np.argmin([abs(b - mid) for b in bounds[1:-1]])) + 1
        if cuts and k <= cuts[-1]:
            return None
        cuts.append(k)
    parts = [text[a:b] for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
    if any(not p.strip() for p in parts):
        return None
    return list(zip(parts, spans, strict=True))


def _char_bounds(line: Word) -> list[float]:
    x1, _, x2, _ = line.xyxy
    weights = np.array([char_weight(c) for c in line.text])
    cum = np.concatenate([[0.0], np.cumsum(weights) / weights.sum()])
    return [x1 + (x2 - x1) * float(c) for c in cum]


# Vertical metrics of a typical UI sans-serif, in em (DejaVu Sans / Verdana / Arial are all
# within a few hundredths): cap and ascender height, x-height, descender depth, and the
# ascent/descent of the font's text box, which is what a browser highlights for a word.
CAP, XHEIGHT, DESC = 0.73, 0.55, 0.23
ASCENT, DESCENT = 0.93, 0.24
_TALL = set("bdfhijklt!?$%&()[]{}|/\\@#'\"★☆")
_DEEP = set("gjpqy,;()[]{}|@$")


def fit_heights(image: np.ndarray, words: list[Word]) -> list[Word]:
    """Give each line of Latin words the height of the font's text box.

    Detectors return line boxes grown by a margin that depends on the model and the image
    scale, so their heights say little. The ink does: its top is the cap/ascender line (or
    the x-height when the line has no tall letter) and its bottom the baseline (or the
    descender line). From that and the letters present we get the em size and baseline,
    then the text box [baseline - 0.93 em, baseline + 0.24 em]. Lines with other scripts,
    or where the estimate is implausible, keep their boxes.
    """
    h, w = image.shape[:2]
    out = list(words)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, word in enumerate(words):
        if word.kind == "word" and _axis_aligned(word):
            x1, y1, x2, y2 = word.xyxy
            groups.setdefault((round(y1), round(y2)), []).append(i)
    for (gy1, gy2), members in groups.items():
        text = "".join(words[i].text for i in members)
        if gy2 - gy1 < 6 or not all(c.isascii() or c in "★☆€£·" for c in text):
            continue
        gx1 = min(words[i].xyxy[0] for i in members)
        gx2 = max(words[i].xyxy[2] for i in members)
        box = int_box((gx1, gy1, gx2, gy2), w, h)
        mask = glyph_ink(ink_mask(image[box[1]:box[3], box[0]:box[2]], ring_background(image, box)))
        rows = np.flatnonzero(mask.any(axis=1))
        if rows.size == 0:
            continue
        top, bottom = box[1] + rows[0], box[1] + rows[-1] + 1
        tall = any(c.isupper() or c.isdigit() or c in _TALL for c in text)
        deep = any(c in _DEEP for c in text)
        em = (bottom - top) / ((CAP if tall else XHEIGHT) + (DESC if deep else 0.0))
        baseline = bottom - (DESC * em if deep else 0.0)
        ny1, ny2 = baseline - ASCENT * em, baseline + DESCENT * em
        if not (0.5 * (gy2 - gy1) <= ny2 - ny1 <= 1.5 * (gy2 - gy1)):
            continue
        for i in members:
            x1, _, x2, _ = words[i].xyxy
            out[i] = Word.from_xyxy((x1, max(0.0, ny1), x2, min(float(h), ny2)), words[i].text, words[i].conf)
    return out


__all__ = ["INK_DIFF", "clip_box", "content_extent", "fit_heights", "glyph_ink", "ink_mask", "int_box",
           "refine_words", "ring_background"]
