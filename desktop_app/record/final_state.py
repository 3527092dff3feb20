"""The evaluator of a recorded task: what the page must show when the task is done.

Written from the screen after the last step at record time, checked on the screen a replay (or, later, an
agent) ends on. Three parts, all of which must hold:

  url     a glob pattern (fnmatch) the final URL must match: the recorded URL without its query and fragment
          (a query may hold what was typed), so `.../site/account/saved` and not `...?name=...`
  dom     conditions on the page: {"selector": CSS, "text": words the element's text must contain ("" = it
          must exist)}; written for the page's main heading when it has one
  sphinx  evaluators in the Sphinx grammar (capability/evaluators.py) on the final accessibility tree: a
          stoppage whose element holds the heading's text, so the check also runs on a recorded tree alone

{"url": ..., "dom": [...], "sphinx": [...]} is stored in the episode's meta.record.evaluator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from urllib.parse import urlsplit, urlunsplit

from desktop_app.capability.evaluators import StopPage, build_trace, parse_evaluators, score_task, to_json


@dataclass
class Verdict:
    passed: bool
    checks: list[tuple[str, bool]] = field(default_factory=list)  # (what was checked, whether it held)

    def lines(self) -> list[str]:
        return [f"  {'ok  ' if ok else 'FAIL'} {what}" for what, ok in self.checks]


def url_pattern(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")).replace("[", "[[]")


def write_evaluator(final: dict) -> dict:
    """The evaluator of a task from the snapshot of its final screen (page_script.HELPERS' snapshot())."""
    heading = final.get("heading", "")
    dom = [{"selector": "h1", "text": heading}] if heading else []
    sphinx = to_json([StopPage("include", {"text": heading}, "include", {})]) if heading else []
    return {"url": url_pattern(final["url"]), "dom": dom, "sphinx": sphinx}


_DOM_CHECK = """({selector, text}) => {
  let found;
  try { found = document.querySelectorAll(selector); } catch (e) { return false; }
  return Array.from(found).some(el => (el.innerText || el.value || '').replace(/\\s+/g, ' ').includes(text));
}"""


def check(evaluator: dict, page, tree_xml: str) -> Verdict:
    """Whether the page (live) and its tree satisfy the evaluator."""
    from desktop_app.a11y.tree import UiTree

    checks = []
    if evaluator.get("url"):
        checks.append((f"the URL matches {evaluator['url']} (it is {page.url})", fnmatchcase(page.url, evaluator["url"])
                       or fnmatchcase(url_pattern(page.url), evaluator["url"])))
    for cond in evaluator.get("dom", []):
        what = f"{cond['selector']} contains {cond['text']!r}" if cond.get("text") else f"{cond['selector']} exists"
        checks.append((what, bool(page.evaluate(_DOM_CHECK, {"selector": cond["selector"], "text": cond.get("text", "")}))))
    if evaluator.get("sphinx"):
        evaluators = parse_evaluators(evaluator["sphinx"], "meta.record.evaluator.sphinx")
        trace = build_trace([UiTree.from_xml(tree_xml)], None, [])
        score = score_task(evaluators, trace)
        for ev, ok in zip(evaluators, score.passed, strict=True):
            checks.append((f"Sphinx {ev.kind} {to_json([ev])[0].get('match_rules')}", ok))
    return Verdict(all(ok for _, ok in checks) and bool(checks), checks)
