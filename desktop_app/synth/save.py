"""Storing a rendered scene as a pending episode, and re-rendering one after a text edit."""

from __future__ import annotations

import uuid
from pathlib import Path

from desktop_app.formats.ingest import ImportOptions, ingest
from desktop_app.formats.records import BoxRecord, EpisodeRecord, StepRecord, Where
from desktop_app.render.renderer import VIEWPORTS, Rendered, Renderer
from desktop_app.store import audit
from desktop_app.store import models as m
from desktop_app.store.orm import select
from desktop_app.store.project import Project
from desktop_app.store.types import utcnow
from desktop_app.synth.scene import Scene
from desktop_app.synth.templates import render_html

REVIEW_KIND = "distraction_screen"


def dom_boxes(rendered: Rendered, field: str = "") -> list[BoxRecord]:
    boxes = []
    for el in rendered.elements:
        meta = {"role": el.role} if el.role else {}
        if el.box is None:
            meta["out_of_screen"] = True
        if el.covered:
            meta["covered"] = True
        boxes.append(BoxRecord(label=el.label, box=el.box, element_text=el.text, action_type=el.action,
                               source="dom", author="screenlab-synth", meta=meta, field=field))
    return boxes


def render_scene(renderer: Renderer, scene: Scene) -> Rendered:
    viewport = VIEWPORTS[scene.viewport]
    return renderer.render(render_html(scene.scenario, scene.content, viewport), viewport)


def save_scene(project: Project, scene: Scene, rendered: Rendered, key: str | None = None,
               review_status: str = "pending") -> int:
    """One generated sample: a pending episode with its DOM boxes and a review item with provenance."""
    key = key or f"synth-{scene.scenario}-{uuid.uuid4().hex[:10]}"
    prompt_names = sorted({c["template"] for c in scene.calls})
    record = EpisodeRecord(
        key=key, where=Where(Path(key)), goal=scene.goal, scenario=scene.scenario, review_status=review_status,
        meta=scene.as_meta(),
        steps=[StepRecord(image=Path(f"{key}.png"), image_bytes=rendered.png, boxes=dom_boxes(rendered),
                          platform="web", screen_source=f"synth:{scene.generator}",
                          screen_meta={"viewport": scene.viewport})],
        reviews=[{"kind": REVIEW_KIND, "generator": scene.generator, "prompt": ", ".join(prompt_names) or "bank",
                  "status": review_status,
                  "payload": {"calls": scene.calls, "tokens": scene.tokens, "content": scene.content,
                              "injection": scene.injection}}],
    )
    ingest(project, [record], "synth", f"synth:{scene.generator}", ImportOptions())
    with project.reading() as s:
        return s.exec(select(m.Episode.id).where(m.Episode.key == key)).one()


def rerender_episode(project: Project, episode_id: int, content: dict, renderer: Renderer,
                     actor: str | None = None) -> None:
    """After a text edit: render the new content, store the new screenshot and replace the step's
    boxes with the ones read from the new page. One transaction; audited."""
    with project.reading() as s:
        episode = s.get(m.Episode, episode_id)
        step = s.exec(select(m.Step).where(m.Step.episode_id == episode_id).order_by(m.Step.index)).first()
    scene = Scene(**{k: v for k, v in episode.meta.items() if k in Scene.__dataclass_fields__})
    scene.content = content
    rendered = render_scene(renderer, scene)
    from desktop_app.images import inspect_bytes

    info = inspect_bytes(rendered.png)
    project.media.put(info.sha256, info.ext, info.data)
    now = utcnow()
    with project.transaction() as s:
        screen = s.exec(select(m.Screen).where(m.Screen.sha256 == info.sha256)).first()
        if screen is None:
            screen = m.Screen(sha256=info.sha256, ext=info.ext, width=info.width, height=info.height,
                              platform="web", source="synth:rerender", meta={"viewport": scene.viewport})
            s.add(screen)
            s.flush()
        old = s.exec(select(m.ActionBox).where(m.ActionBox.step_id == step.id)).all()
        for box in old:
            s.delete(box)
        for b in dom_boxes(rendered):
            x1, y1, x2, y2 = b.box if b.box else (None,) * 4
            s.add(m.ActionBox(step_id=step.id, x1=x1, y1=y1, x2=x2, y2=y2, label=b.label, action_type=b.action_type,
                              element_text=b.element_text, source="dom", author=project.actor(actor),
                              meta=b.meta))
        db_step = s.get(m.Step, step.id)
        db_step.screen_id = screen.id
        s.add(db_step)
        db_episode = s.get(m.Episode, episode_id)
        before = db_episode.meta.get("content")
        db_episode.meta = {**db_episode.meta, "content": content}
        db_episode.updated_at = now
        db_episode.version += 1
        s.add(db_episode)
        audit.record(s, "rerender", "episode", episode_id, {"before": before, "after": content}, actor)
