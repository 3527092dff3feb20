"""Agent kinds: how an answer is obtained for a sample. A registry, not an if-chain.

`openai` asks any OpenAI-compatible server; `random`, `center` and `ocr-match` are
offline reference rows that answer in the point-px convention.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable

from desktop_app.agents.client import RateLimiter, Reply, chat
from desktop_app.agents.conventions import CONVENTIONS
from desktop_app.agents.draws import UNIT_DRAW, draws
from desktop_app.agents.profiles import AgentProfile
from desktop_app.agents.prompts import Sample, action_messages, listing_messages, parse_element_list


class Answer:
    """The final reply plus what produced it (both calls of a CoT run, cache hits)."""

    def __init__(self, reply: Reply, calls: list[dict], cached: bool = False):
        self.reply = reply
        self.calls = calls  # per call: {"purpose", "prompt_tokens", "completion_tokens", "text"?}
        self.cached = cached


class OpenAIAgent:
    def __init__(self, profile: AgentProfile, client, limiter: RateLimiter, cache, allow_ask: bool = False, **_):
        self.profile = profile
        self.client = client
        self.limiter = limiter
        self.cache = cache  # ResponseCache-like: get(key_parts) / put(key_parts, reply)
        self.allow_ask = allow_ask
        convention = CONVENTIONS[profile.convention]
        # asking is offered only in ambiguous-task runs, in the syntax of the model's family
        self.instruction = convention.instruction + (f"\n{convention.ask_instruction}" if allow_ask else "")

    async def _call(self, messages: list[dict], sample: Sample, purpose: str) -> tuple[Reply, bool]:
        return await self.call(messages, [sample.sha256])

    async def call(self, messages: list[dict], sha256s: list[str],
                   sampling: dict | None = None) -> tuple[Reply, bool]:
        """One request (cached by model, messages, images and parameters); (reply, from the cache).
        sampling: a protocol's own temperature / top_p, and a "draw" that tells repeated samples of the
        same messages apart in the cache (trial 7 of a variant is not trial 6's answer again)."""
        p = self.profile
        sampling = sampling or {}
        temperature = sampling.get("temperature", p.temperature)
        top_p = sampling.get("top_p")
        key = self._key(messages, sha256s, sampling)
        hit = await asyncio.to_thread(self.cache.get, key)  # database work stays off the event loop
        if hit is not None:
            return hit, True
        reply = await chat(self.client, p.model, messages, temperature=temperature, max_tokens=p.max_tokens,
                           extra_body=p.extra_body, timeout_s=p.timeout_s, max_retries=p.max_retries,
                           limiter=self.limiter, estimated_tokens=p.max_tokens + 1500, top_p=top_p)
        await asyncio.to_thread(self.cache.put, key, p.model, reply)
        return reply, False

    def _key(self, messages: list[dict], sha256s: list[str], sampling: dict | None = None) -> str:
        """The cache key of one request: everything that decides its answer. A sampling request's answer
        is a draw, so its key names the draw too (agents/draws.py): the protocol's own, else the unit's
        the run engine is working on. A deterministic request's key is its prompt alone, as it always was."""
        p = self.profile
        sampling = sampling or {}
        params = {"temperature": sampling.get("temperature", p.temperature), "max_tokens": p.max_tokens,
                  "extra_body": p.extra_body, "base_url": p.base_url}
        params.update({k: sampling[k] for k in ("top_p",) if k in sampling})
        if self.samples(sampling):  # a deterministic answer is the same whichever trial asks: no draw
            draw = sampling.get("draw", UNIT_DRAW.get())
            if draw is not None:
                params["draw"] = draw
        return self.cache.key(p.model, messages, sha256s, params)

    def samples(self, sampling: dict | None = None) -> bool:
        """Whether this profile's requests (at a protocol's temperature / top_p, when it sets them) draw."""
        sampling = sampling or {}
        top_p = sampling.get("top_p", (self.profile.extra_body or {}).get("top_p"))
        return draws(sampling.get("temperature", self.profile.temperature), top_p)

    def cached_samples(self, samples: list[Sample]) -> set[int]:
        """The step ids of the samples act() would answer from the cache alone, asking nobody (a run's
        estimate). The images are keyed by their hash: the samples need no image bytes. A sampling profile's
        answers are draws of the run that asks them (agents/draws.py): a new run has none cached."""
        p = self.profile
        if self.samples():
            return set()
        elements: dict[int, list[str] | None] = {s.step_id: None for s in samples}
        if p.pattern == "cot":  # the second call's prompt holds the first call's answer
            keys = {s.step_id: self._key(listing_messages(s, p.image_detail), [s.sha256]) for s in samples}
            listed = self.cache.get_many(list(keys.values()))
            elements = {i: parse_element_list(listed[k].text) for i, k in keys.items() if k in listed}
        keys = {s.step_id: self._key(action_messages(s, p.pattern, self.instruction, p.image_detail,
                                                     elements[s.step_id], self.allow_ask), [s.sha256])
                for s in samples if s.step_id in elements}
        found = self.cache.get_many(list(keys.values()))
        return {i for i, k in keys.items() if k in found}

    async def act(self, sample: Sample) -> Answer:
        p = self.profile
        calls, elements, all_cached = [], None, True
        if p.pattern == "cot":
            listing, cached = await self._call(listing_messages(sample, p.image_detail), sample, "list")
            elements = parse_element_list(listing.text)
            all_cached &= cached
            calls.append({"purpose": "list_elements", "text": listing.text, "prompt_tokens": listing.prompt_tokens,
                          "completion_tokens": listing.completion_tokens, "cached": cached})
        messages = action_messages(sample, p.pattern, self.instruction, p.image_detail, elements, self.allow_ask)
        reply, cached = await self._call(messages, sample, "act")
        all_cached &= cached
        calls.append({"purpose": "act", "prompt_tokens": reply.prompt_tokens,
                      "completion_tokens": reply.completion_tokens, "cached": cached})
        if len(calls) > 1:  # the run's token count covers both calls
            reply = Reply(reply.text, sum(c["prompt_tokens"] or 0 for c in calls),
                          sum(c["completion_tokens"] or 0 for c in calls), reply.latency_ms, reply.attempts,
                          reply.finish_reason)
        return Answer(reply, calls, all_cached)


def _point_reply(x: float, y: float, why: str) -> Answer:
    text = json.dumps({"action_type": "click", "point": [round(x, 1), round(y, 1)], "why": why})
    return Answer(Reply(text, None, None, 0.0, 1), [], False)


class RandomAgent:
    """A uniformly random click; seeded by the step so a rerun gives the same points."""

    def __init__(self, profile: AgentProfile, **_):
        self.profile = profile

    async def act(self, sample: Sample) -> Answer:
        rng = random.Random(f"{sample.step_id}:{sample.sha256}")
        return _point_reply(rng.uniform(0, sample.width), rng.uniform(0, sample.height), "random")


class CenterAgent:
    def __init__(self, profile: AgentProfile, **_):
        self.profile = profile

    async def act(self, sample: Sample) -> Answer:
        return _point_reply(sample.width / 2, sample.height / 2, "centre of the screen")


class OcrMatchAgent:
    """Clicks the OCR word or line whose text best matches the goal (token F1)."""

    def __init__(self, profile: AgentProfile, ocr_lookup: Callable[[Sample], list] | None = None, **_):
        self.profile = profile
        self.ocr_lookup = ocr_lookup

    async def act(self, sample: Sample) -> Answer:
        from desktop_app.textmatch import token_f1

        # OCR takes about 0.75 s of CPU on a fresh screen (benchmarks/ocr.py): keep it off the event loop
        words = await asyncio.to_thread(self.ocr_lookup, sample) if self.ocr_lookup else []
        best, best_score = None, 0.0
        for text, box in words:
            score = token_f1(text, sample.goal)
            if score > best_score:
                best, best_score = box, score
        if best is None:
            return _point_reply(sample.width / 2, sample.height / 2, "no OCR text matched the goal")
        x1, y1, x2, y2 = best
        return _point_reply((x1 + x2) / 2, (y1 + y2) / 2, f"best OCR match, F1 {best_score:.2f}")


KINDS = {"openai": OpenAIAgent, "random": RandomAgent, "center": CenterAgent, "ocr-match": OcrMatchAgent}
