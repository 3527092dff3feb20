"""The registry of evaluation protocols, as formats and conventions are registries.

    screen   single screens (EnvDistraction): gold / distracted / other / invalid
    episode  multi-step episodes with ASK answered by a simulated user (Navi-plus)
    judge    a model judges whole agent trajectories, checked against human labels (Agent-Eval-Refine)
    grounding, completion   capability probes on recorded app screens (Sphinx): one capability each
    replay   an agent walks a recorded task; its trajectory is scored by the task's evaluators (SR, ACP)
    probe    knowledge probes: questions about the goal or the app with an answer key (no screen)
    focused  focused context: one instruction and the exact answer format; replies not in it fail
    browse   an agent scrolls a page variant until it clicks (VAF): target click and mention rates
    live     an agent does a recorded task in a browser until it stops or the task's evaluator passes: SR, steps

`suggest()` picks the protocol a selection fits when the user does not choose one.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping

from desktop_app.runs.protocols.base import OptionsError, Protocol, SampleSummary, WorkUnit

# name -> (module, class), in the order the New run dialog and `screenlab run --help` list them. A protocol's
# module is imported the first time it is asked for: `screenlab eval` of screen runs reads one protocol, and
# importing all ten (formats, page variants, the browser's wiring: ~0.3 s) was a sixth of its time (issue 36).
_WHERE = {"screen": ("screen", "ScreenProtocol"), "episode": ("episode", "EpisodeProtocol"),
          "judge": ("judge", "JudgeProtocol"), "grounding": ("capability", "GroundingProtocol"),
          "completion": ("capability", "CompletionProtocol"), "replay": ("replay", "ReplayProtocol"),
          "probe": ("probe", "ProbeProtocol"), "focused": ("capability", "FocusedProtocol"),
          "browse": ("browse", "BrowseProtocol"), "live": ("live", "LiveProtocol")}


class _Registry(Mapping):
    """The protocols by name, each made on first use (one instance per name, as before; two threads asking
    for the same one at once may each make one, and either serves: a protocol keeps no state of its own).
    tests/test_run_protocols.py checks the table against the classes' names."""

    def __init__(self) -> None:
        self._made: dict[str, Protocol] = {}

    def __getitem__(self, name: str) -> Protocol:
        found = self._made.get(name)
        if found is None:
            module, cls = _WHERE[name]  # KeyError for an unknown name, as a dict gives
            found = self._made[name] = getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(_WHERE)

    def __len__(self) -> int:
        return len(_WHERE)

    def __contains__(self, name: object) -> bool:
        return name in _WHERE


PROTOCOLS: Mapping[str, Protocol] = _Registry()
DEFAULT = "screen"


def get_protocol(name: str) -> Protocol:
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise OptionsError(f"unknown protocol {name!r} (one of {', '.join(PROTOCOLS)})") from None


def suggest(summary: SampleSummary) -> str:
    """The first registered protocol that fits the samples (screen for an empty selection)."""
    if not summary.episodes and not summary.trajectories:
        return DEFAULT
    return next((name for name, p in PROTOCOLS.items() if p.fits(summary)), DEFAULT)


__all__ = ["DEFAULT", "PROTOCOLS", "OptionsError", "Protocol", "SampleSummary", "WorkUnit", "get_protocol", "suggest"]
