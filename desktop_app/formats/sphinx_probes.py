"""Sphinx knowledge probes (`questions.json`): questions about a user's goal or an app, with an answer key.

    [{question, options: {A: text, B: ..., ...}, ground_truth: "B",
      question_type: intention_level | app_level, app_name: [names], app_cateory: "Tool, Time", author}]

(`app_cateory` is spelled so in the authors' file, and written back so.) Each question becomes an episode of
kind "probe" (no screen): goal = the question, episode.meta.capability.probe = options, key, level ("goal"
for intention_level, "app" for app_level), apps, category, author; its steps are the ways it is asked, as
the authors ask it: one multiple-choice question, then one yes/no question per option
(step.meta.ask = "mcq" | "bq", with the option; whether it is the key is read from the episode).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from desktop_app.formats.records import EpisodeRecord, StepRecord, Where, got, optional, read_json, require

FILE = "questions.json"
LEVELS = {"intention_level": "goal", "app_level": "app"}
OPTIONS = ("A", "B", "C", "D")
SCENARIO = "probe"


def probe_key(question: str) -> str:
    """A stable id from the question's words (the file has none): re-importing skips what is there."""
    return "sphinx-probe-" + hashlib.sha256(" ".join(question.split()).encode()).hexdigest()[:12]


def read_probes(path: Path) -> list[EpisodeRecord]:
    data = read_json(path)
    where = Where(path)
    if not isinstance(data, list):
        raise where.error("expected a list of questions {question, options, ground_truth, question_type, ...}")
    records = []
    for i, item in enumerate(data):
        prefix = f"[{i}]."
        question = require(item, "question", str, where, prefix)  # kept as written: export gives it back
        if not question.strip():
            raise where.error("empty question", prefix + "question")
        options = require(item, "options", dict, where, prefix)
        # four options A-D, as the benchmark asks them (one MCQ and a yes/no question per option)
        if sorted(options) != list(OPTIONS) or not all(isinstance(v, str) and v.strip() for v in options.values()):
            raise where.error("expected the four options A, B, C and D, each a text", prefix + "options")
        answer = require(item, "ground_truth", str, where, prefix)
        if answer not in options:
            raise where.error(f"the answer {answer!r} is not one of the options ({', '.join(options)})",
                              prefix + "ground_truth")
        kind = require(item, "question_type", str, where, prefix)
        if kind not in LEVELS:
            raise where.error(f"unknown question type {kind!r} (intention_level or app_level)",
                              prefix + "question_type")
        apps = optional(item, "app_name", (list, str), where, [], prefix)
        apps = [apps] if isinstance(apps, str) else apps
        if not all(isinstance(a, str) for a in apps):
            raise where.error("expected app names as text", prefix + "app_name")
        # category and author kept as written (the authors' file has null categories): export gives them back
        for name in ("app_cateory", "author"):
            if item.get(name) is not None and not isinstance(item[name], str):
                raise where.error(f"expected text or null, got {got(item[name])}", prefix + name)
        records.append(probe_record(where, question, {k: options[k] for k in OPTIONS}, answer, LEVELS[kind],
                                    apps, item.get("app_cateory"), item.get("author"), prefix))
    return records


def probe_record(where: Where, question: str, options: dict[str, str], answer: str, level: str,
                 apps: list[str] = (), category: str | None = "", author: str | None = "",
                 field: str = "") -> EpisodeRecord:
    """One question as a probe episode: its steps are the ways it is asked (whether a yes/no question's
    option is the key is read from the episode's key at scoring time, so editing the key is one edit)."""
    probe = {"options": dict(options), "answer": answer, "level": level, "apps": list(apps), "category": category,
             "author": author}
    steps = [StepRecord(image=None, platform="android", meta={"ask": "mcq"}, field=field)]
    steps += [StepRecord(image=None, platform="android", meta={"ask": "bq", "option": letter}, field=field)
              for letter in OPTIONS]
    return EpisodeRecord(key=probe_key(question), where=where, goal=question, scenario=SCENARIO, kind="probe",
                         meta={"capability": {"probe": probe}}, steps=steps)


def probe_json(goal: str, probe: dict) -> dict:
    """One question back in the authors' shape."""
    kind = next(k for k, v in LEVELS.items() if v == probe["level"])
    return {"question": goal, "options": probe["options"], "ground_truth": probe["answer"], "question_type": kind,
            "app_name": probe.get("apps", []), "app_cateory": probe.get("category"), "author": probe.get("author")}
