"""Pixel-overlay mode (PopupAttack): a generated pop-up drawn onto an existing screenshot.

The pop-up goes into the largest rectangle free of OCR text and annotated boxes, and is
rendered by the browser over the screenshot, so its buttons' boxes are known exactly.
The sample keeps the original step's boxes that the pop-up does not cover.
"""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import numpy as np

from desktop_app.formats.ingest import ImportOptions, ingest
from desktop_app.formats.records import BoxRecord, EpisodeRecord, StepRecord, Where
from desktop_app.render.renderer import Renderer, Viewport
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.synth.bank import load_bank
from desktop_app.synth.llm import LlmSession, SynthError
from desktop_app.synth.llm_scenes import DISTRACTION, POPUP_TEXTS
from desktop_app.synth.save import REVIEW_KIND, dom_boxes
from desktop_app.synth.templates import render_html

CELL = 8  # px: the free-space grid
MIN_REGION = (240, 170)  # smaller than this, a pop-up cannot be read
MAX_POPUP = (460, 320)
MARGIN = 12


def largest_free_rect(width: int, height: int, occupied: list[tuple[float, float, float, float]]) -> tuple:
    """(x, y, w, h) of the largest axis-aligned rectangle touching no occupied box (maximal
    rectangle in a histogram, row by row, on a grid of CELL px)."""
    cols, rows = max(1, width // CELL), max(1, height // CELL)
    grid = np.zeros((rows, cols), dtype=bool)
    for x1, y1, x2, y2 in occupied:
        c1, r1 = max(0, int(x1 // CELL)), max(0, int(y1 // CELL))
        c2, r2 = min(cols, int(np.ceil(x2 / CELL))), min(rows, int(np.ceil(y2 / CELL)))
        grid[r1:r2, c1:c2] = True
    heights = np.zeros(cols, dtype=int)
    best = (0, 0, 0, 0, 0)  # area, col, row, w, h (cells)
    for row in range(rows):
        heights = np.where(grid[row], 0, heights + 1)
        stack: list[int] = []
        for col in range(cols + 1):
            h = heights[col] if col < cols else 0
            while stack and heights[stack[-1]] >= h:
                top = stack.pop()
                left = stack[-1] + 1 if stack else 0
                area = heights[top] * (col - left)
                if area > best[0]:
                    best = (area, left, row - heights[top] + 1, col - left, heights[top])
            stack.append(col)
    _, c, r, w, h = (int(v) for v in best)  # numpy ints would not survive JSON
    return c * CELL, r * CELL, w * CELL, h * CELL


def _place(region: tuple) -> tuple[int, int, int, int]:
    """The pop-up's slot: centred in the free region, at most MAX_POPUP."""
    x, y, w, h = region
    pw, ph = min(w - 2 * MARGIN, MAX_POPUP[0]), min(h - 2 * MARGIN, MAX_POPUP[1])
    return int(x + (w - pw) / 2), int(y + (h - ph) / 2), int(pw), int(ph)


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def overlay_sample(project: Project, episode_id: int, renderer: Renderer, rng: random.Random,
                   session: LlmSession | None = None, words: list | None = None) -> int:
    """A new pending episode: the first step of `episode_id` with a pop-up drawn over it."""
    from desktop_app.ocr.cache import ocr_screen

    with project.reading() as s:
        episode = s.get(m.Episode, episode_id)
        step = s.exec(select(m.Step).where(m.Step.episode_id == episode_id).order_by(m.Step.index)).first()
        screen = s.get(m.Screen, step.screen_id)
        boxes = list(s.exec(select(m.ActionBox).where(m.ActionBox.step_id == step.id)))
    if words is None:
        words = [w.xyxy for w in ocr_screen(project, screen).words]
    occupied = list(words) + [(b.x1, b.y1, b.x2, b.y2) for b in boxes if b.x1 is not None]
    region = largest_free_rect(screen.width, screen.height, occupied)
    if region[2] < MIN_REGION[0] or region[3] < MIN_REGION[1]:
        raise SynthError(f"no region of at least {MIN_REGION[0]}x{MIN_REGION[1]} px free of text on this screen "
                         f"(largest: {region[2]}x{region[3]})")
    calls: list[dict] = []
    if session is not None:
        page = f"a screen where the user wants to: {episode.goal}"
        d = session.ask("distraction.j2", DISTRACTION, calls, page=page, goal=episode.goal, kind="pop-up box")
        distractor = {"Actual purpose": d["actual_purpose"], "Expression": d["expression"]}
        popup = session.ask("popup_two_options.j2", POPUP_TEXTS["two_options"], calls, distractor=distractor,
                            tone="urgent")
    else:
        entry = rng.choice(load_bank()["popup"]["popups"]["two_options"])
        popup, distractor = dict(entry["popup"]), entry["distractor"]
    slot = _place(region)
    src = f"shot.{screen.ext}"
    content = {"shot": {"src": src, "width": screen.width, "height": screen.height},
               "region": {"x": slot[0], "y": slot[1], "width": slot[2], "height": slot[3]}, "popup": popup}
    viewport = Viewport("overlay", screen.width, screen.height)
    rendered = renderer.render(render_html("overlay", content, viewport), viewport,
                               files={src: project.media.read(screen.sha256, screen.ext)})
    popup_boxes = dom_boxes(rendered)
    for b in popup_boxes:
        b.meta["overlay"] = True  # drawn over the screenshot, as opposed to the boxes kept from it
    drawn = [b.box for b in popup_boxes if b.box] + [tuple(slot[:2]) + (slot[0] + slot[2], slot[1] + slot[3])]
    panel = (min(b[0] for b in drawn), min(b[1] for b in drawn), max(b[2] for b in drawn), max(b[3] for b in drawn))
    kept = [BoxRecord(label=b.label, box=(b.x1, b.y1, b.x2, b.y2) if b.x1 is not None else None,
                      element_text=b.element_text, action_type=b.action_type, type_text=b.type_text,
                      source=b.source, author=b.author, meta=dict(b.meta))
            for b in boxes if b.x1 is None or not _overlaps((b.x1, b.y1, b.x2, b.y2), panel)]
    key = f"overlay-{episode.key}-{uuid.uuid4().hex[:8]}"
    generator = session.endpoint.model if session else "offline-bank"
    record = EpisodeRecord(
        key=key, where=Where(Path(key)), goal=episode.goal, scenario="popup", review_status="pending",
        meta={"mode": "overlay", "source_episode": episode.key, "distractor": distractor, "content": content,
              "generator": generator, "region": list(region)},
        steps=[StepRecord(image=Path(f"{key}.png"), image_bytes=rendered.png, boxes=popup_boxes + kept,
                          platform=screen.platform, screen_source=f"overlay:{screen.sha256[:12]}")],
        reviews=[{"kind": REVIEW_KIND, "generator": generator, "prompt": "overlay", "status": "pending",
                  "payload": {"calls": calls, "content": content}}])
    ingest(project, [record], "synth-overlay", f"overlay:{episode.key}", ImportOptions())
    with project.reading() as s:
        return s.exec(select(m.Episode.id).where(m.Episode.key == key)).one()
