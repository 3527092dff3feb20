"""The ASK rule: one tolerant way, shared by every convention, to recognise a question to the user.

Ambiguous-task runs (Navi-plus style) let the agent ask instead of act. No family was trained on
one common syntax, so we accept the shapes each would naturally produce, and only where the model
states its action (never a question mentioned in passing):

1. Where to look: after "In conclusion" if present (CoT answers), then after the last
   "Action:" / "actions:" / "Grounded Operation:" label if present.
2. Objects: the FIRST JSON / Python dict there that names an action decides. It is an ASK when
   that name (action_type, action, arguments.action, or the tool name) is ask / call_user /
   ask_user, in any case. The question is its question / text / content / value / message / query
   (also inside "arguments"). A first object naming another action (a click) means: not an ASK.
3. Lines, when no object names an action: a line that starts with `ask(...)`, `call_user(...)`,
   `ask_user(...)` (question as keyword or positional argument), `ASK: question`,
   `ASK [question]`, or upper-case `ASK question`. After a label only the first line counts.
4. UI-TARS' own `call_user()` has no argument: the question is then the Thought, if any.

Checked before the family parser, because tolerant coordinate parsers would otherwise read
"ASK: (100,200) or (300,400)?" as a click. The result is action_type "ask", `text` = the question
(None when none was given; still a valid answer), extra["name"] = the word the model used.
"""

from __future__ import annotations

import re

from .names import ASK_NAMES, normalize
from .textscan import (
    action_part,
    after_conclusion,
    extract_thought,
    find_call,
    first_str,
    iter_objects,
    strip_quotes,
)

# The one sentence a prompt builder can append to any convention's instruction when asking is allowed:
# rule 2 below recognises this shape in every convention. Conventions also carry an `ask_instruction`
# phrased in their own family's syntax, which is preferable for models trained on that syntax.
ASK_INSTRUCTION = ('To ask the user a question instead of acting, answer with only '
                   '{"action_type": "ask", "question": "<your question>"}.')

_QUESTION_KEYS = ("question", "text", "content", "value", "message", "query")
_LINE_PREFIX = re.compile(r"^[\s>*•#-]*(?:[,:]?\s*(?:the\s+)?next\s+action\s+is\s*[:：]?\s*)?", re.I)
_CALL = re.compile(r"(ask|call_user|ask_user)\s*\(", re.I)
_KEYWORD = re.compile(r"(ask)\s*[:：\[]\s*(.*?)\s*\]?\s*$", re.I)
_UPPER = re.compile(r"(ASK)\b\s*(.*?)\s*$")


def _action_name(obj: dict) -> str | None:
    args = obj.get("arguments")
    if isinstance(args, dict) and isinstance(args.get("action"), str):
        return args["action"]
    for key in ("action_type", "action", "name"):
        if key in obj and obj[key] is not None:
            return str(obj[key])
    return None


def _clean(question: str | None) -> str | None:
    if question is None:
        return None
    question = strip_quotes(question.strip().strip("[]").strip())
    return question or None


def _from_line(line: str) -> tuple[str, str | None] | None:
    line = _LINE_PREFIX.sub("", line.strip(), count=1)
    if m := _CALL.match(line):
        call = find_call(line[m.start():])
        if call is None:
            return m.group(1), None
        return call.name, _clean(first_str(call.kwargs, *_QUESTION_KEYS) or call.positional)
    if m := _KEYWORD.match(line):
        return m.group(1), _clean(m.group(2))
    if m := _UPPER.match(line):
        return m.group(1), _clean(m.group(2))
    return None


def find_ask(raw: str) -> tuple[str, str | None, str | None] | None:
    """(name as written, question or None, thought or None) when the answer is an ASK, else None."""
    thought = extract_thought(raw)
    part, labelled = action_part(after_conclusion(raw))
    for obj in iter_objects(part):
        name = _action_name(obj)
        if name is None:
            continue
        if normalize(name) not in ASK_NAMES:
            return None
        args = obj.get("arguments") if isinstance(obj.get("arguments"), dict) else {}
        question = _clean(first_str(obj, *_QUESTION_KEYS) or first_str(args, *_QUESTION_KEYS))
        return name, question or thought, thought
    lines = [ln for ln in part.splitlines() if ln.strip()]
    for line in lines[:1] if labelled else lines:
        if hit := _from_line(line):
            name, question = hit
            return name, question or thought, thought
    return None
