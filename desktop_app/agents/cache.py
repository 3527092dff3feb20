"""The response cache: a model's answer keyed by everything that decides it.

Key = SHA-256 of (model, messages with images replaced by their hashes, parameters).
Re-scoring and reruns of the same prompts cost no request. An answer longer than a project keeps
(agents/kept_answer.KEPT_CHARS) is not cached: the cache returns what the model said, whole, or nothing.
"""

from __future__ import annotations

import hashlib
import json

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError, OperationalError

from desktop_app.agents.client import Reply
from desktop_app.agents.kept_answer import KEPT_CHARS
from desktop_app.agents.prompts import cache_view
from desktop_app.store.models import ResponseCache
from desktop_app.store.project import Project, is_locked


class ProjectResponseCache:
    def __init__(self, project: Project, enabled: bool = True):
        self.project = project
        self.enabled = enabled

    @staticmethod
    def key(model: str, messages: list[dict], sha256s: list[str], params: dict) -> str:
        doc = {"model": model, "messages": cache_view(messages, sha256s), "params": params}
        return hashlib.sha256(json.dumps(doc, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    def get(self, key: str) -> Reply | None:
        if not self.enabled:
            return None
        with self.project.reading() as s:
            row = s.get(ResponseCache, key)
        if row is None:
            return None
        r = row.response
        return Reply(r["text"], r.get("prompt_tokens"), r.get("completion_tokens"), 0.0, 0, r.get("finish_reason", ""))

    def get_many(self, keys: list[str]) -> dict[str, Reply]:
        """The cached answers among `keys`, by key, in a few queries (a run's estimate looks up every sample)."""
        if not self.enabled or not keys:
            return {}
        found = {}
        with self.project.reading() as s:
            for start in range(0, len(keys), 500):
                for row in s.execute(select(ResponseCache).where(ResponseCache.key.in_(keys[start:start + 500])))\
                        .scalars():
                    r = row.response
                    found[row.key] = Reply(r["text"], r.get("prompt_tokens"), r.get("completion_tokens"), 0.0, 0,
                                           r.get("finish_reason", ""))
        return found

    def put(self, key: str, model: str, reply: Reply) -> None:
        if not self.enabled or len(reply.text) > KEPT_CHARS:  # a cut answer would parse differently on a rerun
            return
        try:
            with self.project.transaction() as s:
                s.add(ResponseCache(key=key, model=model, response={
                    "text": reply.text, "prompt_tokens": reply.prompt_tokens,
                    "completion_tokens": reply.completion_tokens, "finish_reason": reply.finish_reason,
                    "latency_ms": reply.latency_ms}))
        except IntegrityError:
            pass  # two workers asked the same thing at once: the first answer is kept
        except OperationalError as exc:  # another process holds the write lock (a long import): the cache is
            if not is_locked(exc):       # only a saving, so this answer is not cached rather than the run failing
                raise
