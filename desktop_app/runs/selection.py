"""Which samples a run takes: an episode filter, the default review statuses, and the samples it
leaves out because they cannot be scored (no goal, no labelled action), counted by reason.

Those used to be sent anyway ("Task: \\nWhat is the next action?") and scored invalid, which lowered
every rate for nothing. `include_unlabelled` keeps them (e.g. to see what an agent does on raw
screenshots); the dialog and the CLI say how many were left out and why.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, replace

from desktop_app.store.queries import EpisodeFilter

# Generated samples count once a human accepted them; imported human-made data is "unreviewed".
DEFAULT_STATUSES = ("accepted", "edited", "unreviewed")
NO_GOAL = "no goal"
NO_LABEL = "no labelled action"


def with_default_statuses(flt: EpisodeFilter) -> EpisodeFilter:
    return flt if flt.review_statuses else replace(flt, review_statuses=DEFAULT_STATUSES)


@dataclass(frozen=True)
class RunSelection:
    """What a run was created with; stored in Run.selection."""

    episodes: EpisodeFilter = EpisodeFilter()
    include_unlabelled: bool = False

    def to_json(self) -> dict:
        flt = {k: [list(x) if isinstance(x, tuple) else x for x in v] if isinstance(v, tuple) else v
               for k, v in asdict(self.episodes).items()}
        return {"filter": flt, "include_unlabelled": self.include_unlabelled}

    @classmethod
    def from_json(cls, data: dict) -> RunSelection:
        """Also reads the old layout (the filter's fields at the top level)."""
        raw = data.get("filter", data) if isinstance(data, dict) else {}
        known = EpisodeFilter.__dataclass_fields__
        flt = {k: tuple(tuple(x) if isinstance(x, list) else x for x in v) if isinstance(v, list) else v
               for k, v in raw.items() if k in known}
        return cls(EpisodeFilter(**flt), bool(data.get("include_unlabelled", False)))


def unscoreable(goal: str, has_action: bool) -> str:
    """Why a sample cannot be scored ("" when it can)."""
    if not goal.strip():
        return NO_GOAL
    if not has_action:
        return NO_LABEL
    return ""


def describe_excluded(excluded: Counter | dict[str, int]) -> str:
    """'11 samples left out: 8 no goal, 3 no labelled action (--include-unlabelled keeps them)'."""
    total = sum(excluded.values())
    if not total:
        return ""
    parts = ", ".join(f"{n} {reason}" for reason, n in Counter(excluded).most_common())
    return f"{total} sample{'s' if total != 1 else ''} left out: {parts}"
