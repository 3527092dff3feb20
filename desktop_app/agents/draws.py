"""Which draw a request is, for the response cache: a sampling model's answers are draws, not facts.

A model that samples (temperature above 0, or top-p below 1) gives another answer each time it is asked,
and the papers ask it once per trial, turn and sample. So its cached answers are keyed by the draw as well
as by the prompt: two trials with the same prompt are two requests, while a resumed trial replays its own
answer. A deterministic model (temperature 0, top-p 1) is keyed by its prompt alone, as before: a rerun of
the same prompts costs no request.

The run engine names the draw of the unit a worker is on (run, unit, repetition) in `UNIT_DRAW`, so every
request made for that unit (the agent's, a judge's, a helper's) carries it without each protocol having to
pass it; a protocol that asks the same messages more than once within a unit (turns of a trial, samples of
a question) adds its own index with `sampling["draw"]`.
"""

from __future__ import annotations

from contextvars import ContextVar

# set by the run engine's worker for the unit it is working on; None outside a run
UNIT_DRAW: ContextVar[str | None] = ContextVar("unit_draw", default=None)


def draws(temperature: float | None, top_p: float | None) -> bool:
    """Whether a request with these settings draws (its answer may change when asked again)."""
    return (temperature or 0) > 0 or (top_p is not None and top_p < 1)
