"""A small validator for the JSON the LLM returns. The error text goes back to the model
on retry, so it names the field and says what was expected.

Spec forms: "text" (non-empty string, optional max length as "text:60"), "int", "num", ["text"] or
{"list": spec, "min": n, "max": n}, and a dict {field: spec} for objects (a field name
ending in "?" is optional).
"""

from __future__ import annotations

import json
import re
from typing import Any


class SchemaError(ValueError):
    pass


def _check(value: Any, spec: Any, path: str) -> Any:
    if isinstance(spec, str):
        kind, _, limit = spec.partition(":")
        if kind == "text":
            if not isinstance(value, str) or not value.strip():
                raise SchemaError(f"{path or 'answer'} must be a non-empty string")
            if limit and len(value) > int(limit):
                raise SchemaError(f"{path} is {len(value)} characters; keep it at most {limit}")
            return value.strip()
        if kind == "int":
            if not isinstance(value, int) or isinstance(value, bool):
                raise SchemaError(f"{path} must be an integer")
            return value
        if kind == "num":
            if isinstance(value, str):
                try:
                    value = float(value)
                except ValueError:
                    raise SchemaError(f"{path} must be a number") from None
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise SchemaError(f"{path} must be a number")
            return value
        raise ValueError(f"bad spec {spec}")
    if isinstance(spec, list):
        spec = {"list": spec[0]}
    if isinstance(spec, dict) and "list" in spec:
        if not isinstance(value, list):
            raise SchemaError(f"{path or 'answer'} must be a list")
        low, high = spec.get("min", 0), spec.get("max")
        if len(value) < low or (high is not None and len(value) > high):
            want = f"exactly {low}" if low == high else f"{low} to {high}" if high else f"at least {low}"
            raise SchemaError(f"{path or 'answer'} must have {want} items, it has {len(value)}")
        return [_check(v, spec["list"], f"{path}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        raise SchemaError(f"{path or 'answer'} must be a JSON object")
    out = {}
    for name, sub in spec.items():
        key = name.rstrip("?")
        if key not in value or value[key] in (None, ""):
            if name.endswith("?"):
                continue
            raise SchemaError(f"{(path + '.') if path else ''}{key} is missing")
        out[key] = _check(value[key], sub, f"{(path + '.') if path else ''}{key}")
    return out


def extract_json(text: str) -> Any:
    """The first JSON object or list in the answer; models wrap JSON in prose or code fences."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fenced:
        text = fenced.group(1)
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise SchemaError("the answer contains no JSON")
    try:
        value, _ = json.JSONDecoder().raw_decode(text[min(starts):])
    except json.JSONDecodeError as exc:
        raise SchemaError(f"the JSON is malformed: {exc.msg} at character {exc.pos}") from None
    return value


def validate(text: str, spec: Any) -> Any:
    return _check(extract_json(text), spec, "")
