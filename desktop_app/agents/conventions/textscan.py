"""Tolerant scanning of model answers: objects, calls, coordinate groups, labelled sections.

Model output is data. Nothing here evaluates it: JSON goes through json.loads and Python-style dicts
(ShowUI, SeeClick) through ast.literal_eval, which only builds literals. Every helper returns None
(or nothing) instead of raising, so the parsers can chain fall-backs.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

NUM = r"-?(?:\d+(?:\.\d+)?|\.\d+)"
_NUM_RE = re.compile(NUM)
# Chinese-locale answers sometimes use full-width punctuation inside coordinates.
_FULLWIDTH = str.maketrans({"，": ",", "（": "(", "）": ")", "［": "[", "］": "]", "：": ":", "　": " "})
# Special tokens that may wrap coordinates; serving stacks often strip them (vLLM #27636), so they are optional.
_COORD_TOKENS = re.compile(r"<\|?/?(?:box_start|box_end|point_start|point_end|point|bbox|box)\|?>", re.I)
_COORD_CHARS = re.compile(r"[\s\d.,()\[\]-]*")
_MAX_OBJECT_CHARS = 20_000  # a real action is a few hundred characters; bigger blobs are not worth literal_eval


def fullwidth_to_ascii(text: str) -> str:
    return text.translate(_FULLWIDTH)


def finite_numbers(values) -> tuple[float, ...] | None:
    """A list/tuple of numbers (or numeric strings) -> floats, None if anything is not a finite number."""
    if isinstance(values, str):
        return coord_value(values)
    if not isinstance(values, list | tuple):
        return None
    out = []
    for v in values:
        if isinstance(v, bool):
            return None
        if isinstance(v, list | tuple):  # [[x, y]] or [[x1, y1], [x2, y2]]
            inner = finite_numbers(v)
            if inner is None:
                return None
            out.extend(inner)
            continue
        try:
            f = float(v)
        except (TypeError, ValueError, OverflowError):
            return None
        if not math.isfinite(f):
            return None
        out.append(f)
    return tuple(out)


def coord_value(value: str | None) -> tuple[float, ...] | None:
    """A coordinate argument such as "(500,300)", "<|box_start|>(1,2),(3,4)<|box_end|>", "<point>5 6</point>"
    or "[[1,2,3,4]]" -> 2 or 4 numbers. Strict on purpose: letters or stray symbols inside a box
    (UI-TARS #78/#81: start_box='=') make it unusable rather than guessed."""
    if value is None:
        return None
    s = _COORD_TOKENS.sub(" ", fullwidth_to_ascii(str(value)))
    if not _COORD_CHARS.fullmatch(s):
        return None
    nums = finite_numbers(_NUM_RE.findall(s))
    return nums if nums and len(nums) in (2, 4) else None


@dataclass(frozen=True)
class CoordMatch:
    values: tuple[float, ...]  # 2 (point) or 4 (box)
    start: int
    end: int


_N = rf"\s*{NUM}\s*"
_COORD_GROUP = re.compile(
    rf"\[\s*\[{_N},{_N}\]\s*,\s*\[{_N},{_N}\]\s*\]"  # [[x1,y1],[x2,y2]] (ShowUI)
    rf"|\({_N},{_N}\)\s*,?\s*\({_N},{_N}\)"  # (x1,y1),(x2,y2) (Qwen2-VL, OS-Atlas)
    rf"|[\[(]{_N}(?:,{_N}){{1,3}}[\])]"  # (x,y) [x,y] (x1,y1,x2,y2) [x1,y1,x2,y2]
    rf"|<point>{_N}\s{_N}</point>"  # <point>x y</point> (UI-TARS / Seed)
    rf"|<bbox>{_N}\s{_N}\s{_N}\s{_N}</bbox>"
)


def first_coords(text: str) -> CoordMatch | None:
    """The first group of 2 or 4 numbers that looks like a point or a box, anywhere in the text."""
    s = fullwidth_to_ascii(text)
    for m in _COORD_GROUP.finditer(s):
        nums = finite_numbers(_NUM_RE.findall(m.group()))
        if nums and len(nums) in (2, 4):
            return CoordMatch(nums, m.start(), m.end())
    return None


def strip_quotes(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value.strip("'\"")


def _object_spans(text: str) -> list[tuple[int, int]]:
    """Outermost balanced {...} spans, in one pass. Quotes are tracked only inside braces (prose is full
    of apostrophes) and reset at newlines (JSON and Python literals cannot hold a raw newline), so one
    stray quote cannot hide the rest of the answer."""
    spans, stack, quote, escaped = [], [], None, False
    for i, ch in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote or ch == "\n":
                quote = None
            continue
        if ch == "{":
            stack.append(i)
        elif ch == "}" and stack:
            start = stack.pop()
            spans.append((start, i + 1))
        elif ch in "'\"" and stack:
            quote = ch
    spans.sort()
    outer, reach = [], -1
    for start, end in spans:
        if start >= reach:
            outer.append((start, end))
            reach = end
    return outer


_JSON_WORDS = re.compile(r"\b(null|true|false)\b")


def load_object(s: str):
    """JSON first, then a Python literal (single quotes, tuples, None), then JSON words in a Python literal."""
    if len(s) > _MAX_OBJECT_CHARS:
        return None
    try:
        return json.loads(s)
    except Exception:  # ValueError, RecursionError on absurd nesting: either way it is not our object
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes in model text raise SyntaxWarning, not our concern
        for candidate in (s, _JSON_WORDS.sub(lambda m: {"null": "None", "true": "True", "false": "False"}[m[1]], s)):
            try:
                return ast.literal_eval(candidate)
            except Exception:  # SyntaxError, ValueError, TypeError (unhashable), MemoryError, RecursionError
                continue
    return None


def iter_objects(text: str) -> Iterator[dict]:
    """Every dict found in the text, in order (inside code fences, lists, tool-call tags or prose)."""
    for start, end in _object_spans(text):
        obj = load_object(text[start:end])
        if isinstance(obj, dict):
            yield obj


def first_str(mapping: dict, *keys: str) -> str | None:
    for key in keys:
        value = mapping.get(key)
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
    return None


def after_conclusion(text: str) -> str:
    """EnvDistraction CoT answers end with 'In conclusion, the next action is {...}': keep what follows."""
    idx = text.lower().rfind("conclusion")
    return text[idx + len("conclusion"):] if idx >= 0 else text


_LABEL = r"(?:actions?|grounded operation)"
_ACTION_LABEL = re.compile(rf"(?im)(?:^|(?<=\s)|(?<=\W)){_LABEL}\s*[:：]")


def action_part(text: str) -> tuple[str, bool]:
    """(text after the last 'Action:' / 'actions:' / 'Grounded Operation:' label, whether one was found)."""
    last = None
    for m in _ACTION_LABEL.finditer(text):
        last = m
    return (text[last.end():], True) if last else (text, False)


_THOUGHT = re.compile(rf"(?is)\b(?:thoughts?|reflection)\s*[:：]\s*(.*?)\s*(?=\b{_LABEL}\s*[:：]|$)")


def extract_thought(text: str) -> str | None:
    m = _THOUGHT.search(text)
    return (m.group(1).strip() or None) if m else None


@dataclass(frozen=True)
class Call:
    name: str
    kwargs: dict[str, str]
    positional: str | None  # everything inside the parentheses when no key=value was given


_CALL_START = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
_KEY = re.compile(r"\s*,?\s*([A-Za-z_]\w*)\s*=(?!=)\s*")
_NEXT_KEY = re.compile(r",\s*[A-Za-z_]\w*\s*=(?!=)")


def _call_body(text: str, start: int) -> str:
    """From just after '(' to the last ')' on that line; the rest of the line if it was cut off."""
    line_end = text.find("\n", start)
    line = text[start:] if line_end < 0 else text[start:line_end]
    close = line.rfind(")")
    return line[:close] if close >= 0 else line


def _parse_args(body: str) -> tuple[dict[str, str], str | None]:
    kwargs: dict[str, str] = {}
    pos = 0
    while pos < len(body):
        m = _KEY.match(body, pos)
        if not m:
            break
        key, pos = m.group(1), m.end()
        if pos < len(body) and body[pos] in "'\"":
            q = body[pos]
            # A quoted value ends at its quote followed by the next key or the end, so apostrophes inside
            # typed text ("I'm") survive.
            end = re.compile(re.escape(q) + r"\s*(?=,\s*[A-Za-z_]\w*\s*=(?!=)|\s*,?\s*$)").search(body, pos + 1)
            kwargs[key] = body[pos + 1:end.start()] if end else body[pos + 1:]
            pos = end.end() if end else len(body)
        else:
            end = _NEXT_KEY.search(body, pos)
            kwargs[key] = body[pos:end.start() if end else len(body)].strip().rstrip(",").strip()
            pos = end.start() if end else len(body)
    if kwargs:
        return kwargs, None
    rest = body.strip()
    return {}, (strip_quotes(rest) if rest else None)


def find_call(text: str, accept=None) -> Call | None:
    """The first `name(args)` whose name `accept(name)` allows (any name when accept is None)."""
    for m in _CALL_START.finditer(text):
        if accept is None or accept(m.group(1)):
            kwargs, positional = _parse_args(_call_body(text, m.end()))
            return Call(m.group(1), kwargs, positional)
    return None
