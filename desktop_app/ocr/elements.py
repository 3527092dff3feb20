"""UI element proposals from pixels: buttons, inputs, cards, icons, plus free-standing text.

Screens are flat fills with crisp edges, so the outline of a button or input is a closed
edge loop. We take Canny edges on every colour channel (two fills of equal brightness but
different hue still have an edge), close one-pixel gaps, and keep contours whose bounding
rectangle they fill (rectangles, rounded rectangles, pills and circular icon buttons).
RETR_TREE keeps nested contours: a button inside a card inside a dialog are all candidates.
Each side of a kept rectangle is then moved to the strongest colour step within 2 px,
because Canny may put the edge on either pixel of a step and a 34 px icon button loses 6 %
IoU per pixel.

Words inside an element become its text; OCR lines outside every element become "text"
proposals (links, tabs, menu entries have no border).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop_app.ocr.base import Box, Proposal, Word, reading_order

if TYPE_CHECKING:  # numpy is imported by the functions that use it: a launch paints its first screen without it
    import numpy as np  # (50 ms; ADR 0071)

CANNY_LOW, CANNY_HIGH = 20, 50  # a light-grey input border (#d1d5db on white) must pass
MIN_SIDE = 12  # px; smaller outlines are glyph parts or separators
MIN_FILL = 0.75  # contour area / bounding box area; a circle is 0.785
DUPLICATE_IOU = 0.85
MAX_SHARE_OF_SCREEN = 0.5  # a proposal above half the screen's area is a page, a panel or a backdrop


def box_iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def contains(outer: Box, point: tuple[float, float], tol: float = 0.0) -> bool:
    return outer[0] - tol <= point[0] <= outer[2] + tol and outer[1] - tol <= point[1] <= outer[3] + tol


def text_inside(box: Box, words: list[Word]) -> str:
    """Words whose centre lies inside box, in reading order, joined by spaces."""
    return " ".join(w.text for w in reading_order([w for w in words if contains(box, w.center)]))


def edge_map(image: np.ndarray) -> np.ndarray:
    import cv2  # here, not at the top: the window imports this module long before it snaps a box (20 MB)
    import numpy as np

    edges = np.zeros(image.shape[:2], np.uint8)
    for c in range(image.shape[2]):
        edges |= cv2.Canny(np.ascontiguousarray(image[:, :, c]), CANNY_LOW, CANNY_HIGH, L2gradient=True)
    edges = cv2.morphologyEx(edges, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    # the screen edge closes elements the screenshot cuts off (a card at the bottom, a list
    # row touching the window side)
    edges[0, :] = edges[-1, :] = 255
    edges[:, 0] = edges[:, -1] = 255
    return edges


def _step(image: np.ndarray, axis: int, lo: int, hi: int, span: tuple[int, int]) -> np.ndarray:
    """Colour difference between consecutive rows (axis=0) or columns (axis=1) lo..hi,
    averaged over the middle 30 % of span: corners may be rounded, and the flanks of a pill
    or a round icon button are arcs whose outermost point is the middle."""
    import numpy as np
    a, b = span
    pad = int((b - a) * 0.35)
    a, b = a + pad, max(a + pad + 1, b - pad)
    if axis == 1:
        strip = image[a:b, lo:hi + 1].astype(np.int16)
        d = np.abs(np.diff(strip, axis=1)).max(axis=2).mean(axis=0)
    else:
        strip = image[lo:hi + 1, a:b].astype(np.int16)
        d = np.abs(np.diff(strip, axis=0)).max(axis=2).mean(axis=1)
    return d  # d[i] is the step between lo+i and lo+i+1


def refine_rect(image: np.ndarray, x1: int, y1: int, x2: int, y2: int, reach: int = 2) -> tuple[Box, float]:
    """Move each side to the strongest step within reach px; returns the box (x2/y2 exclusive)
    and the mean strength of the four steps (0..255)."""
    import numpy as np
    h, w = image.shape[:2]
    strengths = []

    def best(axis: int, pos: int, span: tuple[int, int], outward: int) -> int:
        size = w if axis == 1 else h
        lo, hi = max(0, pos - reach - 1), min(size - 1, pos + reach)
        if hi <= lo:
            strengths.append(0.0)
            return pos
        d = _step(image, axis, lo, hi, span)
        # a 2 px outline has two equal steps; the element ends at the outer one
        strong = np.flatnonzero(d >= 0.8 * d.max())
        i = int(strong[0] if outward < 0 else strong[-1])
        strengths.append(float(d[i]))
        return lo + i + 1  # the boundary lies between lo+i and lo+i+1

    nx1 = best(1, x1, (y1, y2), -1)
    nx2 = best(1, x2, (y1, y2), +1)
    ny1 = best(0, y1, (x1, x2), -1)
    ny2 = best(0, y2, (x1, x2), +1)
    if nx2 - nx1 < MIN_SIDE // 2 or ny2 - ny1 < MIN_SIDE // 2:
        return (float(x1), float(y1), float(x2), float(y2)), float(np.mean(strengths))
    return (float(nx1), float(ny1), float(nx2), float(ny2)), float(np.mean(strengths))


def find_rects(image: np.ndarray) -> list[tuple[Box, float]]:
    """Candidate element rectangles with a 0..1 score (fill ratio x edge strength)."""
    import cv2

    h, w = image.shape[:2]
    contours, _ = cv2.findContours(edge_map(image), cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    found: list[tuple[Box, float]] = []
    for contour in contours:
        x, y, cw, ch = cv2.boundingRect(contour)
        if cw < MIN_SIDE or ch < MIN_SIDE or (cw >= w - 2 and ch >= h - 2):
            continue
        fill = cv2.contourArea(contour) / float(cw * ch)
        if fill < MIN_FILL:
            continue
        # the contour runs along edge pixels; the element boundary is the colour step there
        box, strength = refine_rect(image, x, y, x + cw, y + ch)
        # flat UI fills differ by as little as 12 levels (#f0f2f5 on white); count that as clear
        score = min(1.0, fill) * min(1.0, strength / 24.0)
        if score < 0.3:
            continue
        found.append((box, score))
    return _dedupe(found)


def _dedupe(found: list[tuple[Box, float]]) -> list[tuple[Box, float]]:
    kept: list[tuple[Box, float]] = []
    for box, score in sorted(found, key=lambda t: -t[1]):
        if all(box_iou(box, k) < DUPLICATE_IOU for k, _ in kept):
            kept.append((box, score))
    return kept


def classify(image: np.ndarray, box: Box, words: list[Word]) -> str:
    x1, y1, x2, y2 = box
    bw, bh = x2 - x1, y2 - y1
    inside = [w for w in words if contains(box, w.center)]
    text = "".join(w.text for w in inside)
    if max(bw, bh) <= 64 and 0.5 <= bw / bh <= 2.0 and len(text) <= 2:
        return "icon"
    if bh > 90 or (bh > 64 and bw > 90):
        return "card"
    if bw / bh >= 3.0 and bh <= 72 and _looks_like_input(image, box, inside):
        return "input"
    if text:
        return "button"
    return "icon" if max(bw, bh) <= 64 else "card"


def _looks_like_input(image: np.ndarray, box: Box, inside: list[Word]) -> bool:
    """A field: a light interior framed by a border, text (placeholder or value) flush left."""
    import numpy as np
    x1, y1, x2, y2 = (int(v) for v in box)
    inner = image[y1 + 3:y2 - 3, x1 + 3:x2 - 3]
    if inner.size == 0:
        return False
    fill = np.median(inner.reshape(-1, inner.shape[2]), axis=0)
    if fill.mean() < 200:  # dark or saturated fills are buttons
        return False
    if not inside:
        return True
    left = min(w.xyxy[0] for w in inside) - box[0]
    right = box[2] - max(w.xyxy[2] for w in inside)
    return left < right - 0.1 * (box[2] - box[0])  # left-aligned, not centred


def text_lines(words: list[Word]) -> list[tuple[Box, list[Word]]]:
    """Words grouped into phrases: same row, gaps under one text height."""
    lines: list[tuple[Box, list[Word]]] = []
    for w in reading_order(words):
        x1, y1, x2, y2 = w.xyxy
        if lines:
            (lx1, ly1, lx2, ly2), members = lines[-1]
            height = max(y2 - y1, ly2 - ly1)
            same_row = abs((y1 + y2) / 2 - (ly1 + ly2) / 2) < 0.5 * height
            if same_row and 0 <= x1 - lx2 < 1.0 * height:
                lines[-1] = ((lx1, min(ly1, y1), max(lx2, x2), max(ly2, y2)), [*members, w])
                continue
        lines.append(((x1, y1, x2, y2), [w]))
    return lines


def propose(image: np.ndarray, words: list[Word]) -> list[Proposal]:
    """Element proposals for an RGB image, best first within each kind."""
    import numpy as np
    proposals = []
    for box, score in find_rects(image):
        kind = classify(image, box, words)
        proposals.append(Proposal(box, kind, text_inside(box, words), round(score, 3)))
    framed = [p.box for p in proposals if p.kind in ("button", "input", "icon")]
    for box, members in text_lines(words):
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        if any(contains(f, centre) for f in framed):
            continue
        conf = float(np.mean([m.conf for m in members]))
        proposals.append(Proposal(box, "text", " ".join(m.text for m in members), round(conf, 3)))
    limit = MAX_SHARE_OF_SCREEN * image.shape[0] * image.shape[1]  # a page-sized outline is no element
    return [p for p in proposals if (p.box[2] - p.box[0]) * (p.box[3] - p.box[1]) <= limit]


__all__ = ["Proposal", "box_iou", "classify", "contains", "edge_map", "find_rects", "propose", "refine_rect",
           "text_inside", "text_lines"]
