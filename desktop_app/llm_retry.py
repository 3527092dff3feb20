"""The one retry policy for requests to an LLM endpoint (ADR 0030): which failures are asked again, how long to
wait before, and how many times. Used by the runs' agents (agents/client.py, asynchronous) and by screen
synthesis (synth/llm.py, synchronous).

The openai SDK can retry too; every client is made here with its retries off (`openai_client`), so there is one
policy, this one: the SDK's would run inside ours (a profile's 4 retries becoming up to 4 x 3 requests), past
the run's rate limiter, and unseen by the attempt count a prediction records.

Asked again: timeouts, dropped connections, 408 / 409 / 425 / 429 and the 5xx a busy server answers, after the
wait the server names in Retry-After (at most RETRY_AFTER_CAP_S) or else a random one that doubles with each
attempt. Nothing else: a 400 or 401 will not get better by asking again.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass

RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
RETRY_AFTER_CAP_S = 30.0  # a server asking for more is waited for only this long before the next attempt
BACKOFF_CAP_S = 20.0


def openai_client(base_url: str, api_key: str, timeout_s: float, *, asynchronous: bool = False):
    """An openai client (openai.AsyncOpenAI when `asynchronous`) that never retries by itself."""
    import openai  # here, not at the top: openai takes a third of a second to import, and start-up needs none

    kind = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    return kind(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)


def retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APITimeoutError | openai.APIConnectionError | asyncio.TimeoutError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRY_STATUS
    return False


def backoff(attempt: int, base: float = 0.5, cap: float = BACKOFF_CAP_S) -> float:
    """Full jitter: a random wait up to base * 2^attempt, so many workers don't retry in step."""
    return random.uniform(0, min(cap, base * 2 ** attempt))


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int  # requests after the first; a run's profile sets it, synthesis uses SYNTH_RETRIES
    backoff_base: float = 0.5

    def wait_before_next(self, exc: BaseException, attempts: int) -> float | None:
        """Seconds to wait before asking again after attempt number `attempts` failed with `exc`; None when
        it is not asked again (a failure no retry mends, or the retries are used up)."""
        if attempts > self.max_retries or not retryable(exc):
            return None
        return _retry_after(exc) or backoff(attempts, self.backoff_base)


def _retry_after(exc: BaseException) -> float | None:
    import openai

    if not isinstance(exc, openai.APIStatusError) or exc.response is None:
        return None
    try:
        seconds = float(exc.response.headers.get("retry-after", ""))
    except ValueError:  # absent, or an HTTP date: the backoff's wait instead
        return None
    return min(seconds, RETRY_AFTER_CAP_S) if seconds > 0 else None  # NaN is not > 0 either
