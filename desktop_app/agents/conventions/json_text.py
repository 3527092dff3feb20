"""EnvDistraction's element-text answers: the model names the element instead of pointing at it.

Pop-up / chat pages: {"action_type": "click", "element": "Button <icon-cross>"} and
{"action_type": "type_text", "element": "Input email", "content": "..."}.
Search / shopping pages: {"action": "Click result 3", "title": "..."}.
CoT answers end with "In conclusion, the next action is {...}". `point` always stays None.
"""

from __future__ import annotations

import re

from .base import Found, make
from .textscan import after_conclusion, first_str, iter_objects

# EnvDistraction's own scoring regexes, kept as the fall-back for answers that are not valid objects
# (unescaped quotes inside the element, a cut-off tail after the element).
_ELEMENT_RE = re.compile(r"""["']action_type["']\s*:\s*["']([^"']+)["']\s*,\s*["']element["']\s*:\s*["']([^"']+)["']""")
_ACTION_RE = re.compile(r"""["']action["']\s*:\s*["']([^"']+)["']""")
_RESULT_ID = re.compile(r"click\s+result\s+(\d+)", re.I)


def _from_action_string(action: str, title: str | None) -> Found:
    """'Click result 3' -> click. The element keeps the whole string plus the title, if any, in the shape
    of EnvDistraction's labels ("Click result 3, <title>"), so text matching sees both."""
    action = action.strip()
    verb = action.split(None, 1)[0] if action else action
    title = title.strip() if title else None
    extra = {"title": title}
    if m := _RESULT_ID.search(action):
        extra["result_id"] = int(m.group(1))
    element = f"{action}, {title}" if action and title else action
    return Found(name=verb, element=element or None, extra=extra)


def parse(text: str) -> Found | None:
    focus = after_conclusion(text)
    for obj in iter_objects(focus):
        if isinstance(obj.get("action_type"), str):
            element = first_str(obj, "element")
            # multi-step (navigation) answers also name a scroll direction, an app or a key
            extra = {"direction": first_str(obj, "direction"), "app": first_str(obj, "app_name", "app"),
                     "key": first_str(obj, "key")}
            return Found(name=obj["action_type"], element=element.strip() if element else None,
                         text=first_str(obj, "content", "text", "value"), extra=extra)
        if isinstance(obj.get("action"), str):
            return _from_action_string(obj["action"], first_str(obj, "title"))
    if m := _ELEMENT_RE.search(focus):
        return Found(name=m.group(1), element=m.group(2).strip())
    if m := _ACTION_RE.search(focus):
        return _from_action_string(m.group(1), None)
    return None


CONVENTIONS = [
    make(
        "json-text", "EnvDistraction element text", "text",
        "Names the element to act on, e.g. {\"action_type\": \"click\", \"element\": \"Close (X)\"}; "  # not a key
        "also {\"action\": \"Click result 3\"} on search/shopping pages. Scored by text match, no point.",
        "Reply with one JSON object and nothing after it. To click, write "
        "{\"action_type\": \"click\", \"element\": \"<the element's visible text or icon>\"}. To type into a "
        "field, write {\"action_type\": \"type_text\", \"element\": \"Input <field>\", \"content\": \"<text>\"}. "
        "On a page of results, write {\"action\": \"Click result <number>\", \"title\": \"<its title>\"}. "
        "If you reason first, end with: In conclusion, the next action is {...}.",
        parse,
        ask_instruction="If the task is ambiguous, reply {\"action_type\": \"ask\", \"question\": \"<your question>\"} instead.",
    ),
]
