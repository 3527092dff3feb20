"""One chat-completion call to an OpenAI-compatible server, with the politeness a long run needs:
request- and token-per-minute limits, a per-request timeout, and the retries of llm_retry.py (the one
policy for LLM calls: exponential backoff and jitter on 429, 5xx, timeouts and dropped connections).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_app.llm_retry import RetryPolicy
from desktop_app.secrets import redact, redact_keys

if TYPE_CHECKING:
    import openai

@dataclass
class Reply:
    text: str
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float
    attempts: int
    finish_reason: str = ""


class RequestFailed(RuntimeError):
    def __init__(self, message: str, attempts: int):
        super().__init__(message)
        self.attempts = attempts


class RateLimiter:
    """Sliding one-minute windows for requests and tokens; 0 means no limit."""

    def __init__(self, rpm: int = 0, tpm: int = 0):
        self.rpm, self.tpm = rpm, tpm
        self._requests: deque[float] = deque()
        self._tokens: deque[tuple[float, int]] = deque()
        self._lock = asyncio.Lock()

    async def acquire(self, tokens: int) -> None:
        if not self.rpm and not self.tpm:
            return
        while True:
            async with self._lock:
                now = time.monotonic()
                while self._requests and now - self._requests[0] >= 60:
                    self._requests.popleft()
                while self._tokens and now - self._tokens[0][0] >= 60:
                    self._tokens.popleft()
                used = sum(n for _, n in self._tokens)
                ok_r = not self.rpm or len(self._requests) < self.rpm
                ok_t = not self.tpm or used + tokens <= self.tpm or not self._tokens
                if ok_r and ok_t:
                    self._requests.append(now)
                    self._tokens.append((now, tokens))
                    return
                starts = [self._requests[0]] if self._requests else []
                starts += [self._tokens[0][0]] if self._tokens else []
                wait = max(0.05, 60 - (now - min(starts, default=now)))
            await asyncio.sleep(min(wait, 1.0))


def _describe(exc: Exception, api_key: str = "") -> str:
    """One line for a failed request, stored with the prediction and printed. A server may echo the key it was
    sent ("Incorrect API key provided: sk-...", a header dump in an error page): taken out before the message
    is cut, since a key cut in half no longer matches its value."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {redact(str(exc.message), (api_key,))[:200]}"
    return f"{type(exc).__name__}: {redact(str(exc), (api_key,))[:200]}"


async def chat(client: openai.AsyncOpenAI, model: str, messages: list[dict], *, temperature: float,
               max_tokens: int, extra_body: dict, timeout_s: float, max_retries: int,
               limiter: RateLimiter | None = None, estimated_tokens: int = 1000,
               backoff_base: float = 0.5, top_p: float | None = None) -> Reply:
    policy = RetryPolicy(max_retries, backoff_base)
    attempts = 0
    while True:
        attempts += 1
        if limiter is not None:
            await limiter.acquire(estimated_tokens)
        started = time.perf_counter()
        try:
            response = await asyncio.wait_for(client.chat.completions.create(
                model=model, messages=messages, temperature=temperature, max_tokens=max_tokens,
                **({"top_p": top_p} if top_p is not None else {}),
                extra_body=extra_body or None, timeout=timeout_s), timeout=timeout_s + 5)
            choice = response.choices[0] if response.choices else None
            text = (choice.message.content or "") if choice and choice.message else ""
            # an answer is stored, cached and printed as it came, except a key a careless server or proxy put in
            text = redact_keys(text, (getattr(client, "api_key", "") or "",))
            usage = response.usage
            return Reply(text=text, prompt_tokens=getattr(usage, "prompt_tokens", None),
                         completion_tokens=getattr(usage, "completion_tokens", None),
                         latency_ms=(time.perf_counter() - started) * 1000, attempts=attempts,
                         finish_reason=(choice.finish_reason or "") if choice else "")
        except Exception as exc:  # openai raises many types; only some are worth a retry
            if isinstance(exc, asyncio.CancelledError):
                raise
            wait = policy.wait_before_next(exc, attempts)
            if wait is None:
                raise RequestFailed(_describe(exc, getattr(client, "api_key", "") or ""), attempts) from None
            await asyncio.sleep(wait)
