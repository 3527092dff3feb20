"""Fuzzing every importer (issue 20): broken records, extreme numbers, encodings, images and paths.

Each importer of the format registry gets a small valid dataset in its real layout, written here. A case
mutates it (wrong types, missing fields, 1e400, a 5,000-digit integer, NaN, 5,000 nested lists, invalid
UTF-8, lone surrogates, a Latin-1 file name, truncated and bomb images, `..`, absolute paths, symbolic
links out of the folder, pipes) and imports it into a project that already holds work. What a user must
see, whatever the input:
  - the import succeeds, or it is refused with a FormatError naming a file of the dataset, in words (no
    Python type names, object addresses or errno codes), and the project is exactly as it was;
  - nothing else: no other exception, no hang;
  - a picture outside the imported folder never ends up in the project;
  - what an import accepted can be exported again (a lone surrogate once broke every later export).

The generator is driven by a random.Random: hypothesis' `randoms()` here, a seeded one in
benchmarks/reliability.py, which runs thousands of cases per importer and prints the counts.
"""

from __future__ import annotations

import base64
import copy
import gzip
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import struct
import tempfile
import time
import traceback
import zlib
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from sqlalchemy import select

from desktop_app.formats import FORMATS, importers
from desktop_app.formats.ingest import ImportOptions
from desktop_app.formats.records import FormatError
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.store.models import Episode, Screen
from desktop_app.store.project import Project

from conftest import snapshot

# --------------------------------------------------------------------------- the dataset a case writes


class Raw:
    """JSON text written as it is: numbers and nestings json.dumps cannot produce (1e400, NaN, 5,000 digits)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return f"Raw({self.text[:20]!r}{'...' if len(self.text) > 20 else ''})"


def dump_json(value) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {dump_json(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dump_json(v) for v in value) + "]"
    return json.dumps(value)


@dataclass
class Json:
    value: Any


@dataclass
class Jsonl:
    lines: list


@dataclass(frozen=True)
class Picture:
    size: tuple[int, int]
    color: tuple[int, int, int]
    fmt: str = "PNG"


@dataclass(frozen=True)
class Link:
    """A symbolic link; `to` is relative to the case's root (data/ is imported, outside/ is not)."""

    to: str


@dataclass(frozen=True)
class Fifo:
    pass


@dataclass(frozen=True)
class Folder:
    pass


_PICTURES: dict[Picture, bytes] = {}


def picture_bytes(p: Picture) -> bytes:
    if p not in _PICTURES:
        out = io.BytesIO()
        Image.new("RGB", p.size, p.color).save(out, format=p.fmt)
        _PICTURES[p] = out.getvalue()
    return _PICTURES[p]


def sha_of(p: Picture) -> str:
    return hashlib.sha256(picture_bytes(p)).hexdigest()


# The picture a hostile record reaches for outside the imported folder; no dataset holds these pixels.
SECRET = Picture((40, 30), (13, 37, 42))
OUTSIDE = "outside/secret.png"


@dataclass
class Dataset:
    files: dict[str, Any]  # path under data/ -> Json | Jsonl | str (text) | bytes | Picture | Link | Fifo | Folder
    target: str  # what is imported, under data/ ("" is data/ itself)
    refs: list[tuple[str, tuple]] = field(default_factory=list)  # (file, path in its JSON) of each image name
    log: list[str] = field(default_factory=list)  # the mutations applied, for failure messages

    def write(self, root: Path) -> Path:
        data = root / "data"
        outside = root / OUTSIDE
        outside.parent.mkdir(parents=True, exist_ok=True)
        outside.write_bytes(picture_bytes(SECRET))
        data.mkdir(parents=True, exist_ok=True)
        for name, content in self.files.items():
            path = data / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Link):
                os.symlink(os.path.relpath(root / content.to, path.parent), path)
            elif isinstance(content, Fifo):
                os.mkfifo(path)
            elif isinstance(content, Folder):
                path.mkdir(exist_ok=True)
            else:
                path.write_bytes(serialize(content))
        return data / self.target if self.target else data


def serialize(content) -> bytes:
    if isinstance(content, Json):
        return dump_json(content.value).encode("utf-8", "surrogatepass")
    if isinstance(content, Jsonl):
        return "".join(dump_json(line) + "\n" for line in content.lines).encode("utf-8", "surrogatepass")
    if isinstance(content, Picture):
        return picture_bytes(content)
    if isinstance(content, str):
        return content.encode("utf-8", "surrogatepass")
    return content


# --------------------------------------------------------------------------- one valid sample per importer


def _images() -> Dataset:
    return Dataset({"shots/a.png": Picture((64, 48), (200, 10, 10)),
                    "shots/sub/b.png": Picture((64, 48), (10, 200, 10)),
                    "shots/c.jpg": Picture((64, 48), (10, 10, 200), "JPEG")}, "shots")


def _screenlab() -> Dataset:
    x, y = Picture((120, 90), (250, 250, 240)), Picture((120, 90), (30, 30, 30))
    action = {"box": [10, 10, 60, 40], "label": "gold", "element_text": "OK", "action_type": "click",
              "type_text": "", "source": "import", "author": "ann", "meta": {"note": "n"},
              "created_at": "2024-05-01T10:00:00+02:00", "updated_at": "2024-05-02T10:00:00+00:00", "version": 2}
    lines = [
        {"v": 1, "id": "e1", "goal": "Close the pop-up", "scenario": "popup", "split": "test",
         "review_status": "accepted", "meta": {"persona": "a shopper", "n": 3},
         "steps": [{"image": "images/x.png", "platform": "web", "screen_source": "x.html", "screen_meta": {"w": 1},
                    "instruction": "Tap OK", "meta": {"k": [1, 2]},
                    "actions": [action, {"box": None, "label": "other", "element_text": "Later"}]}],
         "reviews": [{"kind": "ambiguous_task", "generator": "g", "prompt": "p", "payload": {"a": 1},
                      "status": "pending", "reviewer": "", "reason": "", "created_at": "2024-05-01T10:00:00Z"}]},
        {"id": "e2", "goal": "Buy shoes", "steps": [
            {"image": "images/y.png", "sha256": sha_of(y), "actions": [{"box": [0, 0, 120, 90], "label": "distracted"}]},
            {"image": "images/x.png"}]},
    ]
    return Dataset({"episodes.jsonl": Jsonl(lines), "images/x.png": x, "images/y.png": y}, "",
                   [("episodes.jsonl", (0, "steps", 0, "image")), ("episodes.jsonl", (1, "steps", 0, "image"))])


def _envdistraction() -> Dataset:
    lines = [
        {"target": "popupbox_phone_2b", "goal": "Browse the newest phones.", "persona": "An ordinary person.",
         "distractor": {"Actual purpose": "newsletter", "Expression": "Get 20% off"},
         "modified_file": "modified_html_0001.html", "tone": "urgent",
         "label": {"gold": ["Button <icon-cross>", ["No thanks", [50, 60, 62, 64]]],
                   "bad": [["Sign me up", [30, 60, 48, 64]]]}},
        {"target": "text_google", "goal": "Find the Python docs.", "persona": "An ordinary person.",
         "distractor": {"Actual purpose": "fake download", "Expression": "Download"},
         "modified_file": "modified_html_0002.html",
         "label": {"gold": ["Click result 1, Python docs", ["Click result 2, Tutorial", "<oos>"]],
                   "bad": ["Click result 3, Download"], "other": [["Search box", [1, 1, 40, 4]], "Click right bar"]}},
    ]
    return Dataset({"out.jsonl": Jsonl(lines),
                    "images/popupbox_phone_2b/modified_html_0001.png": Picture((100, 70), (90, 90, 200)),
                    "images/text_google/modified_html_0002.png": Picture((100, 70), (200, 90, 90))}, "out.jsonl",
                   [("out.jsonl", (0, "modified_file")), ("out.jsonl", (1, "modified_file"))])


def _screenspot() -> Dataset:
    records = [
        {"img_filename": "mob.png", "bbox": [10, 20, 30, 15], "instruction": "open settings",
         "data_type": "icon", "data_source": "android"},
        {"id": "pro_1", "img_filename": "mob.png", "img_size": [100, 80], "bbox": [5, 5, 50, 40],
         "instruction": "tap the tab bar", "platform": "windows", "ui_type": "text", "application": "vscode"},
    ]
    return Dataset({"screenspot_mobile.json": Json(records), "screenspot_imgs/mob.png": Picture((100, 80), (5, 90, 5))},
                   "screenspot_mobile.json",
                   [("screenspot_mobile.json", (0, "img_filename")), ("screenspot_mobile.json", (1, "img_filename"))])


def _androidcontrol() -> Dataset:
    shots = [f"shots/7_{i}.png" for i in range(4)]
    episode = {"episode_id": 7, "goal": "Set an alarm called Gym",
               "step_instructions": ["open the clock", "tap add", "type the name"], "screenshots": shots,
               "actions": [{"action_type": "open_app", "app_name": "Clock"},
                           json.dumps({"action_type": "click", "x": 30, "y": 40}),
                           {"action_type": "input_text", "text": "Gym"}],
               "element_boxes": [None, [20, 30, 40, 50], [5, 60, 95, 75]], "accessibility_trees": ["<x/>"] * 4}
    files = {f"ep_{n}.json": Json(episode) for n in (7,)}
    files.update({s: Picture((100, 80), (i * 40, 60, 7)) for i, s in enumerate(shots)})
    # a converter's JSONL line: one-element lists, actions as JSON strings, screenshot_path with the sizes
    converted = {"index": 0, "episode_id": [8], "goal": ["Open the Clock"], "step_instructions": ["go home"],
                 "screenshot_path": ["shots/7_0.png", "shots/7_1.png"], "screenshot_widths": [100, 100],
                 "screenshot_heights": [80, 80], "actions": ['{"action_type":"click","x":12,"y":70}'],
                 "accessibility_tree": ["", ""], "node_info": [[], []]}
    files["data.jsonl"] = Jsonl([converted])
    return Dataset(files, "", [("ep_7.json", ("screenshots", i)) for i in range(3)]
                   + [("data.jsonl", (0, "screenshot_path", 0))])


def _mind2web() -> Dataset:
    tasks = [
        {"annotation_id": "task-a", "confirmed_task": "Find a flight to Paris", "website": "united",
         "domain": "Travel", "subdomain": "Airlines",
         "action_reprs": ["[combobox]  From -> TYPE: NYC", "[button]  Search -> CLICK"],
         "actions": [
             {"action_uid": "u1", "operation": {"op": "TYPE", "original_op": "TYPE", "value": "NYC"},
              "screenshot": "shots/a0.png", "bbox": {"x": 10, "y": 30, "width": 20, "height": 4}},
             {"action_uid": "u2", "operation": {"op": "CLICK", "original_op": "ENTER", "value": ""},
              "screenshot": "shots/a1.png",
              "pos_candidates": [{"tag": "button", "attributes": json.dumps(
                  {"backend_node_id": "136", "bounding_box_rect": "50.5,31,12,4"})}]}]},
        {"annotation_id": "task-b", "confirmed_task": "Sort by price", "website": "shop",
         "actions": [{"action_uid": "u3", "operation": {"op": "SELECT", "value": "Price"},
                      "screenshot": "shots/b0.png", "bbox": [1, 2, 30, 3.6]}]},
    ]
    return Dataset({"mind2web.json": Json(tasks), "shots/a0.png": Picture((128, 100), (255, 255, 255)),
                    "shots/a1.png": Picture((128, 100), (128, 128, 128)),
                    "shots/b0.png": Picture((128, 100), (0, 0, 128))}, "mind2web.json",
                   [("mind2web.json", (0, "actions", 0, "screenshot")), ("mind2web.json", (1, "actions", 0, "screenshot"))])


def _naviplus() -> Dataset:
    steps = [{"index": i, "image": f"images/s{i}.png", "width": 100, "height": 80, "platform": "android",
              "instruction": f"step {i}", "step_kind": ["transactional", "informative"][i],
              "action": {"action_type": ["click", "type"][i], "x": 30, "y": 20, "box": [20, 10, 40, 30],
                         "text": [None, "42"][i], "direction": None, "app_name": None, "element": "Size",
                         "meta": {"why": "w"}}} for i in range(2)]
    line = {"episode": "shoes-amb", "source_episode": "shoes", "original_task": "Buy shoes in size 42",
            "ambiguous_task": "Buy shoes", "review_status": "pending", "checklist": {"ok": True}, "llm": {"m": "x"},
            "qa_pairs": [{"ask_step": 1, "removed_step": 1, "question": "Which size?", "answer": "42",
                          "overlap": "size 42", "llm": {"q": "Which size?"}}],
            "steps": steps}
    return Dataset({"naviplus.jsonl": Jsonl([line]), "images/s0.png": Picture((100, 80), (1, 2, 3)),
                    "images/s1.png": Picture((100, 80), (3, 2, 1))}, "naviplus.jsonl",
                   [("naviplus.jsonl", (0, "steps", 0, "image")), ("naviplus.jsonl", (0, "steps", 1, "image"))])


def _unified_trajectory() -> Dataset:
    tap = "Action Type: DualPoint, Touch Point: (0.5000, 0.3000), Lift Point: (0.5000, 0.3000)"
    log = [{"uid": "t1", "intent": "Turn on Wi-Fi", "response": "", "policy": "good",
            "steps": [{"img": "t1_0.png", "other": {"action": tap}}, {"img": "t1_1.png", "other": {"action": tap}}]},
           {"uid": 2, "intent": "Open a page", "steps": [{"img": "t2_0.png", "other": {
               "raw_action": "click [12] where [12] is button 'Go'"}}]}]
    evals = [{"dataset_path": "data", "task_idx": 0, "task_uid": "t1", "user_uid": "ann", "annotation": "Success",
              "comment": "fine"},
             {"dataset_path": "data", "task_idx": -1, "task_uid": "", "user_uid": "ann", "annotation": ""}]
    return Dataset({"trajectory_log.json": Json(log), "images/t1_0.png": Picture((60, 100), (9, 9, 9)),
                    "images/t1_1.png": Picture((60, 100), (99, 9, 9)), "images/t2_0.png": Picture((60, 100), (9, 99, 9)),
                    "captions/cap.json": Json({"t1_0": "a settings list", "t2_0": "a web page"}),
                    "evals/humans.jsonl": Jsonl(evals)}, "",
                   [("trajectory_log.json", (0, "steps", 0, "img")), ("trajectory_log.json", (1, "steps", 0, "img"))])


_DUMP = ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n<hierarchy rotation=\"0\">\n"
         '  <node index="0" text="" class="android.widget.FrameLayout" package="p" clickable="false" '
         'bounds="[0,0][200,100]">\n'
         '    <node index="0" text="Go" resource-id="p:id/go" class="android.widget.Button" package="p" '
         'clickable="true" bounds="[10,10][90,50]" />\n  </node>\n</hierarchy>\n')


def _sphinx() -> Dataset:
    element = {"text": "Go", "resource-id": "p:id/go", "class": "android.widget.Button", "bounds": "[10,10][90,50]"}
    task = "groundtruth/7/demo/"
    files: dict[str, Any] = {
        task + "0.png": Picture((200, 100), (70, 70, 70)), task + "0.xml": _DUMP,
        task + "1.png": Picture((200, 100), (71, 70, 70)), task + "1.xml": _DUMP,
        task + "meta.json": Json([{"type": "click", "element": element}, {"type": "stop", "element": None}]),
        task + "evaluator.json": Json([{"type": "findaction", "match_type": "equal",
                                        "match_rules": {"action_type": "click"}, "check_type": "equal",
                                        "check_rules": {"text": "Go"}}]),
        task + "activities.json": Json([["p", "p.Main"], ["p", "p.Done"]]),
        task + "skills.json": Json(["tap"]),
        "task_info.json": Json([{"id": 7, "description": "Press Go", "apps": ["demo"]}]),
        "lowlevel_tasks.json": Json([{"id": 3, "app": "demo", "instruction": "Type hi",
                                      "groundtruth": {"type": "input", "message": "hi", "element": element}}]),
        "lowlevel_tasks/3.png": Picture((200, 100), (72, 70, 70)), "lowlevel_tasks/3.xml": _DUMP,
        "questions.json": Json([{"question": "What does the user want?", "options": {
            "A": "an alarm", "B": "a timer", "C": "a note", "D": "a call"}, "ground_truth": "B",
            "question_type": "intention_level", "app_name": ["clock"], "app_cateory": None, "author": "a"}]),
    }
    return Dataset(files, "")


def _screenspot_parquet() -> Dataset:
    """The HF mirror's layout (rootsautomation/ScreenSpot): data/*.parquet, 0-1 boxes, the picture in each row."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    shot = picture_bytes(Picture((96, 54), (20, 20, 90)))
    rows = [{"file_name": "pc_1.png", "bbox": [0.5, 0.25, 0.75, 0.5], "instruction": "close this window",
             "data_type": "icon", "data_source": "windows", "image": {"bytes": shot, "path": None}},
            {"file_name": "pc_1.png", "bbox": [0.0, 0.0, 1.0, 0.2], "instruction": "open the menu",
             "data_type": "text", "data_source": "windows", "image": {"bytes": shot, "path": None}}]
    out = pa.BufferOutputStream()
    pq.write_table(pa.Table.from_pylist(rows), out)
    return Dataset({"data/test-00000-of-00001.parquet": out.getvalue().to_pybytes()}, "")


def _vlmevalkit_tsv() -> Dataset:
    """VLMEvalKit's ScreenSpot TSV: every field quoted, row 2 naming row 1's base64 screenshot by its index."""
    shot = base64.b64encode(picture_bytes(Picture((100, 80), (90, 20, 20)))).decode()
    lines = ['"index"\t"image"\t"image_path"\t"question"\t"bbox"\t"data_type"\t"data_source"',
             f'"1"\t"{shot}"\t"web_1.png"\t"view the details of the item"\t"[4, 60, 30, 10]"\t"text"\t"shop"',
             '"2"\t"1"\t"web_1.png"\t"view the previous photo"\t"[9, 7, 8, 13]"\t"icon"\t"shop"']
    return Dataset({"ScreenSpot_Web.tsv": "\n".join(lines) + "\n"}, "ScreenSpot_Web.tsv")


def _omniact() -> Dataset:
    """OmniACT's layout: train.json naming each task's text file, screenshot and box file, relative to its folder."""
    split = {"2849": {"task": "data/tasks/desktop/ibooks/task_1.30.txt", "image": "data/data/desktop/ibooks/screen_1.png",
                      "box": "data/metadata/desktop/boxes/ibooks/screen_1.json"},
             "17": {"task": "data/tasks/web/asics/task_1.2.txt", "image": "data/data/web/asics/screen_1.png",
                    "box": "data/metadata/web/boxes/asics/screen_1.json"}}
    files: dict[str, Any] = {
        "train.json": Json(split),
        "data/tasks/desktop/ibooks/task_1.30.txt": "Task: See the upcoming titles\nOutput Script:\npyautogui.moveTo(60.5,40.0)\n",
        "data/tasks/web/asics/task_1.2.txt": ("Task: Search for shoes\nOutput Script:\npyautogui.click(10.0,8.0)\n"
                                              'pyautogui.write("shoes")\npyautogui.press("enter")\n'),
        "data/metadata/desktop/boxes/ibooks/screen_1.json": Json({
            "upcoming": {"top_left": [41.0, 30.0], "bottom_right": [80.0, 50.0], "label": "upcoming"},
            "bar": {"top_left": [0.0, 20.0], "bottom_right": [120.0, 60.0], "label": "bar"}}),
        "data/metadata/web/boxes/asics/screen1_boxes.json": Json({
            "logo": {"top_left": [2.0, 2.0], "bottom_right": [30.0, 14.0], "label": "logo"}}),
        "data/data/desktop/ibooks/screen_1.png": Picture((120, 90), (40, 40, 40)),
        "data/data/web/asics/screen1.png": Picture((120, 90), (60, 40, 40)),
    }
    return Dataset(files, "", [("train.json", ("2849", "image")), ("train.json", ("17", "image"))])


def _mind2web_seeclick() -> Dataset:
    """SeeClick's layout: mind2web_data_<split>.json, bbox = x, y, width, height, mind2web_imgs/{task}-{action}.jpg;
    action u3 has no bbox (a step without a box: its screenshot is there)."""
    tasks = [
        {"website": "united", "domain": "Travel", "subdomain": "Airlines", "annotation_id": "task-a",
         "confirmed_task": "Find a flight to Paris",
         "action_reprs": ["[combobox]  From -> TYPE: NYC", "[button]  Search -> HOVER", "[div]  Deals -> CLICK"],
         "actions": [
             {"action_uid": "u1", "operation": {"original_op": "TYPE", "value": "NYC", "op": "TYPE"},
              "pos_candidates": [{"tag": "input", "attributes": json.dumps(
                  {"backend_node_id": "136", "bounding_box_rect": "10,1330,20,4"}), "backend_node_id": "136"}],
              "bbox": {"x": 10, "y": 30, "width": 20, "height": 4}},
             {"action_uid": "u2", "operation": {"original_op": "HOVER", "value": "", "op": "CLICK"},
              "pos_candidates": [], "bbox": {"x": 50.5, "y": 31.25, "width": 12, "height": 4}},
             {"action_uid": "u3", "operation": {"original_op": "CLICK", "value": "", "op": "CLICK"},
              "pos_candidates": []}]},
    ]
    files: dict[str, Any] = {"mind2web_data_test_task.json": Json(tasks)}
    files.update({f"mind2web_imgs/task-a-u{i}.jpg": Picture((128, 100), (40 * i, 90, 90), "JPEG") for i in (1, 2, 3)})
    return Dataset(files, "mind2web_data_test_task.json")


def _mind2web_parquet() -> Dataset:
    """Multimodal-Mind2Web's shards: one row per action, operation and candidates as JSON text, the screenshot's
    bytes in the row; the task's two actions sit in two shards, the second first."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def row(uid, index, operation, rect):
        attributes = json.dumps({"backend_node_id": "7", "bounding_box_rect": rect})
        return {"action_uid": uid, "operation": json.dumps(operation),
                "pos_candidates": [json.dumps({"tag": "button", "attributes": attributes})] if rect else [],
                "website": "shop", "domain": "Shopping", "subdomain": "General", "annotation_id": "task-p",
                "confirmed_task": "Sort the results by price", "action_reprs": ["[button]  Sort -> CLICK",
                                                                                 "[select]  Order -> SELECT: Price"],
                "target_action_index": str(index), "target_action_reprs": "",
                "screenshot": {"bytes": picture_bytes(Picture((96, 120), (10 * index, 30, 30), "JPEG")), "path": None}}

    def shard(rows) -> bytes:
        out = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pylist(rows), out)
        return out.getvalue().to_pybytes()

    return Dataset({
        "test_task-00000-of-00002.parquet": shard([row("p2", 1, {"original_op": "SELECT", "value": "Price",
                                                                  "op": "SELECT"}, "5,60.5,80,20")]),
        "test_task-00001-of-00002.parquet": shard([row("p1", 0, {"original_op": "CLICK", "value": "", "op": "CLICK"},
                                                       "-1,-1,-1,-1")]),
    }, "")


def _androidcontrol_tfrecord() -> Dataset:
    """The release's shards: a GZIP one and a plain one, each a tf.train.Example episode with its PNGs inside."""
    from desktop_app.formats.tf_example import serialize
    from desktop_app.formats.tfrecord import frame

    def episode(number: int, action: str) -> bytes:
        return frame(serialize({
            "episode_id": ("int64", [number]), "goal": ("bytes", [b"Open the Clock"]),
            "screenshots": ("bytes", [picture_bytes(Picture((100, 80), (number, i * 50, 9))) for i in range(2)]),
            "screenshot_widths": ("int64", [100, 100]), "screenshot_heights": ("int64", [80, 80]),
            "actions": ("bytes", [action.encode()]), "step_instructions": ("bytes", [b"tap it"]),
            "accessibility_trees": ("bytes", [b"", b""])}))

    return Dataset({"android_control-00000-of-00002": gzip.compress(episode(1, '{"action_type":"click","x":30,"y":40}')),
                    "android_control-00001-of-00002": episode(2, '{"action_type":"input_text","text":"Gym"}')}, "")


def _aitw() -> Dataset:
    """SeeClick's aitw_data_test.json: categories of episodes, images named without '.png' under aitw_images/."""
    step = {"img_filename": "general/e1_0", "goal": "Turn on wifi", "ep_id": "e1", "step": 0, "action_type_id": 4,
            "action_type_text": "click", "touch": [0.62, 0.5], "lift": [0.61, 0.48], "type_text": "",
            "annot_position": [0.45, 0.52, 0.06, 0.2]}
    typed = {"img_filename": "general/e1_1", "goal": "Turn on wifi", "ep_id": "e1", "step": 1, "action_type_id": 3,
             "action_type_text": "type", "touch": [-1.0, -1.0], "lift": [-1.0, -1.0], "type_text": "wifi",
             "annot_position": []}
    done = {"img_filename": "install/e2_0.png", "goal": "Install an app", "action_type_id": 10,
            "action_type_text": "status task complete"}
    return Dataset({"aitw_data_test.json": Json({"general": [[step, typed]], "install": [[done]]}),
                    "aitw_images/general/e1_0.png": Picture((90, 160), (10, 80, 10)),
                    "aitw_images/general/e1_1.png": Picture((90, 160), (80, 10, 10)),
                    "aitw_images/install/e2_0.png": Picture((90, 160), (10, 10, 80))}, "aitw_data_test.json",
                   [("aitw_data_test.json", ("general", 0, 0, "img_filename")),
                    ("aitw_data_test.json", ("install", 0, 0, "img_filename"))])


def _gui_odyssey() -> Dataset:
    """The release's layout: annotations/<episode>.json beside screenshots/, coordinates on a 0-1000 grid."""
    episode = {"episode_id": "0141", "device_info": {"h": 160, "w": 90, "device_name": "Small Phone"},
               "task_info": {"category": "General_Tool", "app": ["Chrome"], "task": "t", "instruction": "Find it"},
               "step_length": 4, "steps": [
                   {"step": 0, "screenshot": "0141_0.png", "action": "CLICK", "info": [[719, 762], [719, 762]],
                    "ps": "[(719, 762)]", "sam2_bbox": [600, 700, 800, 820], "low_level_instruction": "Tap it"},
                   {"step": 1, "screenshot": "0141_1.png", "action": "SCROLL", "info": [[563, 867], [522, 401]],
                    "ps": "[(563, 867)]"},
                   {"step": 2, "screenshot": "0141_2.png", "action": "TEXT", "info": "weather", "ps": ""},
                   {"step": 3, "screenshot": "0141_2.png", "action": "CLICK", "info": "KEY_BACK", "ps": ""}]}
    files: dict[str, Any] = {"annotations/0141.json": Json(episode)}
    files.update({f"screenshots/0141_{i}.png": Picture((90, 160), (i * 60, 30, 30)) for i in range(3)})
    return Dataset(files, "", [("annotations/0141.json", ("steps", i, "screenshot")) for i in range(3)])


def _labelme() -> Dataset:
    def annotation(image: str, shapes: list) -> Json:
        return Json({"version": "5.7.0", "flags": {"checked": True}, "shapes": shapes, "imagePath": image,
                     "imageData": None, "imageHeight": 48, "imageWidth": 64})
    rect = {"label": "gold", "points": [[40.5, 30], [10, 5]], "group_id": 2, "description": "OK",
            "shape_type": "rectangle", "flags": {"hard": False}, "attributes": {"state": "on"}}
    square = {"label": "Distracted", "points": [[2, 2], [20, 2], [20, 9], [2, 9]], "shape_type": "oriented_rectangle"}
    return Dataset({"shots/a.json": annotation("a.png", [rect, square]), "shots/a.png": Picture((64, 48), (9, 9, 90)),
                    "shots/sub/b.json": annotation("b.png", [{"label": "other", "points": [[1, 1], [63, 47]],
                                                              "shape_type": "rectangle"}]),
                    "shots/sub/b.png": Picture((64, 48), (90, 9, 9))}, "shots",
                   [("shots/a.json", ("imagePath",)), ("shots/sub/b.json", ("imagePath",))])


def _label_studio() -> Dataset:
    rect = {"id": "r1", "type": "rectanglelabels", "from_name": "label", "to_name": "image", "original_width": 100,
            "original_height": 80, "image_rotation": 0, "meta": {"text": ["the OK button"]},
            "value": {"x": 10, "y": 12.5, "width": 30, "height": 25, "rotation": 0, "rectanglelabels": ["Gold"]}}
    state = {"id": "r1", "type": "choices", "from_name": "state", "to_name": "image", "value": {"choices": ["on"]}}
    page = {"id": "p", "type": "choices", "from_name": "page", "to_name": "image", "value": {"choices": ["login"]}}
    tasks = [
        {"id": 7, "data": {"image": "images/a.png", "goal": "Sign in"},
         "annotations": [{"result": [rect, state, page], "was_cancelled": False, "ground_truth": True,
                          "completed_by": {"id": 1, "email": "ann@example.com"}},
                         {"result": [], "was_cancelled": True}], "predictions": []},
        {"id": 8, "data": {"image": "/data/local-files/?d=b.png"},
         "annotations": [{"result": [{"id": "q", "type": "rectangle", "value": {"x": 0, "y": 0, "width": 100,
                                                                               "height": 100}},
                                     {"id": "q", "type": "labels", "value": {"labels": ["other"]}}]}]},
    ]
    return Dataset({"export.json": Json(tasks), "images/a.png": Picture((100, 80), (1, 120, 1)),
                    "b.png": Picture((100, 80), (120, 1, 1))}, "export.json",
                   [("export.json", (0, "data", "image")), ("export.json", (1, "data", "image"))])


def _cvat_images() -> Dataset:
    xml = ('<?xml version="1.0" encoding="utf-8"?>\n<annotations>\n  <version>1.1</version>\n  <meta>\n    <task>\n'
           '      <labels>\n        <label>\n          <name>gold</name>\n        </label>\n      </labels>\n'
           '    </task>\n  </meta>\n'
           '  <image id="0" name="a.png" width="100" height="80" subset="train">\n'
           '    <box label="gold" source="manual" occluded="1" xtl="10.5" ytl="20" xbr="60" ybr="45.25" z_order="2">\n'
           '      <attribute name="state">disabled</attribute>\n      <attribute name="element_text">OK</attribute>\n'
           '    </box>\n    <tag label="login_page" source="manual">\n    </tag>\n  </image>\n'
           '  <image id="1" name="sub/b.png" width="100" height="80">\n'
           '    <box label="Other" occluded="0" xtl="0" ytl="0" xbr="100" ybr="80" rotation="0.00">\n    </box>\n'
           '  </image>\n</annotations>\n')
    return Dataset({"annotations.xml": xml, "images/a.png": Picture((100, 80), (200, 200, 9)),
                    "images/sub/b.png": Picture((100, 80), (9, 200, 200))}, "")


def _yolo() -> Dataset:
    return Dataset({"data.yaml": "train: images/train\nval: images/val\nnames:\n  0: gold\n  1: distracted\n  2: other\n",
                    "classes.txt": "gold\ndistracted\nother\n",
                    "images/train/a.png": Picture((100, 80), (3, 3, 150)),
                    "labels/train/a.txt": "0 0.5 0.5 0.2 0.25\n1 0.25 0.3 0.1 0.1\n",
                    "images/val/b.jpg": Picture((100, 80), (150, 3, 3), "JPEG"),
                    "labels/val/b.txt": "2 0.5 0.5 1 1 0.87\n"}, "")


def _voc() -> Dataset:
    """Pascal VOC as datumaro and CVAT write it: Annotations/, JPEGImages/, ImageSets/Main/, labelmap.txt."""
    def annotation(name: str, objects: str) -> str:
        return (f"<annotation>\n  <folder>JPEGImages</folder>\n  <filename>{name}</filename>\n  <size>\n"
                "    <width>100</width>\n    <height>80</height>\n    <depth>3</depth>\n  </size>\n"
                f"  <segmented>0</segmented>\n{objects}</annotation>\n")
    gold = ("  <object>\n    <name>Gold</name>\n    <pose>Unspecified</pose>\n    <truncated>0</truncated>\n"
            "    <difficult>1</difficult>\n    <bndbox>\n      <xmin>10.5</xmin>\n      <ymin>20</ymin>\n"
            "      <xmax>60</xmax>\n      <ymax>45.25</ymax>\n    </bndbox>\n    <attributes>\n      <attribute>\n"
            "        <name>role</name>\n        <value>gold</value>\n      </attribute>\n      <attribute>\n"
            "        <name>element_text</name>\n        <value>OK</value>\n      </attribute>\n    </attributes>\n"
            "  </object>\n")
    other = ("  <object>\n    <name>Other</name>\n    <bndbox>\n      <xmin>0</xmin>\n      <ymin>0</ymin>\n"
             "      <xmax>100</xmax>\n      <ymax>80</ymax>\n    </bndbox>\n  </object>\n")
    return Dataset({"Annotations/a.xml": annotation("a.png", gold), "Annotations/b.xml": annotation("b.jpg", other),
                    "JPEGImages/a.png": Picture((100, 80), (200, 9, 200)),
                    "JPEGImages/b.jpg": Picture((100, 80), (9, 200, 9), "JPEG"),
                    "ImageSets/Main/train.txt": "a\n", "ImageSets/Main/val.txt": "b\n",
                    "labelmap.txt": "# label:color_rgb:parts:actions\nGold:::\nOther:::\n"}, "")


def _coco() -> Dataset:
    doc = {"info": {"description": "a test"},
           "images": [{"id": 1, "file_name": "images/a.png", "width": 100, "height": 80, "episode": "e1", "step": 0,
                       "goal": "Open the menu"},
                      {"id": 2, "file_name": "b.png", "width": 100, "height": 80}],
           "categories": [{"id": 0, "name": "gold"}, {"id": 5, "name": "Other", "supercategory": "action"}],
           "annotations": [{"id": 1, "image_id": 1, "category_id": 0, "bbox": [10, 20, 30.5, 25], "area": 762.5,
                            "iscrowd": 0, "segmentation": [[10, 20, 40, 20, 40, 45]],
                            "attributes": {"occluded": False, "rotation": 0.0, "element_text": "Menu"}},
                           {"id": 2, "image_id": 2, "category_id": 5, "bbox": [0, 0, 100, 80], "iscrowd": 1}]}
    return Dataset({"annotations.json": Json(doc), "images/a.png": Picture((100, 80), (60, 3, 60)),
                    "b.png": Picture((100, 80), (3, 60, 3))}, "annotations.json",
                   [("annotations.json", ("images", 0, "file_name")), ("annotations.json", ("images", 1, "file_name"))])


SAMPLES: dict[str, Callable[[], Dataset]] = {
    "images": _images, "screenlab": _screenlab, "envdistraction": _envdistraction, "screenspot": _screenspot,
    "androidcontrol": _androidcontrol, "mind2web": _mind2web, "naviplus": _naviplus,
    "unified-trajectory": _unified_trajectory, "sphinx": _sphinx,
    "screenspot-parquet": _screenspot_parquet, "vlmevalkit-tsv": _vlmevalkit_tsv, "omniact": _omniact,
    "mind2web-seeclick": _mind2web_seeclick, "mind2web-parquet": _mind2web_parquet,
    "androidcontrol-tfrecord": _androidcontrol_tfrecord, "aitw": _aitw, "gui-odyssey": _gui_odyssey,
    "labelme": _labelme, "label-studio": _label_studio, "cvat-images": _cvat_images, "yolo": _yolo, "coco": _coco,
    "voc": _voc,
}

# --------------------------------------------------------------------------- mutations

DEEP_LISTS = Raw("[" * 5000 + "]" * 5000)
DEEP_OBJECTS = Raw('{"a": ' * 3000 + "0" + "}" * 3000)
WRONG_TYPES = [None, True, 0, -1, 1.5, "", "x", [], {}, ["a"], {"a": 1}]
HUGE_NUMBERS = [Raw("1e400"), Raw("-1e400"), Raw("9" * 5000), Raw("-" + "9" * 5000), Raw("9" * 400), 2 ** 63,
                -(2 ** 63) - 1, 2 ** 64, 1e308, Raw("1" + "0" * 30 + ".5")]
NOT_FINITE = [Raw("NaN"), Raw("Infinity"), Raw("-Infinity")]
HOSTILE_TEXT = ["\ud800", "a\udcff", "a\x00b", "\u202eSUBMIT", "x" * 100_000, "../../../etc/passwd", "/etc/passwd",
                "C:\\Windows\\win.ini", "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "9" * 400,
                "1e400,0,1,1", "[0,0][" + "9" * 400 + ",5]", "[0,0][1,1]", "NaN", "<script>alert(1)</script>",
                "Action Type: DualPoint, Touch Point: (1e400, 0), Lift Point: (0, 9" + "9" * 400 + ")",
                '{"action_type": "click", "x": 1e400}', "Success", "\n", " ", "é" * 10]
HOSTILE = WRONG_TYPES + HUGE_NUMBERS + NOT_FINITE + HOSTILE_TEXT + [DEEP_LISTS, DEEP_OBJECTS]


def _nodes(value, path=()):
    """Every node of a JSON value with its path (the root too)."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nodes(v, (*path, i))


def _get(value, path):
    for part in path:
        if not isinstance(value, (dict, list)):  # an earlier mutation replaced a container with a value
            raise TypeError(f"no {part!r} in {type(value).__name__}")
        value = value[part]
    return value


def _json_entries(ds: Dataset) -> list[str]:
    return sorted(name for name, c in ds.files.items() if isinstance(c, (Json, Jsonl)))


def _root_of(content):
    return content.value if isinstance(content, Json) else content.lines


def _pick_node(ds: Dataset, rng: random.Random, want: Callable[[Any], bool] = lambda v: True,
               root_too: bool = False):
    """(file, path) of a random JSON node that `want`s; None when there is none."""
    choices = []
    for name in _json_entries(ds):
        root = _root_of(ds.files[name])
        for path, value in _nodes(root):
            if (path or root_too) and not (isinstance(ds.files[name], Jsonl) and len(path) == 0) and want(value):
                choices.append((name, path))
    return rng.choice(choices) if choices else None


def _set(ds: Dataset, name: str, path: tuple, value) -> None:
    content = ds.files[name]
    if not path:
        content.value = value
        return
    parent = _get(_root_of(content), path[:-1])
    parent[path[-1]] = value


def _replace_node(ds, rng, values, want=lambda v: True, what="value"):
    picked = _pick_node(ds, rng, want) or _pick_node(ds, rng)
    if picked is None:
        return None
    name, path = picked
    value = rng.choice(values)
    _set(ds, name, path, value)
    return f"{name} {_show_path(path)} = {value!r:.60}"


def _show_path(path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path) or "(root)"


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def m_wrong_type(ds, rng):
    return _replace_node(ds, rng, WRONG_TYPES)


def m_hostile(ds, rng):
    return _replace_node(ds, rng, HOSTILE)


def m_huge_number(ds, rng):
    return _replace_node(ds, rng, HUGE_NUMBERS, _is_number)


def m_not_finite(ds, rng):
    return _replace_node(ds, rng, NOT_FINITE, _is_number)


def m_deep_nesting(ds, rng):
    return _replace_node(ds, rng, [DEEP_LISTS, DEEP_OBJECTS])


def m_lone_surrogate(ds, rng):
    picked = _pick_node(ds, rng, lambda v: isinstance(v, str)) or _pick_node(ds, rng)
    if picked is None:
        return None
    name, path = picked
    old = _get(_root_of(ds.files[name]), path)
    _set(ds, name, path, (old if isinstance(old, str) else "") + rng.choice(["\ud800", "\udfff", "\udce9"]))
    return f"{name} {_show_path(path)} += lone surrogate"


def m_missing_field(ds, rng):
    picked = _pick_node(ds, rng, lambda v: isinstance(v, dict) and v, root_too=True)
    if picked is None:
        return None
    name, path = picked
    obj = _get(_root_of(ds.files[name]), path)
    key = rng.choice(sorted(obj))
    del obj[key]
    return f"{name} {_show_path(path)}: removed {key!r}"


def m_extra_field(ds, rng):
    picked = _pick_node(ds, rng, lambda v: isinstance(v, dict), root_too=True)
    if picked is None:
        return None
    name, path = picked
    _get(_root_of(ds.files[name]), path)["zz_" + rng.choice(["x", "\ud800", "é", ""])] = rng.choice(HOSTILE)
    return f"{name} {_show_path(path)}: unknown key added"


def m_list_change(ds, rng):
    picked = _pick_node(ds, rng, lambda v: isinstance(v, list) and v, root_too=True)
    if picked is None:
        return None
    name, path = picked
    items = _get(_root_of(ds.files[name]), path)
    how = rng.choice(["empty", "drop", "repeat", "reverse"])
    if how == "empty":
        items.clear()
    elif how == "drop":
        items.pop(rng.randrange(len(items)))
    elif how == "repeat":
        items.append(copy.deepcopy(rng.choice(items)))
    else:
        items.reverse()
    return f"{name} {_show_path(path)}: list {how}"


def _text_entries(ds: Dataset) -> list[str]:
    return sorted(n for n, c in ds.files.items() if isinstance(c, (Json, Jsonl, str)) or
                  (isinstance(c, bytes) and not n.endswith((".png", ".jpg"))))


def _as_bytes(ds, rng) -> tuple[str, bytes] | None:
    names = _text_entries(ds)
    if not names:
        return None
    name = rng.choice(names)
    return name, serialize(ds.files[name])


def m_invalid_utf8(ds, rng):
    got = _as_bytes(ds, rng)
    if got is None:
        return None
    name, data = got
    at = rng.randrange(len(data) + 1)
    bad = rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xe9", b"\x80\x80"])
    ds.files[name] = data[:at] + bad + data[at:]
    return f"{name}: {bad!r} at byte {at}"


def m_other_encoding(ds, rng):
    got = _as_bytes(ds, rng)
    if got is None:
        return None
    name, data = got
    text = data.decode("utf-8", "surrogateescape").replace("e", "é", 1)
    encoding = rng.choice(["latin-1", "utf-16", "utf-8-sig", "utf-8 CRLF"])
    if encoding == "utf-8 CRLF":
        ds.files[name] = text.replace("\n", "\r\n").encode("utf-8", "surrogateescape")
    else:
        ds.files[name] = text.encode(encoding, "replace" if encoding == "latin-1" else "surrogatepass")
    return f"{name}: saved as {encoding}"


def m_truncated_file(ds, rng):
    got = _as_bytes(ds, rng)
    if got is None:
        return None
    name, data = got
    at = rng.randrange(len(data) + 1)
    ds.files[name] = data[:at]
    return f"{name}: cut at byte {at} of {len(data)}"


def m_file_kind(ds, rng):
    names = _text_entries(ds)
    if not names:
        return None
    name = rng.choice(names)
    kind = rng.choice(["missing", "folder", "pipe", "link out"])
    if kind == "missing":
        del ds.files[name]
    else:
        ds.files[name] = {"folder": Folder(), "pipe": Fifo(), "link out": Link(OUTSIDE)}[kind]
    return f"{name}: {kind}"


def _png_header(width: int, height: int) -> bytes:
    """A valid PNG header claiming a size, with almost no pixel data: a decompression bomb's shape."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


def _pictures(ds: Dataset) -> list[str]:
    return sorted(n for n, c in ds.files.items() if isinstance(c, Picture))


def m_bad_image(ds, rng):
    names = _pictures(ds)
    if not names:
        return None
    name = rng.choice(names)
    data = picture_bytes(ds.files[name])
    kind = rng.choice(["truncated", "empty", "text", "bomb 100000x100000", "header 10000x10000", "gif", "pipe",
                       "folder", "missing"])
    ds.files[name] = {
        "truncated": lambda: data[: max(1, len(data) // 2)], "empty": lambda: b"",
        "text": lambda: b"not a picture at all", "bomb 100000x100000": lambda: _png_header(100_000, 100_000),
        "header 10000x10000": lambda: _png_header(10_000, 10_000),
        "gif": lambda: b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", "pipe": Fifo, "folder": Folder,
        "missing": lambda: None,
    }[kind]()
    if ds.files[name] is None:
        del ds.files[name]
    return f"{name}: {kind} image"


def m_latin1_name(ds, rng):
    """A picture saved under a Latin-1 file name (`caf\\xe9.png` as bytes), as old zips and Windows tools do."""
    names = _pictures(ds)
    if not names:
        return None
    name = rng.choice(names)
    folder, _, base = name.rpartition("/")
    stem, _, ext = base.rpartition(".")
    new = (folder + "/" if folder else "") + os.fsdecode(b"caf\xe9-" + os.fsencode(stem) + b"." + os.fsencode(ext))
    ds.files[new] = ds.files.pop(name)
    for file, path in ds.refs:  # a record that named it now names it in UTF-8 (what JSON can hold)
        if file in ds.files and isinstance(ds.files[file], (Json, Jsonl)):
            try:
                value = _get(_root_of(ds.files[file]), path)
            except (KeyError, IndexError, TypeError):
                continue
            if isinstance(value, str) and value.endswith(base):
                _set(ds, file, path, value[: -len(base)] + f"café-{stem}.{ext}")
    return f"{name} renamed to Latin-1 bytes"


def _pick_ref(ds, rng):
    live = []
    for file, path in ds.refs:
        if file in ds.files and isinstance(ds.files[file], (Json, Jsonl)):
            try:
                value = _get(_root_of(ds.files[file]), path)
            except (KeyError, IndexError, TypeError):
                continue
            if isinstance(value, str):
                live.append((file, path, value))
    return rng.choice(live) if live else None


def m_path_outside(ds, rng):
    """An image named by `..`, an absolute path or a link, reaching the picture outside the folder."""
    kind = rng.choice(["..", "absolute", "link", "linked folder", "inside .."])
    ref = _pick_ref(ds, rng)
    if ref is None or kind == "link" and rng.random() < 0.5:
        names = _pictures(ds)
        if not names:
            return None
        name = rng.choice(names)
        ds.files[name] = Link(OUTSIDE)
        return f"{name}: a link to {OUTSIDE}"
    file, path, value = ref
    if kind == "..":
        new = rng.choice(["../outside/secret.png", "images/../../outside/secret.png", "../../" + OUTSIDE])
    elif kind == "absolute":
        new = "ROOT/" + OUTSIDE  # made absolute when written (Dataset.write knows the root)
    elif kind == "link":
        ds.files["linked.png"] = Link(OUTSIDE)
        new = "linked.png"
    elif kind == "linked folder":
        ds.files["linked"] = Link("outside")
        new = "linked/secret.png"
    else:  # stays inside: must still import
        head = value.split("/")[0]
        new = f"{head}/../{value}" if "/" in value else f"./{value}"
    _set(ds, file, path, new)
    return f"{file} {_show_path(path)} = {new!r}"


_XML_BOMB = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol">'
             + "".join(f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10 if i > 1 else "&lol;" * 10}">'
                       for i in range(1, 10))
             + ']>\n<hierarchy><node text="&lol9;" bounds="[0,0][1,1]"/></hierarchy>\n')


def m_xml(ds, rng):
    names = sorted(n for n, c in ds.files.items() if isinstance(c, str) and n.endswith(".xml"))
    if not names:
        return None
    name = rng.choice(names)
    kind = rng.choice(["bomb", "deep", "bounds", "not xml", "text node"])
    text = ds.files[name]
    ds.files[name] = {
        "bomb": _XML_BOMB,
        "deep": "<hierarchy>" + '<node bounds="[0,0][1,1]">' * 5000 + "</node>" * 5000 + "</hierarchy>",
        "bounds": text.replace("[10,10][90,50]", rng.choice(["[0,0][" + "9" * 400 + ",5]", "[-5,0][1,1]",
                                                             "[1e400,0][1,1]", "[\ud800]", ""])),
        "not xml": "{\"hierarchy\": []}",
        "text node": text.replace('text="Go"', 'text="' + "\u202e" + "x" * 50_000 + '"'),
    }[kind]
    return f"{name}: xml {kind}"


MUTATIONS: dict[str, Callable[[Dataset, random.Random], str | None]] = {
    "wrong type": m_wrong_type, "missing field": m_missing_field, "unknown field": m_extra_field,
    "hostile value": m_hostile, "huge number": m_huge_number, "NaN / Infinity": m_not_finite,
    "deep nesting": m_deep_nesting, "lone surrogate": m_lone_surrogate, "list change": m_list_change,
    "invalid UTF-8": m_invalid_utf8, "other encoding": m_other_encoding, "truncated file": m_truncated_file,
    "file kind": m_file_kind, "bad image": m_bad_image, "Latin-1 file name": m_latin1_name,
    "path outside": m_path_outside, "xml": m_xml,
}


def mutate(ds: Dataset, rng: random.Random, kinds: list[str] | None = None, count: int = 1) -> Dataset:
    """Apply `count` mutations (of `kinds`, or any) that fit the dataset; the log says which."""
    names = kinds or sorted(MUTATIONS)
    for _ in range(count):
        for _attempt in range(10):
            done = MUTATIONS[rng.choice(names)](ds, rng)
            if done:
                ds.log.append(done)
                break
    return ds


# --------------------------------------------------------------------------- running one case


class Hung(BaseException):
    """The case ran past its deadline (a BaseException, so no `except Exception` in the code under test eats it)."""


@contextmanager
def deadline(seconds: float):
    def expire(_signum, _frame):
        raise Hung(f"no answer after {seconds:g} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Outcome:
    kind: str  # imported | refused | crashed | changed | hung | unlocated | read outside | unexportable
    detail: str = ""
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return self.kind in ("imported", "refused")


# What a message must not show a user: NoneType, object addresses, errno codes, tracebacks, NUL characters.
_INTERNALS = re.compile(r"NoneType|<class |object at 0x|\[Errno|Traceback|\x00")


def template_project(folder: Path) -> Path:
    """A project that already holds work (one imported screen), so 'unchanged' means something."""
    shots = folder / "existing"
    shots.mkdir(parents=True)
    (shots / "old.png").write_bytes(picture_bytes(Picture((32, 32), (128, 0, 128))))
    with Project.init(folder / "template") as project:
        import_path(project, shots, "images")
    return folder / "template"


def run_case(fmt: str, ds: Dataset, root: Path, template: Path, seconds: float = 20.0) -> Outcome:
    """Write the dataset under root, import it into a copy of the template project, and judge what happened."""
    target = ds.write(root)
    for file, path in ds.refs:  # absolute paths are only known now
        content = ds.files.get(file)
        if isinstance(content, (Json, Jsonl)):
            try:
                value = _get(_root_of(content), path)
            except (KeyError, IndexError, TypeError):
                continue
            if isinstance(value, str) and value.startswith("ROOT/"):
                _set(ds, file, path, str(root / value[5:]))
                (root / "data" / file).write_bytes(serialize(content))
    shutil.copytree(template, root / "project")
    started = time.perf_counter()
    with Project.open(root / "project") as project:
        before = snapshot(project)
        try:
            with deadline(seconds):
                import_path(project, target, fmt)
        except Hung as exc:
            return Outcome("hung", str(exc), time.perf_counter() - started)
        except FormatError as exc:
            took = time.perf_counter() - started
            message = str(exc)
            if snapshot(project) != before:
                return Outcome("changed", message, took)
            if str(root / "data") not in message and os.fsdecode(root / "data") not in message:
                return Outcome("unlocated", f"the message names no file of the dataset: {message[:300]}", took)
            if _INTERNALS.search(message):
                return Outcome("unlocated", f"the message shows Python internals: {message[:300]}", took)
            return Outcome("refused", message, took)
        except Exception as exc:  # noqa: BLE001 - counting every other exception is the point
            tb = "".join(traceback.format_exception(exc, limit=-4))
            return Outcome("crashed", f"{type(exc).__name__}: {str(exc)[:300]}\n{tb[-1500:]}",
                           time.perf_counter() - started)
        took = time.perf_counter() - started
        with project.reading() as session:
            hashes = set(session.execute(select(Screen.sha256)).scalars())
        if sha_of(SECRET) in hashes:
            return Outcome("read outside", "the picture outside the imported folder was imported", took)
        try:
            export_path(project, root / "export", "screenlab")
            if FORMATS[fmt].write and fmt != "screenlab":
                export_path(project, root / "export-own", fmt)
        except FormatError:
            pass  # a refused export says why; what must not happen is a crash on data an import accepted
        except Exception as exc:  # noqa: BLE001
            return Outcome("unexportable", f"{type(exc).__name__}: {str(exc)[:300]}", took)
        return Outcome("imported", "", took)


def one_case(fmt: str, rng: random.Random, kinds: list[str] | None = None, count: int = 1,
             template: Path | None = None, seconds: float = 20.0) -> tuple[Dataset, Outcome]:
    ds = mutate(SAMPLES[fmt](), rng, kinds, count)
    with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
        outcome = run_case(fmt, ds, Path(tmp), template, seconds)
    return ds, outcome


def describe(fmt: str, ds: Dataset, outcome: Outcome) -> str:
    return f"[{fmt}] {' | '.join(ds.log)} -> {outcome.kind}: {outcome.detail}"


# --------------------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return template_project(tmp_path_factory.mktemp("fuzz-template"))


def test_every_importer_has_a_sample_that_imports(template):
    """The samples are real: unmutated, each imports (so a refusal below is the mutation's doing)."""
    assert sorted(SAMPLES) == sorted(importers())
    for fmt in SAMPLES:
        ds, outcome = one_case(fmt, random.Random(0), count=0, template=template)
        assert outcome.kind == "imported", describe(fmt, ds, outcome)


# The inputs the issue names, each tried on every importer (the place in the dataset drawn by hypothesis).
NAMED = ["wrong type", "missing field", "huge number", "NaN / Infinity", "deep nesting", "lone surrogate",
         "invalid UTF-8", "bad image", "Latin-1 file name", "path outside", "file kind"]


def _applies(fmt: str, kind: str) -> bool:
    return any(MUTATIONS[kind](SAMPLES[fmt](), random.Random(seed)) for seed in range(5))


@pytest.mark.parametrize("fmt, kind", [(f, k) for f in sorted(SAMPLES) for k in NAMED if _applies(f, k)])
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False))
def test_each_named_bad_input_is_imported_or_refused_cleanly(template, fmt, kind, rng):
    ds, outcome = one_case(fmt, rng, [kind], template=template)
    assert outcome.clean, describe(fmt, ds, outcome)


# The suite's budget: 30 stacked mutations per format (about 2 s each; the suite's goal is 8 minutes on two
# cores). SCREENLAB_FUZZ_EXAMPLES=100 (or more) for a deeper pass; benchmarks/reliability.py's import fuzzer
# runs thousands per format with a time limit each. Hypothesis keeps any failing example in .hypothesis/ and
# tries it first next time, so a find is not lost with the smaller budget.
STACKED_EXAMPLES = int(os.environ.get("SCREENLAB_FUZZ_EXAMPLES", "30"))


@pytest.mark.parametrize("fmt", sorted(SAMPLES))
@settings(max_examples=STACKED_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False), count=st.integers(1, 3))
def test_stacked_random_mutations_are_imported_or_refused_cleanly(template, fmt, rng, count):
    ds, outcome = one_case(fmt, rng, count=count, template=template)
    assert outcome.clean, describe(fmt, ds, outcome)


# --------------------------------------------------------------------------- what the fuzzing found, pinned
# Each of these raised, hung or read outside the folder before the fixes of issue 20.


def _write_jsonl(folder: Path, lines: list[str], image=Picture((120, 90), (9, 99, 9))) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "x.png").write_bytes(picture_bytes(image))
    (folder / "episodes.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return folder / "episodes.jsonl"


GOOD = '{"id": "e1", "goal": "g", "steps": [{"image": "x.png", "actions": [{"box": [1, 2, 30, 40], "label": "gold"}]}]}'


@pytest.mark.parametrize("bad, message", [
    ('{"id": "e2", "goal": "g", "steps": [{"image": "x.png", "actions": [{"box": [1, 2, 30, %s], "label": "gold"}]}]}'
     % ("9" * 5000), r"line 2: a number with 5,000 digits; no coordinate, size or id is that long \(column 87\)"),
    ('{"id": "e2", "goal": ' + "[" * 5000 + "]" * 5000 + "}", r"line 2: lists or objects nested more than 100 levels"),
    ('{"id": "e2", "goal": "g", "steps": [{"image": "x.png", "actions": [{"box": [1, 2, 30, %s], "label": "gold"}]}]}'
     % ("9" * 400), r"line 2, field 'steps\[0\].actions\[0\].box': box \[1, 2, 30, 9999.*not a finite number of pixels"),
    ('{"id": "e2", "goal": "g", "steps": [{"image": "x.png", "actions": [{"box": [1, 2, 30, 40], "label": "gold", '
     '"version": 9223372036854775808}]}]}', r"line 2, field 'steps\[0\].actions\[0\].version': expected a version"),
    ('{"id": "e2", "goal": "g", "steps": [{"image": "x.png", "actions": [{"box": [1, 2, 30, 40], "label": "gold", '
     '"created_at": "9999-12-31T23:59:59-23:59"}]}]}',
     r"line 2, field 'steps\[0\].actions\[0\].created_at': time .* lies past the year 9999"),
    ('{"id": "e2", "goal": "g", "steps": [{"image": "' + "x" * 5000 + '.png"}]}',
     r"line 2, field 'steps\[0\].image': image not found; looked for .*xxx\.\.\.xxx"),
    ('{"id": "e2", "goal": "g", "reviews": [{"kind": 7}], "steps": [{"image": "x.png"}]}',
     r"line 2, field 'reviews\[0\].kind': expected text, got int"),
], ids=["5,000-digit integer", "5,000 nested lists", "400-digit coordinate", "version past 2**63",
        "time past 9999 in UTC", "5,000-character file name", "review kind a number"])
def test_numbers_nesting_and_names_python_cannot_handle_are_refused_with_their_place(project, tmp_path, bad, message):
    path = _write_jsonl(tmp_path / "data", [GOOD, bad])
    before = snapshot(project)
    with pytest.raises(FormatError, match=message) as caught:
        import_path(project, path, "screenlab")
    assert str(caught.value).startswith(f"{path}, line 2")
    assert snapshot(project) == before


def test_a_pipe_among_the_dataset_files_is_refused_instead_of_waited_on(project, tmp_path):
    episode = _androidcontrol()
    root = tmp_path / "ac"
    episode.write(root)
    os.mkfifo(root / "data" / "late.json")  # globbed with the episodes: reading it would wait for a writer
    before = snapshot(project)
    with deadline(20), pytest.raises(FormatError, match=r"late.json: not a regular file \(a pipe or a device\?\)"):
        import_path(project, root / "data", "androidcontrol")
    trajectories = tmp_path / "ut"
    _unified_trajectory().write(trajectories)
    os.mkfifo(trajectories / "data" / "captions" / "more.json")
    with deadline(20), pytest.raises(FormatError, match=r"more.json: not a regular file"):
        import_path(project, trajectories / "data", "unified-trajectory")
    assert snapshot(project) == before


def test_a_latin1_file_name_in_a_folder_of_screenshots_imports_under_a_name_that_can_be_stored(project, tmp_path):
    """b"caf\\xe9.png" (a Latin-1 zip, an old Windows tool) used to be refused as 'a lone surrogate'."""
    folder = tmp_path / "shots"
    folder.mkdir()
    (folder / os.fsdecode(b"caf\xe9.png")).write_bytes(picture_bytes(Picture((64, 48), (1, 2, 3))))
    (folder / "plain.png").write_bytes(picture_bytes(Picture((64, 48), (3, 2, 1))))
    assert import_path(project, folder, "images").episodes == 2
    with project.reading() as session:
        keys = sorted(session.execute(select(Episode.key)).scalars())
        sources = sorted(session.execute(select(Screen.source)).scalars())
    assert keys == sources == ["caf\\xe9.png", "plain.png"]  # the odd byte shown as ls -b shows it
    export_path(project, tmp_path / "out", "screenlab")  # and the project still exports


def test_links_out_of_the_imported_folder_are_refused_by_name(project, tmp_path):
    secret = tmp_path / "private" / "secret.png"
    secret.parent.mkdir()
    secret.write_bytes(picture_bytes(SECRET))
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "a.png").write_bytes(picture_bytes(Picture((64, 48), (7, 7, 7))))
    (shots / "b.png").symlink_to(secret)
    before = snapshot(project)
    with pytest.raises(FormatError, match=r"links to pictures outside this folder.*\n  .*b\.png -> .*secret\.png"):
        import_path(project, shots, "images")

    sphinx = tmp_path / "sphinx"
    _sphinx().write(sphinx)
    screen = sphinx / "data" / "groundtruth" / "7" / "demo" / "1.png"
    screen.unlink()
    screen.symlink_to(secret)
    with pytest.raises(FormatError, match=r"1\.png is a link to a file outside .*demo, which an import does not read"):
        import_path(project, sphinx / "data", "sphinx")

    grounding = tmp_path / "grounding"
    _sphinx().write(grounding)
    tasks = grounding / "data" / "lowlevel_tasks.json"
    (grounding / "outside" / "secret.xml").write_text(_DUMP)
    tasks.write_text(tasks.read_text().replace('"id": 3', '"id": "../../outside/secret"'))
    with pytest.raises(FormatError, match=r"field '\[0\]\.id': id '\.\./\.\./outside/secret' cannot name the screen"):
        import_path(project, grounding / "data", "sphinx")
    assert snapshot(project) == before


def test_text_no_file_can_store_is_refused_before_a_reader_uses_it(project, tmp_path):
    """A lone surrogate in a Sphinx question crashed the reader (it hashes the question for the probe's id)."""
    root = tmp_path / "sphinx"
    _sphinx().write(root)
    questions = root / "data" / "questions.json"
    questions.write_text(questions.read_text().replace("What does the user want?", "What\\udfff"))
    before = snapshot(project)
    with pytest.raises(FormatError, match=r"questions\.json, field '\[0\]\.question': a text holds a lone surrogate"):
        import_path(project, root / "data", "sphinx")
    assert snapshot(project) == before


def test_a_file_far_larger_than_any_picture_is_refused_before_it_is_read(project, tmp_path):
    """A 3 GB sparse 'PNG' was read whole into memory before any check; the size alone says it is no screenshot."""
    folder = tmp_path / "shots"
    folder.mkdir()
    (folder / "ok.png").write_bytes(picture_bytes(Picture((64, 48), (5, 5, 5))))
    with open(folder / "huge.png", "wb") as fh:  # sparse: takes no disk, and no memory unless read
        fh.write(_png_header(100, 100))
        fh.truncate(200 * 1024 * 1024)
    before = snapshot(project)
    with pytest.raises(FormatError, match=r"huge\.png: the file is 209,715,200 bytes, more than a picture of at most "
                                          r"1,000,000 pixels takes"):
        import_path(project, folder, "images", ImportOptions(max_pixels=1_000_000))
    assert snapshot(project) == before
