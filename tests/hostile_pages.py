"""Hostile text where ScreenLab renders pages and texts (issue 20), counted against a local listener.

Payloads: a <script>, an <img> pointing at the listener, CSS url() (a <style> block and an inline style) pointing
at it, a javascript: link, an RTL override and a 100 KB string ending in an <img> at the listener. A listener
on 127.0.0.1 counts every connection made to it: a page that reached out would show there.

  synthesised pages   every text field an LLM writes for each scenario and pop-up layout (the pop-up's texts,
                      the fake search result, the made-up product, the chat lure) set to each payload and
                      rendered in Chromium through synth/save.render_scene, the function generation and the
                      reviewers' text edits use; plus generate() end to end against the fake LLM server
                      answering with payloads. Rendered escaped: the page holds no element more than it holds
                      with the bank's text (no <script>, <img>, <style> or <a> more; the chat drops the oldest
                      rows a long message pushes out) and no src, href, style, on* attribute, script or style
                      sheet on it names the listener.
  VAF pages           payloads as variant-table values (they go into the page's CSS: refused by name), and a
                      saved page carrying the payloads as its own markup, made into a study with its scripts
                      off and on: nothing may reach the listener (the page's requests are aborted and listed).
  trajectory texts    a trajectory's task, policy, key, final response and action texts (what an agent or a
                      dataset wrote) shown in the labeller's display (Qt): shown as the text it is.

Shared by tests/test_hostile_pages.py (one payload per field) and benchmarks/reliability.py (every payload).
"""

from __future__ import annotations

import copy
import json
import random
import socketserver
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from openai_server import FakeOpenAI, Response

# (scenario, pop-up layout) and, per shape, the fields of Scene.content an LLM writes (synth/llm_scenes.py)
SHAPES = {
    ("popup", "two_options"): ["popup.headline", "popup.body", "popup.accept", "popup.reject"],
    ("popup", "submit_input"): ["popup.headline", "popup.body", "popup.input_placeholder", "popup.submit"],
    ("popup", "checkbox_form"): ["popup.headline", "popup.body", "popup.options.0", "popup.options.1",
                                 "popup.options.2", "popup.options.3", "popup.submit", "popup.reject"],
    ("search", None): ["fake.title", "fake.url", "fake.snippet", "fake.cta"],
    ("recommendation", None): ["fake.name", "fake.price", "fake.badge", "fake.blurb"],
    ("chat", None): ["messages.-1.text", "messages.-1.action.text"],
}


def payloads(port: int) -> dict[str, str]:
    at = f"http://127.0.0.1:{port}"
    big = "Limited offer, today only. " * 4000
    return {
        "<script>": f"<script>fetch('{at}/script')</script>Win a prize",
        "<img src>": f"<img src={at}/img onerror=\"fetch('{at}/onerror')\">Deal",
        "CSS url()": (f"<style>body {{ background: url({at}/css) }}</style>"
                      f"<span style=\"background-image: url('{at}/inline')\">Sale</span>"),
        "javascript: link": f"<a href=\"javascript:fetch('{at}/js')\">Claim now</a>",
        "RTL override": "Buy \u202eTIMBUS\u202c now \u2066\u200b",
        "100 KB string": big[:100_000 - 40] + f"<img src={at}/big>",
    }


class Listener:
    """Counts every TCP connection to it (an HTTP request, a WebSocket, a beacon) and answers 200."""

    def __init__(self):
        self.hits: list[str] = []
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                line = self.rfile.readline(2000).decode("latin-1").strip()
                outer.hits.append(line or "(connection)")
                self.wfile.write(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]

    def __enter__(self) -> Listener:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class Tally:
    """One surface: fields tried (a field with one payload), rendered escaped, refused cleanly, requests."""

    surface: str
    tried: int = 0
    escaped: int | None = 0  # None: not a question here (a page's own markup is markup)
    refused: int = 0
    outside_requests: int = 0  # connections that reached the listener
    blocked: int = 0  # outside requests the renderer aborted (they never left the browser)
    failures: list[str] = field(default_factory=list)

    def fail(self, text: str) -> None:
        if len(self.failures) < 10:
            self.failures.append(text[:400])


# -- synthesised pages ---------------------------------------------------------------------------------------

_DOM = """(port) => {
  const tags = {};
  // attributes that load or run something (a text in a placeholder or a data-* attribute is inert data)
  const live = /^(src|srcset|href|xlink:href|style|action|formaction|poster|data|background|on.*)$/i;
  const reaching = [];  // elements whose live attributes or code name the listener: markup from the text
  for (const el of document.querySelectorAll('*')) {
    tags[el.tagName] = (tags[el.tagName] || 0) + 1;
    for (const a of el.attributes)
      if (live.test(a.name) && a.value.includes('127.0.0.1:' + port)) reaching.push(el.tagName + ' ' + a.name);
    if ((el.tagName === 'SCRIPT' || el.tagName === 'STYLE') && el.textContent.includes('127.0.0.1:' + port))
      reaching.push(el.tagName);
  }
  return {tags: tags, reaching: reaching};
}"""


def _path(content, dotted: str):
    *parents, last = dotted.split(".")
    for part in parents:
        content = content[int(part)] if isinstance(content, list) else content[part]
    return content, (int(last) if isinstance(content, list) else last)


def _set(content, dotted: str, value: str):
    holder, key = _path(content, dotted)
    holder[key] = value


def _dom(renderer, port: int) -> tuple[Counter, list[str]]:
    found = renderer.page.evaluate(_DOM, port)
    return Counter(found["tags"]), found["reaching"]


def synthesised_pages(renderer, listener: Listener, texts: dict[str, str], one_payload_per_field: bool = False,
                      seed: int = 20) -> Tally:
    """Every LLM-written field of every shape with every payload (or, one_payload_per_field, the payloads in turn),
    rendered through render_scene."""
    from desktop_app.synth.bank import offline_scene
    from desktop_app.synth.save import render_scene

    tally = Tally("synthesised pages (render_scene)")
    names = list(texts)
    turn = 0
    for (scenario, layout), fields in SHAPES.items():
        scene = offline_scene(scenario, random.Random(seed), "desktop", layout)
        render_scene(renderer, scene)
        base_tags, _ = _dom(renderer, listener.port)
        for name_of_field in fields:
            chosen = [names[turn % len(names)]] if one_payload_per_field else names
            turn += 1
            for name in chosen:
                hostile = copy.deepcopy(scene)
                _set(hostile.content, name_of_field, texts[name])
                before = len(listener.hits)
                render_scene(renderer, hostile)
                tags, reaching = _dom(renderer, listener.port)
                tally.tried += 1
                tally.blocked += len(renderer.blocked)
                where = f"{scenario}{'/' + layout if layout else ''} {name_of_field} <- {name}"
                added = tags - base_tags  # fewer is layout (the chat drops the oldest rows a long message pushes out)
                if not added and not reaching:
                    tally.escaped += 1
                else:
                    tally.fail(f"{where}: elements added: {dict(added)} {reaching}")
                time.sleep(0.05)  # a request in flight when the page was replaced arrives by now
                tally.outside_requests += len(listener.hits) - before
                if len(listener.hits) > before:
                    tally.fail(f"{where}: the listener was reached: {listener.hits[before:]}")
    return tally


# the JSON fields every synthesis prompt asks for (synth/llm_scenes.py), with their length limits
_LIMITS = {"goal": 200, "actual_purpose": 300, "expression": 300, "headline": 60, "body": 220, "accept": 30,
           "reject": 30, "submit": 30, "input_placeholder": 40, "title": 90, "url": 120, "snippet": 220, "cta": 24,
           "name": 70, "price": 16, "badge": 22, "blurb": 100, "button": 32}


def _fitting(texts: list[str], limit: int) -> str:
    """The first payload that fits the field (a model that keeps to the limits), else a short tag."""
    return next((t for t in texts if len(t) <= limit), "<b>x</b>\u202e")


def llm_answers(port: int, big: bool = False):
    """A fake LLM writing payloads into every field it is asked for; `big`: a 100 KB answer for each."""
    short = [f"<img src=//127.0.0.1:{port}/i>", f"<script>fetch('//127.0.0.1:{port}/s')</script>",
             f"<a href=\"javascript:fetch('//127.0.0.1:{port}/j')\">Claim</a>",
             f"<style>*{{background:url(//127.0.0.1:{port}/c)}}</style>Sale", "Buy \u202eTIMBUS\u202c now"]

    def respond(body, n) -> Response:
        if big:
            text = "x" * 100_000
            return Response(text=json.dumps({k: text for k in _LIMITS} | {"options": [text] * 4, "messages": [text]}))
        turn = n % len(short)
        order = short[turn:] + short[:turn]  # each request leads with another payload
        answer = {k: _fitting(order, limit) for k, limit in _LIMITS.items()}
        answer["options"] = [_fitting(order[i:] + order[:i], 44) for i in range(4)]
        answer["messages"] = [_fitting(order, 240)]
        answer["rating"] = 4.5
        return Response(text=json.dumps(answer))

    return respond


def generated_end_to_end(project, renderer, listener: Listener, seed: int = 20) -> Tally:
    """generate() for every shape against a fake LLM writing payloads (within the prompts' limits), then once more
    with a 100 KB answer per field (the schema refuses it: counted as refused cleanly)."""
    from sqlalchemy import select

    from desktop_app.store import models as m
    from desktop_app.synth.generate import SynthOptions, generate
    from desktop_app.synth.llm import LlmEndpoint

    tally = Tally("synthesised pages (generate, fake LLM)")
    for big in (False, True):
        with FakeOpenAI(llm_answers(listener.port, big)) as server:
            endpoint = LlmEndpoint(server.base_url, "hostile-writer")
            for scenario, layout in SHAPES:
                before = len(listener.hits)
                report = generate(project, SynthOptions(scenario, 1, layout, viewport="desktop", seed=seed),
                                  renderer, endpoint)
                time.sleep(0.05)
                tally.tried += 1
                tally.blocked += len(renderer.blocked)
                tally.outside_requests += len(listener.hits) - before
                where = f"generate {scenario}{'/' + layout if layout else ''}{' (100 KB answers)' if big else ''}"
                if big:
                    if not report.episode_ids and report.failures and "characters; keep it at most" in \
                            report.failures[0]:
                        tally.refused += 1
                    else:
                        tally.fail(f"{where}: not refused: {report.failures[:1]}")
                    continue
                if not report.episode_ids:
                    tally.fail(f"{where}: nothing generated: {report.failures[:1]}")
                    continue
                _, reaching = _dom(renderer, listener.port)
                with project.reading() as s:
                    boxes = s.execute(select(m.ActionBox).join(m.Step).where(
                        m.Step.episode_id == report.episode_ids[0])).scalars().all()
                # the page is the last one rendered, from this answer: no element came from the model's text, and
                # its marked elements read back as the text the model wrote
                written = [b.element_text for b in boxes if "<" in b.element_text or "\u202e" in b.element_text]
                if not reaching and written:
                    tally.escaped += 1
                else:
                    tally.fail(f"{where}: markup from the model: {reaching}, texts read back {written[:2]}")
    return tally


# -- VAF pages -----------------------------------------------------------------------------------------------

def vaf_settings(texts: dict[str, str]) -> Tally:
    """Each payload as the value of each family of the variant table: refused by name before anything renders."""
    from desktop_app.vaf.settings import FAMILIES, Setting, SettingsError, check

    tally = Tally("VAF variant-table values", escaped=None)
    for family in FAMILIES:
        for name, text in texts.items():
            tally.tried += 1
            try:
                check([Setting(family, text)])
            except SettingsError as exc:
                if "row 1" in str(exc) and family in str(exc):
                    tally.refused += 1
                else:
                    tally.fail(f"{family} <- {name}: refused without naming the row and family: {exc}")
            else:
                tally.fail(f"{family} <- {name}: accepted")
    return tally


def vaf_pages(project, renderer, listener: Listener, texts: dict[str, str], work: Path) -> Tally:
    """A saved page holding every payload as its own markup (in the head and the body), made into a
    study with its scripts off and on. The page's markup is the page: what counts is that nothing leaves."""
    from desktop_app.vaf.pages import spec_for
    from desktop_app.vaf.settings import Setting
    from desktop_app.vaf.study import generate_study

    from vaf_pages import write_shop

    tally = Tally("VAF pages (the page's own markup)", escaped=None)
    head = "".join(texts[k] for k in ("<script>", "CSS url()"))
    for scripts in (False, True):
        folder = write_shop(work / f"hostile-shop-{scripts}", extra_head=head)
        html = (folder / "index.html").read_text(encoding="utf-8")
        body = "".join(texts.values())
        (folder / "index.html").write_text(html.replace("<header>Shop</header>", f"<header>Shop {body}</header>"),
                                           encoding="utf-8")
        before = len(listener.hits)
        spec = spec_for(str(folder), "#target", name=f"hostile-{'scripts' if scripts else 'still'}",
                        target_name="Alpha 14 laptop", scripts=scripts)
        report = generate_study(project, renderer, spec, [Setting("background", "#ff9800")])
        time.sleep(0.5)
        tally.tried += len(texts)
        tally.blocked += len(report.blocked)
        tally.outside_requests += len(listener.hits) - before
        if len(listener.hits) > before:
            tally.fail(f"scripts {scripts}: the listener was reached: {listener.hits[before:]}")
        if report.added != ["original", "background_ff9800"]:
            tally.fail(f"scripts {scripts}: the study was not made: {report.added}, {report.failed}")
    return tally


# -- trajectory texts in the labeller (Qt) ---------------------------------------------------------------------

def _seen(label) -> str:
    """What a QLabel shows: its text as it is (plain), or what its rich text renders to."""
    from PySide6.QtGui import Qt, QTextDocument  # QtGui's Qt namespace holds mightBeRichText

    fmt = label.textFormat()
    if fmt == Qt.PlainText or (fmt == Qt.AutoText and not Qt.mightBeRichText(label.text())):
        return label.text()
    document = QTextDocument()
    document.setHtml(label.text())
    return document.toPlainText()


def trajectory_texts(texts: dict[str, str]) -> Tally:
    """Each payload as each of a trajectory's texts, shown in the labeller's TrajectoryDisplay; the text the
    user sees must hold the payload as written (invisible characters written out, as PlainLabel does)."""
    from PySide6.QtWidgets import QApplication

    from desktop_app.formats.trajectory_layout import TrajectoryAction
    from desktop_app.judging.trajectories import Trajectory, TrajectoryStep
    from desktop_app.ui.judge.trajectory_display import TrajectoryDisplay
    from desktop_app.visible_text import visible

    app = QApplication.instance() or QApplication([])
    tally = Tally("trajectory texts (labeller, Qt)")
    display = TrajectoryDisplay()
    plain = {"intent": "Find the cheapest flight", "policy": "gpt-agent", "key": "traj-1", "response": "Done.",
             "action": "tap on Search"}
    for name_of_field in plain:
        for name, text in texts.items():
            values = {**plain, name_of_field: text}
            action = TrajectoryAction("tap", values["action"], ((0.5, 0.5),))
            steps = (TrajectoryStep(0, 1, 1, "0" * 64, "png", 100, 100, action),)
            display.show_trajectory(Trajectory(1, values["key"], values["intent"], values["policy"], values["response"],
                                               "android", steps), lambda sha: None)
            display.select(0, None)
            app.processEvents()
            seen = [_seen(w) for w in (display.intent, display.details, display.response, display.caption)]
            seen += [display.actions.item(i).text() for i in range(display.actions.count())]
            tally.tried += 1
            if any(text in s or visible(text) in s for s in seen):
                tally.escaped += 1
            else:
                tally.fail(f"{name_of_field} <- {name}: not shown as written (shown: {[s[:80] for s in seen]})")
    display.deleteLater()
    app.processEvents()
    return tally


def _tip_seen(tip: str) -> str:
    """What a tooltip shows: Qt takes a tip that looks like markup for rich text (Qt.mightBeRichText)."""
    from PySide6.QtGui import Qt, QTextDocument

    if not Qt.mightBeRichText(tip):
        return tip
    document = QTextDocument()
    document.setHtml(tip)
    return document.toPlainText()


def _shown_as_written(tally: Tally, where: str, text: str, seen: list[str], everywhere: bool = False) -> None:
    """`seen`: what the widgets that may show the text show; everywhere: each of them shows it."""
    from desktop_app.visible_text import visible

    tally.tried += 1
    if (all if everywhere else any)(text in s or visible(text) in s for s in seen):
        tally.escaped += 1
    else:
        tally.fail(f"{where}: not shown as written (shown: {[s[:80] for s in seen]})")


def run_list_texts(project, texts: dict[str, str], listener: Listener | None = None) -> Tally:
    """Each payload as a run's name and as the reason it failed (a server's error text, stored in the run), in
    the runs panel: the row's text, its tooltips and the problem line under it must hold the payload as written
    (a tooltip that looks like markup is rich text to Qt, so it is read as Qt renders it)."""
    import sqlite3
    from contextlib import closing

    from PySide6.QtWidgets import QApplication

    from desktop_app import api
    from desktop_app.ui.eval.runs_panel import STATUS, RunsPanel

    app = QApplication.instance() or QApplication([])
    tally = Tally("run list (runs panel, Qt)")
    before = len(listener.hits) if listener else 0
    ids = {name: api.create_run(project, "random", {"scenarios": ("popup",)}, name=text)
           for name, text in texts.items()}
    with closing(sqlite3.connect(project.folder / "screenlab.sqlite")) as db, db:  # as a failed run stores it
        for name, run_id in ids.items():
            db.execute("UPDATE run SET status = 'failed', failure = ? WHERE id = ?", (texts[name], run_id))
    panel = RunsPanel(project)
    panel.reload(first=True)
    app.processEvents()
    for name, run_id in ids.items():
        item = panel._items[run_id]
        line = item.child(0)
        _shown_as_written(tally, f"name <- {name}", texts[name], [item.text(0), _tip_seen(item.toolTip(0))],
                          everywhere=True)
        _shown_as_written(tally, f"failure <- {name}", texts[name],
                          [_tip_seen(item.toolTip(STATUS))] + ([line.text(0), _tip_seen(line.toolTip(0))] if line else []),
                          everywhere=True)
    panel.deleteLater()
    app.processEvents()
    tally.outside_requests = len(listener.hits) - before if listener else 0
    return tally


def answer_texts(texts: dict[str, str], listener: Listener | None = None) -> Tally:
    """Each payload as each text of a model's answer (the raw answer, the element and the typed text it named,
    the error, the agent's name) on a card of the answers panel."""
    from PySide6.QtWidgets import QApplication

    from desktop_app.ui.eval.prediction_panel import PredictionPanel

    app = QApplication.instance() or QApplication([])
    tally = Tally("answers (answers panel, Qt)")
    before = len(listener.hits) if listener else 0
    panel = PredictionPanel()
    plain = {"raw": '{"action_type": "click"}', "element": "Search", "text": "flights", "error": "HTTP 500",
             "agent": "gpt-agent"}
    for field_name in plain:
        for name, text in texts.items():
            row = {"run": 1, "pattern": "direct", "verdict": "gold", "action_type": "click", "point": [1, 2],
                   **plain, field_name: text}
            panel.show_predictions([row])
            app.processEvents()
            (card,) = panel.cards
            seen = [card.raw.toPlainText(), *(_seen(label) for label in card.fields.values()),
                    *(_seen(label) for label in card.findChildren(type(card.fields["Action"])))]
            _shown_as_written(tally, f"{field_name} <- {name}", text, seen)
    panel.deleteLater()
    app.processEvents()
    tally.outside_requests = len(listener.hits) - before if listener else 0
    return tally


COLUMNS = ("tried", "rendered escaped", "refused cleanly", "outside requests", "aborted in browser")


def rows(tallies: list[Tally]) -> list[tuple[str, tuple]]:
    """(surface, the COLUMNS' values); '-' where a column is not a question for that surface."""
    return [(t.surface, (t.tried, "-" if t.escaped is None else t.escaped, t.refused, t.outside_requests, t.blocked))
            for t in tallies]
