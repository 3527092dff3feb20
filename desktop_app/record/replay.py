"""Replay a recorded task in the browser and say which steps no longer match, then check its evaluator.

Each step's element is looked for by its selector first; a step matches when the selector finds it with the
recorded text at the recorded place (within MOVED_PX). Otherwise the step is reported (not found, renamed,
or found elsewhere) and the action is still taken, on what the selector found or else on the element at the
recorded position, so one changed step does not hide whether the rest still works. A sensitive field's text
was never stored: the replay types STAND_IN there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop_app.record.browser import open_session
from desktop_app.record.final_state import Verdict, check
from desktop_app.record.page_script import HELPERS
from desktop_app.record.recorder import _package
from desktop_app.record.site import open_site
from desktop_app.render.dom_tree import dom_tree_xml
from desktop_app.store.project import Project

MOVED_PX = 4.0
STAND_IN = "screenlab-replay"

_FIND = """(selector) => {
  let el = null;
  try { const all = document.querySelectorAll(selector); if (all.length === 1) el = all[0]; } catch (e) {}
  if (!el) return null;
  el.setAttribute('data-sl-replay', '');
  return window.__sl.describe(el);
}"""
_AT = """([x, y]) => {
  const el = window.__sl.actionable(document.elementFromPoint(x, y));
  if (!el || el === document.body || el === document.documentElement) return null;
  el.setAttribute('data-sl-replay', '');
  return window.__sl.describe(el);
}"""
_UNMARK = "() => document.querySelectorAll('[data-sl-replay]').forEach(e => e.removeAttribute('data-sl-replay'))"


@dataclass
class StepCheck:
    index: int
    kind: str
    matched: bool
    problem: str = ""  # why it no longer matches
    acted: str = ""  # selector | position | "" (not acted on: nothing there)


@dataclass
class ReplayReport:
    episode_id: int
    goal: str
    steps: list[StepCheck] = field(default_factory=list)
    verdict: Verdict | None = None
    blocked: list[str] = field(default_factory=list)

    @property
    def changed(self) -> list[StepCheck]:
        return [s for s in self.steps if not s.matched]

    @property
    def passed(self) -> bool:
        return not self.changed and self.verdict is not None and self.verdict.passed

    def summary(self) -> str:
        """One line for a person: "6 of 6 steps match, evaluator passed"."""
        matched = sum(s.matched for s in self.steps)
        verdict = ("no evaluator" if self.verdict is None else
                   "evaluator passed" if self.verdict.passed else "evaluator FAILED")
        return f"{matched} of {len(self.steps)} steps match, {verdict}"

    def lines(self) -> list[str]:
        out = [f"episode {self.episode_id}: {self.goal}"]
        for s in self.steps:
            state = "ok" if s.matched else f"CHANGED: {s.problem}"
            out.append(f"  step {s.index + 1} {s.kind}: {state}")
        if self.verdict is not None:
            out.append(f"evaluator: {'passed' if self.verdict.passed else 'FAILED'}")
            out += self.verdict.lines()
        if self.blocked:
            out.append(f"{len(self.blocked)} outside requests blocked")
        return out


def load_recorded(project: Project, episode_id: int) -> tuple[str, dict, list[dict]]:
    """The goal, meta.record and the steps' meta.action of a recorded episode; ValueError when it is not one."""
    from sqlalchemy import select

    from desktop_app.store.models import Episode, Step

    with project.reading() as session:
        episode = session.get(Episode, episode_id)
        if episode is None:
            raise ValueError(f"no episode {episode_id} in this project")
        info = (episode.meta or {}).get("record")
        if not info:
            raise ValueError(f"episode {episode_id} ({episode.key}) was not recorded (screenlab record makes one)")
        steps = session.execute(select(Step.meta).where(Step.episode_id == episode_id).order_by(Step.index)).scalars()
        return episode.goal, info, [(m or {}).get("action", {}) for m in steps]


def _compare(action: dict, found: dict | None) -> str:
    if found is None:
        return f"element not found (selector {action['selector']})"
    if found["text"] != action.get("element_text", ""):
        return f"renamed: {action.get('element_text', '')!r} is now {found['text']!r}"
    box = action.get("box")
    if box and max(abs(a - b) for a, b in zip(box, found["box"], strict=True)) > MOVED_PX:
        return (f"found elsewhere: at [{', '.join(f'{v:.0f}' for v in found['box'])}], recorded at "
                f"[{', '.join(f'{v:.0f}' for v in box)}]")
    return ""


def _act(page, action: dict) -> None:
    target = page.locator("[data-sl-replay]").first
    kind = action["kind"]
    if kind == "click":
        target.click()
    elif kind == "type":
        target.fill(STAND_IN if action.get("masked") else action.get("text", ""))
    elif kind == "select":
        target.select_option(action.get("value", ""))
    elif kind == "key":
        target.press(action.get("text", "Enter"))


def replay(project: Project, episode_id: int, start: str | None = None, browser_path: str = "") -> ReplayReport:
    """Replay episode `episode_id` headless, from its recorded start or `start` (another copy of the site)."""
    goal, info, actions = load_recorded(project, episode_id)
    site = open_site(start or info["start"])
    report = ReplayReport(episode_id, goal, blocked=site.blocked)
    session = open_session(site, [HELPERS], browser_path=browser_path)
    try:
        page = session.page
        page.goto(site.start_url, wait_until="load")
        for index, action in enumerate(actions):
            kind = action.get("kind", "")
            page.wait_for_load_state("load")
            page.evaluate(_UNMARK)
            if kind == "navigate_back":
                page.go_back(wait_until="load")
                report.steps.append(StepCheck(index, kind, True, acted="back"))
                continue
            if kind == "navigate":
                page.goto(action.get("text") or action["url"], wait_until="load")
                report.steps.append(StepCheck(index, kind, True, acted="url"))
                continue
            if kind == "scroll":
                x, y = action.get("scroll", [0, 0])
                page.evaluate("([x, y]) => window.scrollTo(x, y)", [x, y])
                report.steps.append(StepCheck(index, kind, True, acted="scroll"))
                continue
            if not action.get("selector"):  # a key pressed with nothing focused
                page.keyboard.press(action.get("text", "Enter"))
                report.steps.append(StepCheck(index, kind, True, acted="keyboard"))
                continue
            found = page.evaluate(_FIND, action["selector"])
            problem = _compare(action, found)
            acted = "selector"
            if found is None and action.get("box"):
                x1, y1, x2, y2 = action["box"]
                acted = "position" if page.evaluate(_AT, [(x1 + x2) / 2, (y1 + y2) / 2]) else ""
            report.steps.append(StepCheck(index, kind, not problem, problem, acted))
            if acted:
                _act(page, action)
        page.wait_for_load_state("load")
        page.wait_for_timeout(100)
        tree = dom_tree_xml(page, _package(page.url))
        report.verdict = check(info.get("evaluator") or {}, page, tree)
    finally:
        session.close()
    return report
