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

from desktop_app.runs.protocols.base import OptionsError, Protocol, SampleSummary, WorkUnit
from desktop_app.runs.protocols.browse import BrowseProtocol
from desktop_app.runs.protocols.capability import CompletionProtocol, FocusedProtocol, GroundingProtocol
from desktop_app.runs.protocols.episode import EpisodeProtocol
from desktop_app.runs.protocols.judge import JudgeProtocol
from desktop_app.runs.protocols.live import LiveProtocol
from desktop_app.runs.protocols.probe import ProbeProtocol
from desktop_app.runs.protocols.replay import ReplayProtocol
from desktop_app.runs.protocols.screen import ScreenProtocol

PROTOCOLS: dict[str, Protocol] = {p.name: p for p in (ScreenProtocol(), EpisodeProtocol(), JudgeProtocol(),
                                                   GroundingProtocol(), CompletionProtocol(), ReplayProtocol(),
                                                   ProbeProtocol(), FocusedProtocol(), BrowseProtocol(),
                                                   LiveProtocol())}
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
