"""How many requests and tokens a run will take, before it starts (the Run dialog shows this).

A rough, documented estimate, meant for "is this 10 cents or 100 dollars":

* requests: one per sample (step); the `cot` pattern makes two (list the elements, then act);
  offline baselines make none.
* image tokens per image, OpenAI's published rule for GPT-4o-class models: `low` detail is 85;
  `high` and `auto` scale the image to fit 2048x2048, then its short side to 768, and cost
  85 + 170 per 512-px tile. Other servers (Qwen-VL, UI-TARS on vLLM) count differently; the
  order of magnitude holds.
* text tokens: characters / 4 of the real prompt (the convention's instruction and the
  pattern's template, rendered once) plus the average goal; a cot second call also carries the
  element list (~COT_LIST_TOKENS).
* completion tokens: ACT_COMPLETION per action answer (a JSON action is ~30-80 tokens; reasoning
  models write more) and COT_LIST_TOKENS per element list, each capped by the profile's max_tokens.
* answers already in the response cache (a repeated run: runs/engine.cached_answers) cost no request and
  no token: only the others are counted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy import func, select

from desktop_app.agents.profiles import AgentProfile
from desktop_app.store import models as m
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter

CHARS_PER_TOKEN = 4
ACT_COMPLETION = 80
COT_LIST_TOKENS = 300


@dataclass
class Selection:
    """What a filter selects, counted in the database (no images loaded)."""

    episodes: int = 0
    steps: int = 0
    sizes: tuple[tuple[int, int, int], ...] = ()  # (width, height, steps with that screen size)
    goal_chars: float = 0.0  # average goal length


@dataclass
class Estimate:
    runs: int = 0
    samples: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # from the profiles' prices; 0 when none are set
    asked_samples: int = 0  # samples a model answers (offline baselines ask nobody)
    cached: int = 0  # of those, answered from the response cache: no request

    def add(self, other: Estimate) -> None:
        self.runs += other.runs
        self.samples += other.samples
        self.asked_samples += other.asked_samples
        self.cached += other.cached
        self.requests += other.requests
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost += other.cost


def count_selection(project: Project, flt: EpisodeFilter) -> Selection:
    where = flt.where()
    with project.reading() as s:
        episodes = s.execute(select(func.count()).select_from(m.Episode).where(*where)).scalar_one()
        goal = s.execute(select(func.avg(func.length(m.Episode.goal))).where(*where)).scalar() or 0.0
        sizes = s.execute(
            select(m.Screen.width, m.Screen.height, func.count(m.Step.id))
            .join(m.Step, m.Step.screen_id == m.Screen.id).join(m.Episode, m.Episode.id == m.Step.episode_id)
            .where(*where).group_by(m.Screen.width, m.Screen.height)).all()
    return Selection(episodes, sum(n for _, _, n in sizes), tuple((w, h, n) for w, h, n in sizes), float(goal))


def image_tokens(width: int, height: int, detail: str = "auto") -> int:
    if detail == "low":
        return 85
    w, h = max(width, 1), max(height, 1)
    scale = min(1.0, 2048 / max(w, h))
    w, h = w * scale, h * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


@lru_cache(maxsize=64)
def prompt_text_tokens(convention: str, pattern: str) -> tuple[int, int]:
    """(text tokens of the action call without the goal, of the cot listing call), from the templates."""
    from desktop_app.agents.conventions import CONVENTIONS
    from desktop_app.agents.prompts import Sample, action_messages, listing_messages

    sample = Sample(0, 0, "", "", "", "", 1, 1, b"", choices=["an element"] * 6)
    instruction = CONVENTIONS[convention].instruction if convention in CONVENTIONS else ""

    def text_chars(messages: list[dict]) -> int:
        total = 0
        for message in messages:
            content = message["content"]
            parts = [content] if isinstance(content, str) else [c.get("text", "") for c in content]
            total += sum(len(p) for p in parts if isinstance(p, str))
        return total

    act = text_chars(action_messages(sample, pattern, instruction))
    listing = text_chars(listing_messages(sample)) if pattern == "cot" else 0
    return act // CHARS_PER_TOKEN, listing // CHARS_PER_TOKEN


def estimate_run(profile: AgentProfile, selection: Selection, cached: int = 0) -> Estimate:
    """`cached`: how many of the samples the response cache answers (runs/engine.cached_answers)."""
    est = Estimate(runs=1, samples=selection.steps)
    if profile.kind != "openai":
        return est  # offline baselines ask nobody
    est.asked_samples = selection.steps
    est.cached = min(max(cached, 0), selection.steps)
    asked = selection.steps - est.cached
    share = asked / selection.steps if selection.steps else 0.0  # the screens asked: the uncached share
    calls = 2 if profile.pattern == "cot" else 1
    est.requests = asked * calls
    images = sum(image_tokens(w, h, profile.image_detail) * n for w, h, n in selection.sizes)
    act_text, list_text = prompt_text_tokens(profile.convention, profile.pattern)
    goal = int(selection.goal_chars / CHARS_PER_TOKEN)
    list_out = min(COT_LIST_TOKENS, profile.max_tokens) if calls == 2 else 0
    per_sample_text = act_text + goal + (list_text + list_out if calls == 2 else 0)
    est.prompt_tokens = round(images * calls * share) + per_sample_text * asked
    est.completion_tokens = (min(ACT_COMPLETION, profile.max_tokens) + list_out) * asked
    est.cost = (est.prompt_tokens * profile.price_in_per_mtok + est.completion_tokens * profile.price_out_per_mtok) / 1e6
    return est


def human_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1e6:.1f}M"
    if n >= 10_000:
        return f"{n / 1e3:.0f}k"
    if n >= 1_000:
        return f"{n / 1e3:.1f}k"
    return str(n)
