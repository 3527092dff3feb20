"""How an ambiguous task lives in a project (docs/decisions/0012-ambiguous-tasks.md).

A multi-step episode is stored as usual: one step per screen, and on each step its
annotated action as a gold ActionBox (a click point without an element box is a
zero-size box with meta {"point": true}; scroll direction, app name and key live in
the box's meta; typed text in type_text).

The Navi-plus part is in `episode.meta["navi"]`:
    original_task   the complete task
    ambiguous_task  the task with the information of the removed step(s) taken out
    step_kinds      per step: "informative" | "transactional" | ""   (LLM first, then human)
    qa_pairs        [{ask_step, removed_step, question, answer, overlap, llm: {original texts}}]
    llm             what the model wrote before any human edit (instructions, kinds, task, pairs)
    checklist       the reviewer's ticks {only_target_removed, nothing_else_lost, style_kept,
                    not_recoverable_from_screens}
An ambiguous episode is its own episode (goal = the ambiguous task, scenario "ambiguous",
steps copied from the source), so runs and metrics treat it like any other sample.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

SCENARIO = "ambiguous"
STEP_KINDS = ("informative", "transactional", "")
CHECKLIST = {
    "only_target_removed": "Only the targeted detail was removed",
    "nothing_else_lost": "Nothing else was lost",
    "style_kept": "The task keeps its tone and style",
    "not_recoverable_from_screens": "The missing detail cannot be read off the screens",
}


@dataclass
class QAPair:
    ask_step: int  # the step at which the agent should ask (before acting on the removed step)
    removed_step: int
    question: str
    answer: str  # the user's intention, not an operation
    overlap: str = ""  # the words of the original task that were removed
    llm: dict[str, str] = field(default_factory=dict)  # the model's original question/answer


@dataclass
class NaviInfo:
    original_task: str
    ambiguous_task: str
    qa_pairs: list[QAPair] = field(default_factory=list)
    step_kinds: list[str] = field(default_factory=list)
    llm: dict[str, Any] = field(default_factory=dict)
    checklist: dict[str, bool] = field(default_factory=dict)
    source_episode: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NaviInfo:
        pairs = [QAPair(**{k: v for k, v in p.items() if k in QAPair.__dataclass_fields__})
                 for p in data.get("qa_pairs", [])]
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "qa_pairs"}
        return cls(qa_pairs=pairs, **known)

    @property
    def ask_steps(self) -> list[int]:
        return sorted({p.ask_step for p in self.qa_pairs})


def navi_of(episode) -> NaviInfo | None:
    data = (episode.meta or {}).get("navi")
    return NaviInfo.from_json(data) if data else None


def with_navi(meta: dict[str, Any], info: NaviInfo) -> dict[str, Any]:
    return {**(meta or {}), "navi": info.to_json()}
