"""Recording a task in real Chromium (headless, driven by Playwright's own input through the same capture
path a person's clicks take) and replaying it: issue 37, items 1 and 2."""

from __future__ import annotations

import io
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import select

from desktop_app.paths import resources_dir
from desktop_app.record.tasks import record_task, replay_task
from desktop_app.store.models import ActionBox, Episode, Screen, ScreenTree, Step

PASSWORD = "hunter2-Secret!"
GOAL = "Sign in as alex@example.com and save the profile Alex Morgan, Spain"


def six_steps(boxes: list) -> list:
    def step(selector, act):
        def run(page):
            boxes.append(page.locator(selector).bounding_box())
            act(page)
        return run

    return [step("#email", lambda p: p.fill("#email", "alex@example.com")),
            step("#password", lambda p: p.fill("#password", PASSWORD)),
            step("#signin", lambda p: p.click("#signin")),
            step("#name", lambda p: p.fill("#name", "Alex Morgan")),
            step("#country", lambda p: p.select_option("#country", "es")),
            step("#save", lambda p: p.click("#save"))]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    from desktop_app.store.project import Project

    path = tmp_path_factory.mktemp("rec") / "project"
    boxes: list = []
    with Project.init(path) as project:
        episode_id = record_task(project, "flow:account", GOAL, actions=six_steps(boxes))
    return path, episode_id, boxes


def _open(path):
    from desktop_app.store.project import Project

    return Project.open(path)


def test_a_six_step_task_becomes_an_episode_with_gold_boxes_typed_text_and_trees(recorded):
    path, episode_id, boxes = recorded
    with _open(path) as project, project.reading() as session:
        episode = session.get(Episode, episode_id)
        assert episode.goal == GOAL and episode.review_status == "pending"
        steps = session.execute(select(Step).where(Step.episode_id == episode_id).order_by(Step.index)).scalars().all()
        assert [s.meta["action"]["kind"] for s in steps] == ["type", "type", "click", "type", "select", "click"]
        golds, pictures, trees = [], [], []
        for step in steps:
            gold = session.execute(select(ActionBox).where(ActionBox.step_id == step.id, ActionBox.label == "gold")
                                   ).scalars().one()
            golds.append(gold)
            others = session.execute(select(ActionBox).where(ActionBox.step_id == step.id, ActionBox.label == "other")
                                     ).scalars().all()
            assert others, f"step {step.index} has no other actionable elements"
            screen = session.get(Screen, step.screen_id)
            pictures.append(Image.open(io.BytesIO(project.media.read(screen.sha256, screen.ext))).convert("RGB"))
            trees.append(session.execute(select(ScreenTree).where(ScreenTree.sha256 == step.meta.get("tree"))
                                         ).scalars().first())
    for gold, box in zip(golds, boxes, strict=True):
        assert (gold.x1, gold.y1, gold.x2, gold.y2) == pytest.approx(
            (box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]), abs=0.01)
    assert [g.type_text for g in golds] == ["alex@example.com", "", "", "Alex Morgan", "Spain", ""]
    assert [g.action_type for g in golds] == ["type", "type", "click", "type", "select", "click"]
    assert all(t is not None and "<hierarchy" in t.xml for t in trees), "a tree per step"
    # the password field on the screen before Sign in (the typed password is in it) is painted over: one colour
    g = golds[1]
    field = pictures[2].crop((int(g.x1) + 1, int(g.y1) + 1, int(g.x2) - 1, int(g.y2) - 1))
    assert len(field.getcolors(1 << 24)) == 1
    # and the e-mail field next to it is not (the masking is only where it must be)
    e = golds[0]
    assert len(pictures[2].crop((int(e.x1), int(e.y1), int(e.x2), int(e.y2))).getcolors(1 << 24)) > 1


def test_the_password_is_nowhere_in_the_project_files(recorded):
    path, _, _ = recorded
    secret = PASSWORD.encode()
    files = [p for p in Path(path).rglob("*") if p.is_file()]
    assert any(p.suffix in (".sqlite", ".db", ".sqlite3") for p in files), [p.name for p in files]
    for file in files:
        assert secret not in file.read_bytes(), f"the password is in {file}"
    # the typed e-mail, which is not secret, is in the database: the search above would have found a password
    assert any(b"alex@example.com" in f.read_bytes() for f in files)


def test_replaying_the_recording_passes_its_evaluator(recorded):
    path, episode_id, _ = recorded
    with _open(path) as project:
        report = replay_task(project, episode_id)
    assert [s.matched for s in report.steps] == [True] * 6
    assert report.verdict.passed and report.passed
    assert not report.blocked


def test_replaying_after_the_button_is_renamed_names_that_step(recorded, tmp_path):
    path, episode_id, _ = recorded
    original = (resources_dir() / "flows" / "account.html.j2").read_text(encoding="utf-8")
    renamed = original.replace('{{ f.mark("save", "submit") }}>Save</button>',
                               '{{ f.mark("save", "submit") }}>Save changes</button>')
    assert renamed != original
    copy = tmp_path / "account.html.j2"
    copy.write_text(renamed, encoding="utf-8")
    with _open(path) as project:
        report = replay_task(project, episode_id, start=str(copy))
    assert [s.index for s in report.changed] == [5]
    assert "renamed" in report.changed[0].problem and "Save changes" in report.changed[0].problem
    assert "step 6 click: CHANGED" in "\n".join(report.lines())


def test_a_replay_on_a_page_whose_button_is_gone_says_not_found(recorded, tmp_path):
    path, episode_id, _ = recorded
    original = (resources_dir() / "flows" / "account.html.j2").read_text(encoding="utf-8")
    copy = tmp_path / "account.html.j2"
    copy.write_text(original.replace('id="signin"', 'id="login"'), encoding="utf-8")
    with _open(path) as project:
        report = replay_task(project, episode_id, start=str(copy))
    assert [s.index for s in report.changed] == [2]
    assert "not found" in report.changed[0].problem and report.changed[0].acted == "position"
    assert report.verdict.passed  # acted on by position, the task still ends where it should


class _Counting(BaseHTTPRequestHandler):
    hits: list = []

    def do_GET(self):
        _Counting.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_no_request_leaves_the_browser_while_recording_a_saved_page(tmp_path):
    from desktop_app.store.project import Project

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.settimeout(0.5)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    _Counting.hits = []
    folder = tmp_path / "saved"
    folder.mkdir()
    (folder / "index.html").write_text(
        f'<!doctype html><html><head><link rel="stylesheet" href="{url}/site.css"><script src="{url}/t.js"></script>'
        f'<script>fetch("{url}/beacon").catch(() => null); try {{ new WebSocket("ws://127.0.0.1:'
        f'{server.server_address[1]}/ws") }} catch (e) {{}}; try {{ const pc = new RTCPeerConnection({{iceServers: '
        f'[{{urls: "stun:127.0.0.1:{udp.getsockname()[1]}"}}]}}); pc.createDataChannel("x"); '
        f'pc.createOffer().then(o => pc.setLocalDescription(o)) }} catch (e) {{}}</script></head>'
        f'<body><h1>Saved</h1><img src="{url}/a.png"><a id="next" href="done.html">Next</a></body></html>',
        encoding="utf-8")
    (folder / "done.html").write_text(f'<!doctype html><h1>Done</h1><img src="{url}/b.png">', encoding="utf-8")
    try:
        with Project.init(tmp_path / "p") as project:
            episode_id = record_task(project, str(folder), "Go next", actions=[lambda p: p.click("#next")])
            report = replay_task(project, episode_id)
        time.sleep(1.0)  # a WebSocket or STUN packet would have arrived by now
        with pytest.raises(socket.timeout):
            udp.recvfrom(2048)
    finally:
        server.shutdown()
        udp.close()
    assert _Counting.hits == []
    assert report.passed and report.blocked  # the page asked, and was refused


def test_a_start_that_is_nothing_is_said_in_one_line(tmp_path):
    from desktop_app.record.site import SiteError, open_site

    with pytest.raises(SiteError, match="no flow site named 'nope'.*account"):
        open_site("flow:nope")
    with pytest.raises(SiteError, match="not a URL"):
        open_site(str(tmp_path / "missing.html"))


def test_the_cli_replays_a_recording_and_refuses_a_headed_recording_without_a_display(recorded, tmp_path, capsys,
                                                                                     monkeypatch):
    from desktop_app.cli.main import main

    path, episode_id, _ = recorded
    assert main(["replay", str(path), str(episode_id)]) == 0
    out = capsys.readouterr().out
    assert "step 6 click: ok" in out and "evaluator: passed" in out
    assert main(["replay", str(path), "999"]) == 2
    assert capsys.readouterr().err.strip() == "error: no episode 999 in this project"
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    assert main(["record", str(tmp_path / "new"), "flow:account", "--goal", "Sign in", "--headed"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs a display" in err[0]
    assert not (tmp_path / "new").exists()  # refused before a project was made


CARD = "4111222233334444"
CARD_PASSWORD = "Tr0ub4dor&3-x"


def test_a_card_number_and_a_password_are_in_no_tree_and_no_project_file(tmp_path):
    from desktop_app.a11y.tree import UiTree
    from desktop_app.store.project import Project

    folder = tmp_path / "checkout"
    folder.mkdir()
    (folder / "index.html").write_text(
        '<!doctype html><h1>Pay</h1><form onsubmit="return false">'
        '<input id="card" name="card" autocomplete="cc-number" placeholder="Card number">'
        '<input id="pass" name="pass" type="password" placeholder="Password">'
        '<input id="note" name="note" placeholder="Note">'
        '<button id="pay" type="button">Pay</button></form>', encoding="utf-8")
    project_dir = tmp_path / "p"
    with Project.init(project_dir) as project:
        episode_id = record_task(project, str(folder), "Pay by card", actions=[
            lambda p: p.fill("#card", CARD), lambda p: p.fill("#pass", CARD_PASSWORD),
            lambda p: p.fill("#note", "gift"), lambda p: p.click("#pay")])
    with _open(project_dir) as project, project.reading() as session:
        steps = session.execute(select(Step).where(Step.episode_id == episode_id).order_by(Step.index)).scalars().all()
        last = steps[-1]  # the screen before Pay: all three fields filled in
        xml = session.execute(select(ScreenTree).where(ScreenTree.sha256 == last.meta["tree"])).scalars().first().xml
    fields = {n.text for n in UiTree.from_xml(xml).nodes if n.cls == "android.widget.EditText"}
    assert fields == {"(hidden)", "gift"}, fields  # the card and the password: a placeholder, not their length
    files = [p for p in project_dir.rglob("*") if p.is_file()]
    assert any(p.suffix in (".sqlite", ".db", ".sqlite3") for p in files)
    for file in files:
        data = file.read_bytes()
        assert CARD.encode() not in data and CARD_PASSWORD.encode() not in data, f"a secret is in {file}"
    assert any(b"gift" in f.read_bytes() for f in files)  # typed text that is not secret is stored, so grep works


def test_a_key_press_and_going_back_are_steps_that_replay(tmp_path):
    from desktop_app.store.project import Project

    def back(page):
        page.go_back(wait_until="load")

    with Project.init(tmp_path / "p") as project:
        episode_id = record_task(project, "flow:account", "Sign in with Enter, then go back", actions=[
            lambda p: p.fill("#email", "alex@example.com"), lambda p: p.fill("#password", PASSWORD),
            lambda p: p.press("#password", "Enter"), back])
        with project.reading() as session:
            steps = session.execute(select(Step).where(Step.episode_id == episode_id).order_by(Step.index)
                                    ).scalars().all()
            actions = [s.meta["action"] for s in steps]
            enter_gold = session.execute(select(ActionBox).where(ActionBox.step_id == steps[2].id,
                                                                 ActionBox.label == "gold")).scalars().one()
        report = replay_task(project, episode_id)
    # Enter in the password field submits the form, which "clicks" Sign in: one step (the key), not two
    assert [a["kind"] for a in actions] == ["type", "type", "key", "navigate_back"]
    assert actions[2]["text"] == "Enter" and actions[2]["selector"] == "#password"
    assert (enter_gold.action_type, enter_gold.type_text) == ("key", "Enter")
    assert actions[3]["url"].endswith("/site/account/signin")  # Back from the profile lands on sign-in
    assert [(s.kind, s.matched) for s in report.steps] == [("type", True), ("type", True), ("key", True),
                                                          ("navigate_back", True)], "\n".join(report.lines())
    assert report.passed, "\n".join(report.lines())
