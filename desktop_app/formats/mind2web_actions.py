"""What the Mind2Web layouts share: an action's operation and target box, a task's metadata, and how each is
written back. The layouts themselves are mind2web.py (the official JSON), mind2web_seeclick.py (SeeClick's
copy) and mind2web_parquet.py (Multimodal-Mind2Web).

The definition: OSU-NLP-Group/Mind2Web, README.md "Data Fields" (repeated in the dataset cards of
osunlp/Mind2Web and osunlp/Multimodal-Mind2Web on Hugging Face). Each action has
    operation       {original_op, value, op}: op is CLICK, TYPE or SELECT; original_op may also say HOVER or
                    ENTER, which Mind2Web maps to CLICK; value is the typed text or the chosen option
    pos_candidates  the target element(s), each {tag, attributes, backend_node_id, ...} where `attributes` is
                    JSON text holding bounding_box_rect "x,y,width,height": CSS pixels of the WHOLE page (its
                    full-length screenshot), not of a viewport; "-1,-1,-1,-1" when the element was not rendered.
                    Usually one; none when the target did not survive Mind2Web's HTML cleaning.
and each task has action_reprs, one "[role]  element text -> OP[: value]" per action (two spaces after the
bracket), from which the element's text is taken.

Surprises kept in mind here: the action type follows `op`, so a HOVER imports as a click (Mind2Web and SeeClick
score it as one) with original_op kept in the box's meta; a box whose numbers all lie within 0-1.5 on a
screenshot far larger is refused, since every Mind2Web layout writes pixels and no release writes fractions.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

from desktop_app.formats.box_layout import NORMALISED_AT_MOST, looks_normalised
from desktop_app.formats.records import BoxRecord, Where, finite, optional, shown
from desktop_app.formats.writing import json_number

SCENARIO = "navigation"
PLATFORM = "web"
META_KEYS = ("website", "domain", "subdomain", "action_reprs")  # a task's fields kept in episode.meta["mind2web"]
OPS = {"CLICK": "click", "TYPE": "type", "SELECT": "select"}
CLICK_LIKE = ("HOVER", "ENTER")  # original_op values Mind2Web itself turns into CLICK
NOT_RENDERED = (-1.0, -1.0, -1.0, -1.0)  # bounding_box_rect of an element that had no box on the page
_REPR = re.compile(r"^\s*\[[^\]]*\]\s*(.*?)\s*->")
# Mind2Web's four splits, as its files, SeeClick's and the parquet shards name them (train_0.json,
# mind2web_data_test_task.json, test_website-00000-of-00004.parquet)
_SPLIT = re.compile(r"(?<![A-Za-z])(train|test_task|test_website|test_domain)(?![A-Za-z])")



LAYOUTS = ("mind2web", "mind2web-seeclick")  # the JSON layouts, told apart by their actions' keys
HTML_KEYS = {"raw_html", "cleaned_html", "neg_candidates"}  # the official actions', which SeeClick dropped


def layout_of(task: dict) -> str | None:
    """Which JSON layout a task is in, for the Import dialog's guess: SeeClick's actions carry `bbox` and none of
    the HTML; the official ones carry the HTML and no `bbox`, or a `screenshot` path. None when unsure."""
    actions = task.get("actions")
    keys = set().union(*(a.keys() for a in actions if isinstance(a, dict))) if isinstance(actions, list) else set()
    if "screenshot" in keys:
        return "mind2web"
    if "bbox" in keys:
        return None if keys & HTML_KEYS else "mind2web-seeclick"
    return "mind2web" if keys & HTML_KEYS else None


def split_of(file: Path) -> str:
    found = _SPLIT.search(file.stem)
    return found.group(1) if found else ""


@dataclass(frozen=True)
class Operation:
    kind: str  # our action type: click, type or select
    value: str  # the typed text or the chosen option ("" for a click)
    original_op: str  # as the record says it (HOVER, ENTER, ...), "" when it does not


def read_operation(operation, where: Where, name: str) -> Operation:
    """`name` is the operation's own field ("[0].actions[2].operation")."""
    if not isinstance(operation, dict):
        raise where.error(f"expected an object {{op, original_op, value}}, got {shown(operation)}", name)
    prefix = name + "."
    op = optional(operation, "op", str, where, "", prefix)
    original = optional(operation, "original_op", str, where, "", prefix)
    op = op or original
    if op.upper() not in OPS and op.upper() not in CLICK_LIKE:
        raise where.error(f"unknown operation '{op}' (CLICK, TYPE or SELECT; original_op may say HOVER or ENTER)",
                          prefix + ("op" if "op" in operation else "original_op"))
    kind = OPS.get(op.upper(), "click")
    value = optional(operation, "value", str, where, "", prefix)
    return Operation(kind, value if kind in ("type", "select") else "", original)


def _four(values, where: Where, name: str) -> tuple[float, float, float, float]:
    if not isinstance(values, (list, tuple)) or len(values) != 4 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        raise where.error(f"expected x, y, width, height, got {shown(values)}", name)
    numbers = [finite(v) for v in values]
    if None in numbers:
        raise where.error(f"a coordinate in {shown(values)} is not a finite number of pixels", name)
    return tuple(numbers)  # type: ignore[return-value]


def _corners(numbers: tuple[float, float, float, float], raw, where: Where, name: str):
    x, y, w, h = numbers
    if w < 0 or h < 0:
        raise where.error(f"negative width or height in {shown(raw)}", name)
    return x, y, x + w, y + h


def _numbers(value, where: Where, name: str) -> tuple[float, float, float, float]:
    """{x, y, width, height}, [x, y, width, height] or "x,y,width,height" as four numbers."""
    if isinstance(value, dict):
        keys = ("x", "y", "width", "height") if "x" in value else ("left", "top", "width", "height")
        for key in keys:
            if key not in value:
                raise where.error("missing", f"{name}.{key}")
        return _four([value[k] for k in keys], where, name)
    if isinstance(value, str):
        try:
            value = [float(part) for part in value.replace(" ", "").split(",")]
        except ValueError:
            raise where.error(f"expected \"x,y,width,height\", got {value[:80]!r}", name) from None
    return _four(value, where, name)


def xywh(value, where: Where, name: str) -> tuple[float, float, float, float]:
    """A box given as left, top, width, height (any of the three spellings) -> x1, y1, x2, y2."""
    return _corners(_numbers(value, where, name), value, where, name)


def _attributes(candidate) -> dict:
    """A candidate's attributes, whether the candidate or its attributes are objects or JSON text
    (Multimodal-Mind2Web stores each candidate as JSON text, whose `attributes` is JSON text again)."""
    if isinstance(candidate, str):
        candidate = _json_object(candidate)
    if not isinstance(candidate, dict):
        return {}
    attributes = candidate.get("attributes", candidate)
    if isinstance(attributes, str):
        attributes = _json_object(attributes)
    return attributes if isinstance(attributes, dict) else {}


def _json_object(text: str) -> dict:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, a 5,000-digit number, thousands of nested lists
        return {}
    return value if isinstance(value, dict) else {}


def candidate_box(candidates, where: Where, name: str) -> tuple[tuple | None, str, dict]:
    """(box, the field it came from, the element's tag and backend_node_id) of the first positive candidate
    drawn on the page; (None, name, {}) when none is. `name` is the action's field."""
    if candidates is None:
        return None, name, {}
    if not isinstance(candidates, list):
        raise where.error(f"expected a list, got {shown(candidates)}", name + ".pos_candidates")
    for i, candidate in enumerate(candidates):
        attributes = _attributes(candidate)
        rect = attributes.get("bounding_box_rect")
        if rect is None:
            continue
        field = f"{name}.pos_candidates[{i}].bounding_box_rect"
        numbers = _numbers(rect, where, field)
        if numbers == NOT_RENDERED:
            continue
        details = {"backend_node_id": attributes["backend_node_id"]} if "backend_node_id" in attributes else {}
        tag = (_json_object(candidate) if isinstance(candidate, str) else candidate).get("tag")  # a dict here
        if isinstance(tag, str):
            details["tag"] = tag
        return _corners(numbers, rect, where, field), field, details
    return None, name, {}


def element_text(reprs, index: int) -> str:
    """The element's text from action_reprs[index] ("[button]  Search -> CLICK" -> "Search")."""
    if isinstance(reprs, list) and 0 <= index < len(reprs):
        return repr_text(reprs[index])
    return ""


def repr_text(text) -> str:
    match = _REPR.match(text) if isinstance(text, str) else None
    return match.group(1) if match else ""


def task_meta(obj: dict) -> dict:
    return {k: obj[k] for k in META_KEYS if obj.get(k) is not None}


def gold(operation: Operation, box, field: str, text: str, details: dict, uid: str) -> BoxRecord:
    meta = {"action_uid": uid} if uid else {}
    if operation.original_op:
        meta["original_op"] = operation.original_op
    meta.update(details)
    if box is None:
        meta["no_box"] = True
    return BoxRecord(label="gold", box=box, action_type=operation.kind, element_text=text,
                     type_text=operation.value, meta=meta, field=field)


def refuse_fractions(boxes: list[tuple[Where, str, tuple]], images: list[tuple[Path | None, bytes | None]]) -> None:
    """Refuse a file whose every box lies within 0-1.5 while its screenshots are far larger: those boxes are
    fractions of the image, and read as pixels they would be specks in its corner that every later check
    accepts. `boxes`: (where, field, x1 y1 x2 y2) of one file's boxes; `images`: its pictures (file or bytes)."""
    if not any(x2 > x1 and y2 > y1 for _, _, (x1, y1, x2, y2) in boxes):  # zero-size boxes at the origin
        return
    if (found := looks_normalised(boxes, images)) is None:
        return
    where, field, box, size = found
    raise where.error(
        f"every box of this file lies within 0-{NORMALISED_AT_MOST:g} (the first: "
        f"{shown([json_number(v) for v in box])}), yet its screenshots are {size[0]}x{size[1]} pixels: these "
        "are fractions of the image, but Mind2Web's boxes are pixels of the screenshot and no option reads "
        "fractions here. Convert them to pixels (x and width times the image's width, y and height times its "
        "height) and import again", field)


# ---------- writing ----------

OUT_OPS = {"click": "CLICK", "type": "TYPE", "select": "SELECT", "hover": "CLICK"}
_ORIGINAL_OPS = {"CLICK": ("CLICK", "HOVER", "ENTER"), "TYPE": ("TYPE",), "SELECT": ("SELECT",)}
LEFT_OUT = ("boxes and steps Mind2Web cannot hold (a step keeps its first gold CLICK, TYPE or SELECT action; "
            "other boxes, other action types and steps without a gold action are left out)")


@dataclass
class ActionOut:
    """One step written as a Mind2Web action."""

    step: object  # store.queries.StepBundle
    box: object  # its gold ActionBox
    uid: str
    operation: dict  # {original_op, value, op}, Mind2Web's key order

    @property
    def xywh(self) -> tuple | None:
        b = self.box
        return (b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1) if b.has_box else None


def operation_out(box) -> dict | None:
    op = OUT_OPS.get(box.action_type)
    if op is None:
        return None
    original = "HOVER" if box.action_type == "hover" else box.meta.get("original_op")
    if original not in _ORIGINAL_OPS[op]:  # an edit changed the action type: the record's original is stale
        original = op
    return {"original_op": original, "value": box.type_text if op in ("TYPE", "SELECT") else "", "op": op}


def action_uid(bundle, index: int, box) -> str:
    """The action's uid as imported, or a stable one made from the episode's id and the step's place."""
    for meta in (bundle.steps[index].step.meta, box.meta):
        uid = meta.get("action_uid") if isinstance(meta, dict) else None
        if isinstance(uid, str) and uid:
            return uid
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"screenlab:{bundle.episode.key}:{index}"))


def actions_out(bundle) -> tuple[list[ActionOut], int]:
    """An episode's steps as Mind2Web actions, and how many boxes and steps the format cannot hold."""
    actions, left_out = [], 0
    for index, sb in enumerate(bundle.steps):
        golds = [b for b in sb.boxes if b.label == "gold"]
        written = next((b for b in golds if operation_out(b) is not None), None)
        left_out += len(sb.boxes) - (written is not None)
        if written is None:
            left_out += not sb.boxes  # a step with no action at all is left out too
            continue
        actions.append(ActionOut(sb, written, action_uid(bundle, index, written), operation_out(written)))
    return actions, left_out


def rect_text(numbers) -> str:
    """x, y, width, height as Mind2Web writes bounding_box_rect: "60,1701,146.203125,34"."""
    return ",".join(str(json_number(v)) for v in numbers)


def candidate_out(action: ActionOut) -> list[dict]:
    """The target as a one-element pos_candidates (none for an action without a box)."""
    if action.xywh is None:
        return []
    meta = action.box.meta
    attributes = {"bounding_box_rect": rect_text(action.xywh)}
    candidate = {"tag": meta.get("tag") if isinstance(meta.get("tag"), str) else ""}
    if meta.get("backend_node_id") is not None:
        attributes = {"backend_node_id": meta["backend_node_id"], **attributes}
        candidate["backend_node_id"] = meta["backend_node_id"]
    candidate["attributes"] = json.dumps(attributes, ensure_ascii=False)
    return [candidate]


def _tail(text: str) -> str:
    return text.split("->", 1)[1].strip() if "->" in text else ""


def reprs_out(episode, actions: list[ActionOut]) -> list[str]:
    """action_reprs: each action's imported line while it still says the same element and operation (the lines of
    actions left out skipped), else one made afresh from the box."""
    stored = (episode.meta.get("mind2web") or {}).get("action_reprs")
    stored = [s for s in stored if isinstance(s, str)] if isinstance(stored, list) else []
    out, at = [], 0
    for a in actions:
        op = a.operation
        tail = op["original_op"] + (f": {op['value']}" if op["op"] in ("TYPE", "SELECT") else "")
        found = next((j for j in range(at, len(stored))
                      if repr_text(stored[j]) == a.box.element_text and _tail(stored[j]) == tail), None)
        if found is None:
            role = a.box.meta.get("tag") if isinstance(a.box.meta.get("tag"), str) else "element"
            out.append(f"[{role}]  {a.box.element_text} -> {tail}")
        else:
            out.append(stored[found])
            at = found + 1
    return out


def task_out(episode, key: str, actions: list[ActionOut]) -> dict:
    """A task's fields other than its actions, in Mind2Web's order."""
    meta = episode.meta.get("mind2web") or {}
    task = {k: meta[k] for k in ("website", "domain", "subdomain") if isinstance(meta.get(k), str)}
    task.update({"annotation_id": key, "confirmed_task": episode.goal, "action_reprs": reprs_out(episode, actions)})
    return task
