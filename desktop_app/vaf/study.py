"""A study: one page, one target, its variants stored as episodes of kind "variant".

A variant episode (key `vaf/<study>/<variant>`) holds two steps: the full page (step 0, the click map's
picture) and the first viewport (step 1, what a trial sees first). Further viewports are added by
browsing trials as they scroll there (viewport_step), so a second trial at the same place reuses them.
Every step carries the items as boxes: the target labelled gold, the other items other, so the canvas,
the review queue and the click map show them. Variants wait for verification (review item kind
`page_variant`): the annotator rejects those that break the page. The original is the page as it was
saved, accepted as is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError

from desktop_app.formats.ingest import ImportOptions, ingest
from desktop_app.formats.records import BoxRecord, EpisodeRecord, StepRecord, Where
from desktop_app.images import inspect_bytes
from desktop_app.render.renderer import Renderer
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.vaf.pages import PageError, PageSpec, load_page
from desktop_app.vaf.patch import PatchError, patch_for
from desktop_app.vaf.render import SCROLL_STEP, VIEWPORT, VariantShot, render_variant
from desktop_app.vaf.settings import ORIGINAL, ORIGINAL_SETTING, Setting, check

KIND = "variant"
REVIEW_KIND = "page_variant"
REJECT_REASONS = ("breaks the page's layout", "target hidden or cut off", "text unreadable", "no visible change",
                  "other")
SOURCE = "vaf"


@dataclass
class StudyReport:
    study: str
    added: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # already in the project: left as they are (verdicts kept)
    failed: dict[str, str] = field(default_factory=dict)  # variant -> why it could not be made
    warnings: dict[str, list[str]] = field(default_factory=dict)
    blocked: list[str] = field(default_factory=list)  # outside requests the page made (none reached the network)

    def lines(self) -> list[str]:
        out = [f"{self.study}: {len(self.added)} variants added, {len(self.kept)} already there"]
        out += [f"  {name}: not made: {why}" for name, why in self.failed.items()]
        out += [f"  {name}: {w}" for name, ws in self.warnings.items() for w in ws]
        if self.blocked:
            out.append(f"  {len(self.blocked)} outside requests blocked (rendered offline), e.g. {self.blocked[0]}")
        return out


def variant_key(study: str, setting: Setting) -> str:
    return f"vaf/{study}/{setting.name}"


def goal_of(spec: PageSpec) -> str:
    return f"Find the best {spec.category} on this {spec.page_type}."


def item_boxes(shot: VariantShot, spec: PageSpec, top: float = 0.0, height: float | None = None) -> list[BoxRecord]:
    """The items as boxes, in the coordinates of a picture starting at page y = top (clipped to it)."""
    boxes = []
    for item in shot.items:
        if item.box is None:
            continue
        x1, y1, x2, y2 = item.box
        y1, y2 = y1 - top, y2 - top
        if height is not None:
            y1, y2 = max(0.0, y1), min(float(height), y2)
        x1, x2 = max(0.0, x1), min(float(shot.width), x2)
        if x2 - x1 < 1 or y2 - y1 < 1:
            continue
        text = spec.target_name if item.target and spec.target_name else item.text
        boxes.append(BoxRecord(label="gold" if item.target else "other", box=(x1, y1, x2, y2),
                               element_text=text[:300], source="dom", author="screenlab-vaf",
                               meta={"item": item.index, **({"target": True} if item.target else {})}))
    return boxes


def _record(spec: PageSpec, setting: Setting, shot: VariantShot) -> EpisodeRecord:
    key = variant_key(spec.name, setting)
    original = setting.family == ORIGINAL
    meta = {"vaf": {"page": spec.to_json(), "family": setting.family, "value": setting.value,
                    "setting": setting.name, "height": shot.height, "width": shot.width,
                    "target": list(shot.target) if shot.target else None, "style": shot.style,
                    "items": [{"index": i.index, "box": list(i.box) if i.box else None, "text": i.text[:300],
                               "target": i.target} for i in shot.items],
                    "warnings": shot.warnings, "blocked": shot.blocked}}
    status = "accepted" if original else "pending"
    first_height = VIEWPORT.height
    steps = [
        StepRecord(image=Path(f"{key}.jpg"), image_bytes=shot.full_jpeg, boxes=item_boxes(shot, spec),
                   platform="web", screen_source=SOURCE, screen_meta={"view": "page"}, meta={"view": "page"}),
        StepRecord(image=Path(f"{key}@0.png"), image_bytes=shot.first_png,
                   boxes=item_boxes(shot, spec, 0, first_height), platform="web", screen_source=SOURCE,
                   screen_meta={"view": "viewport", "scroll_y": 0}, meta={"view": "viewport", "scroll_y": 0}),
    ]
    review = {"kind": REVIEW_KIND, "generator": "screenlab-vaf", "prompt": "", "status": status,
              "payload": {"setting": setting.name, "warnings": shot.warnings, "style": shot.style}}
    return EpisodeRecord(key=key, where=Where(Path(key)), goal=goal_of(spec), scenario=spec.name,
                         review_status=status, meta=meta, steps=steps, reviews=[review], kind=KIND)


def generate_study(project: Project, renderer: Renderer, spec: PageSpec, settings: list[Setting],
                   progress: Callable[[int, int, str], None] | None = None,
                   cancel: threading.Event | None = None) -> StudyReport:
    """Render the original and every setting, then store the new ones in one import (all or nothing).

    The original must render with its target (else PageError: the selector no longer matches, say);
    a setting the page cannot take (no sidebar to move into) is reported and left out."""
    check([x for x in settings if x.family != ORIGINAL])  # a value goes into the page's CSS: only well-formed ones
    spec = replace(spec, sha256=load_page(spec.source).sha256)
    report = StudyReport(spec.name)
    with project.reading() as s:
        rows = s.execute(select(m.Episode.key, m.Episode.meta).where(m.Episode.kind == KIND,
                                                                     m.Episode.scenario == spec.name)).all()
    existing = {key for key, _ in rows}
    if rows:
        stored = ((rows[0][1] or {}).get("vaf") or {}).get("page") or {"name": "", "source": "", "target": ""}
        before = PageSpec.from_json(stored)
        if (before.source, before.target, before.items, before.sha256) != (spec.source, spec.target, spec.items,
                                                                            spec.sha256):
            raise PageError(f"a study named {spec.name!r} already holds variants of another page or target "
                            f"({before.source}, {before.target}); give this one another name")
    todo = [ORIGINAL_SETTING] + [x for x in settings if x.family != ORIGINAL]
    records, original = [], None
    for i, setting in enumerate(todo):
        if cancel is not None and cancel.is_set():
            break
        if progress:
            progress(i, len(todo), setting.name)
        if variant_key(spec.name, setting) in existing:
            report.kept.append(setting.name)
            continue
        try:
            shot = render_variant(renderer, spec, setting)
        except (PageError, PatchError) as exc:
            if setting.family == ORIGINAL:
                raise
            report.failed[setting.name] = str(exc).split(": ", 1)[-1]
            continue
        if setting.family == ORIGINAL:
            if shot.target is None:
                raise PageError(f"{spec.name}: the target {spec.target} is on the page but not visible")
            original = shot
        elif original is not None and not patch_for(setting).move and shot.style == original.style:
            shot.warnings.append("the target looks as in the original (it already has this style)")
        elif original is not None and patch_for(setting).move and shot.target == original.target:
            shot.warnings.append("the target did not move (it is already where this setting puts it)")
        report.blocked = sorted(set(report.blocked) | set(shot.blocked))
        if shot.warnings:
            report.warnings[setting.name] = shot.warnings
        records.append(_record(spec, setting, shot))
        report.added.append(setting.name)
    if records and not (cancel is not None and cancel.is_set()):
        ingest(project, records, SOURCE, f"vaf:{spec.source}", ImportOptions())
    elif cancel is not None and cancel.is_set():
        report.added.clear()
    if progress:
        progress(len(todo), len(todo), "")
    return report


# -- reading a study back ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Variant:
    episode_id: int
    key: str
    study: str
    setting: str
    family: str
    value: str
    review_status: str
    height: int
    target: tuple[float, float, float, float] | None
    items: tuple[dict, ...]
    page: PageSpec
    warnings: tuple[str, ...] = ()

    @property
    def as_setting(self) -> Setting:
        return Setting(self.family, self.value)


def _variant(episode_id: int, key: str, status: str, meta: dict) -> Variant:
    v = (meta or {}).get("vaf") or {}
    return Variant(episode_id, key, v.get("page", {}).get("name", ""), v.get("setting", ""), v.get("family", ""),
                   v.get("value", ""), status, int(v.get("height") or 0),
                   tuple(v["target"]) if v.get("target") else None, tuple(v.get("items") or ()),
                   PageSpec.from_json(v.get("page") or {"name": "", "source": "", "target": ""}),
                   tuple(v.get("warnings") or ()))


def variants(project: Project, study: str | None = None, ids: list[int] | None = None) -> list[Variant]:
    """The variants of a study (all studies when None), the original first, then in table order."""
    q = select(m.Episode.id, m.Episode.key, m.Episode.review_status, m.Episode.meta).where(m.Episode.kind == KIND)
    if study is not None:
        q = q.where(m.Episode.scenario == study)
    if ids is not None:
        q = q.where(m.Episode.id.in_(ids))
    with project.reading() as s:
        rows = s.execute(q.order_by(m.Episode.id)).all()
    found = [_variant(*r) for r in rows]
    return sorted(found, key=lambda v: (v.study, v.family != ORIGINAL))


def studies(project: Project) -> dict[str, dict[str, int]]:
    """Per study, its variants by review status."""
    with project.reading() as s:
        rows = s.execute(select(m.Episode.scenario, m.Episode.review_status, func.count())
                         .where(m.Episode.kind == KIND).group_by(m.Episode.scenario, m.Episode.review_status)).all()
    out: dict[str, dict[str, int]] = {}
    for study, status, n in rows:
        out.setdefault(study, {})[status] = n
    return out


def step_of(project: Project, episode_id: int, view: str, scroll_y: int | None = None) -> tuple[int, int] | None:
    """(step id, screen id) of a variant's full page ("page") or of a viewport at a scroll position."""
    with project.reading() as s:
        rows = s.execute(select(m.Step.id, m.Step.screen_id, m.Step.meta).where(m.Step.episode_id == episode_id)
                         .order_by(m.Step.index)).all()
    for step_id, screen_id, meta in rows:
        meta = meta or {}
        if meta.get("view") == view and (scroll_y is None or meta.get("scroll_y") == scroll_y):
            return step_id, screen_id
    return None


def add_viewport(project: Project, episode_id: int, scroll_y: int, png: bytes, shot: VariantShot,
                 spec: PageSpec) -> tuple[int, int]:
    """Store a viewport a trial scrolled to as a new step of the variant (or return the one stored
    meanwhile); (step id, screen id)."""
    info = inspect_bytes(png)
    project.media.put(info.sha256, info.ext, info.data)
    try:
        return _store_viewport(project, episode_id, scroll_y, info, shot, spec)
    except (IntegrityError, OperationalError):  # another run stored the same viewport at the same moment
        found = step_of(project, episode_id, "viewport", scroll_y)
        if found is None:
            raise
        return found


def _store_viewport(project: Project, episode_id: int, scroll_y: int, info, shot: VariantShot,
                    spec: PageSpec) -> tuple[int, int]:
    with project.transaction() as s:
        # looked up inside the write: another run browsing the same variant may have stored it meanwhile
        for step_id, screen_id, meta in s.execute(select(m.Step.id, m.Step.screen_id, m.Step.meta)
                                                  .where(m.Step.episode_id == episode_id)):
            if (meta or {}).get("view") == "viewport" and (meta or {}).get("scroll_y") == scroll_y:
                return step_id, screen_id
        screen = s.execute(select(m.Screen).where(m.Screen.sha256 == info.sha256)).scalars().first()
        if screen is None:
            screen = m.Screen(sha256=info.sha256, ext=info.ext, width=info.width, height=info.height, platform="web",
                              source=SOURCE, meta={"view": "viewport", "scroll_y": scroll_y})
            s.add(screen)
            s.flush()
        index = s.execute(select(func.max(m.Step.index)).where(m.Step.episode_id == episode_id)).scalar_one() or 0
        step = m.Step(episode_id=episode_id, index=index + 1, screen_id=screen.id,
                      meta={"view": "viewport", "scroll_y": scroll_y})
        s.add(step)
        s.flush()
        for b in item_boxes(shot, spec, scroll_y, VIEWPORT.height):
            x1, y1, x2, y2 = b.box
            s.add(m.ActionBox(step_id=step.id, x1=x1, y1=y1, x2=x2, y2=y2, label=b.label, action_type="click",
                              element_text=b.element_text, source="dom", author="screenlab-vaf", meta=b.meta))
        return step.id, screen.id


def scroll_positions(height: int) -> list[int]:
    """Every scroll offset a trial can reach: down from the top in SCROLL_STEP, clamped at the bottom,
    and up again from the bottom (which need not fall on the same grid)."""
    bottom = max(0, height - VIEWPORT.height)
    down = {min(k * SCROLL_STEP, bottom) for k in range(bottom // SCROLL_STEP + 2)}
    up = {max(0, bottom - k * SCROLL_STEP) for k in range(bottom // SCROLL_STEP + 2)}
    return sorted(down | up)


def variant_id(project: Project, variant: int | str) -> int:
    """A variant by episode id or key (vaf/<study>/<setting>); KeyError when there is none."""
    q = select(m.Episode.id).where(m.Episode.kind == KIND)
    q = q.where(m.Episode.id == variant) if isinstance(variant, int) else q.where(m.Episode.key == variant)
    with project.reading() as s:
        found = s.execute(q).scalar_one_or_none()
    if found is None:
        raise KeyError(f"no page variant {variant!r} (keys look like vaf/<study>/<setting>)")
    return found


def verify_variant(project: Project, variant: int | str, decision: str, reason: str = "",
                   reviewer: str | None = None) -> str:
    """accept / reject a variant (the paper's human filter); a rejection needs a reason. Returns the status."""
    from desktop_app.store.review import set_review

    if decision not in ("accept", "reject"):
        raise ValueError(f"decide accept or reject, not {decision!r}")
    if decision == "reject" and not reason.strip():
        raise ValueError(f"say why the variant is rejected (e.g. {REJECT_REASONS[0]})")
    status = "accepted" if decision == "accept" else "rejected"
    set_review(project, variant_id(project, variant), status, reviewer, reason.strip())
    return status


def viewport_items(project: Project, step_id: int) -> list[dict]:
    """The items on a stored screen of a variant: {"index", "box", "target"} in that screen's pixels."""
    with project.reading() as s:
        rows = s.execute(select(m.ActionBox.x1, m.ActionBox.y1, m.ActionBox.x2, m.ActionBox.y2, m.ActionBox.meta)
                         .where(m.ActionBox.step_id == step_id)).all()
    return [{"index": (meta or {}).get("item"), "box": [x1, y1, x2, y2], "target": bool((meta or {}).get("target"))}
            for x1, y1, x2, y2, meta in rows if (meta or {}).get("item") is not None and x1 is not None]
