"""`screenlab synth`: make N pending samples of a scenario, offline or with an LLM."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from desktop_app.render.renderer import Renderer
from desktop_app.store.project import Project
from desktop_app.synth.bank import offline_scene
from desktop_app.synth.injection import INJECTION_LAYOUT, inject
from desktop_app.synth.llm import EndpointError, LlmEndpoint, LlmSession, SynthError
from desktop_app.synth.llm_scenes import llm_scene
from desktop_app.synth.save import render_scene, save_scene
from desktop_app.synth.scene import INJECTIONS, Scene
from desktop_app.synth.templates import POPUP_LAYOUTS, SCENARIOS


@dataclass
class SynthOptions:
    scenario: str
    count: int = 1
    layout: str | None = None  # popup only
    injection: str = "none"
    viewport: str | None = None  # None: desktop and mobile, two to one
    seed: int | None = None


@dataclass
class SynthReport:
    episode_ids: list[int] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def summary(self) -> str:
        line = (f"generated {len(self.episode_ids)} pending samples"
                + (f", {self.prompt_tokens + self.completion_tokens} tokens" if self.prompt_tokens else ""))
        if self.failures:
            line += f"\n{len(self.failures)} failed:\n  " + "\n  ".join(self.failures[:10])
        return line


def check_options(o: SynthOptions) -> None:
    if o.scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario '{o.scenario}' (one of {', '.join(SCENARIOS)})")
    if o.injection not in INJECTIONS:
        raise ValueError(f"unknown injection '{o.injection}' (one of {', '.join(INJECTIONS)})")
    if o.injection != "none" and (o.scenario != "popup" or o.layout not in (None, INJECTION_LAYOUT)):
        raise ValueError("environment injection needs the popup scenario with the two_options layout")
    if o.layout and (o.scenario != "popup" or o.layout not in POPUP_LAYOUTS):
        raise ValueError(f"--layout is for popups: one of {', '.join(POPUP_LAYOUTS)}")


def make_scene(o: SynthOptions, rng: random.Random, session: LlmSession | None) -> Scene:
    viewport = o.viewport or rng.choice(("desktop", "desktop", "mobile"))
    layout = INJECTION_LAYOUT if o.injection != "none" else o.layout
    scene = (llm_scene(session, o.scenario, rng, viewport, layout) if session
             else offline_scene(o.scenario, rng, viewport, layout))
    return inject(scene, o.injection, rng, session)


def generate(project: Project, options: SynthOptions, renderer: Renderer, endpoint: LlmEndpoint | None = None,
             progress: Callable[[str, int, int], None] | None = None,
             cancel: Callable[[], bool] | None = None) -> SynthReport:
    check_options(options)
    rng = random.Random(options.seed)
    session = LlmSession(endpoint) if endpoint else None
    report = SynthReport()
    for i in range(options.count):
        if cancel and cancel():
            break
        try:
            scene = make_scene(options, rng, session)
        except EndpointError as exc:  # the endpoint is down or hung: the next samples would wait as long
            report.failures.append(str(exc))
            break
        except SynthError as exc:  # a malformed model answer, even after retries: skip and report
            report.failures.append(str(exc))
        else:
            report.episode_ids.append(save_scene(project, scene, render_scene(renderer, scene)))
            report.prompt_tokens += scene.tokens["prompt_tokens"]
            report.completion_tokens += scene.tokens["completion_tokens"]
        if progress:
            progress("generating", i + 1, options.count)
    return report


def regenerate(project: Project, episode_id: int, renderer: Renderer, endpoint: LlmEndpoint | None = None,
               seed: int | None = None) -> int:
    """G in the verification view: a new sample with the same settings; the old one is rejected."""
    from desktop_app.store import models as m
    from desktop_app.store.review import set_review

    with project.reading() as s:
        meta = s.get(m.Episode, episode_id).meta
    options = SynthOptions(meta["scenario"], 1, meta.get("layout") or None, meta.get("injection", "none"),
                           meta.get("viewport"), seed)
    new = generate(project, options, renderer, endpoint)
    if not new.episode_ids:
        raise SynthError("; ".join(new.failures) or "nothing generated")
    set_review(project, episode_id, "rejected", reason="regenerated")
    return new.episode_ids[0]
