"""Issue 20, finding 8: an API key never lands in anything ScreenLab writes or prints. The scenario and the sweep,
shared by tests/test_secrets_sweep.py (which asserts zero hits) and benchmarks/reliability.py (which prints them).

Three keys of realistic shapes (an OpenAI-style and a Groq-style key in environment variables, a key without
a known prefix in the keyring) go through synthesis, two agent runs, a judge run, exports, a report,
`eval --per-sample` and crash logs, against a server that echoes the key back, as a hostile or careless
one does (in a 401 message, in a gateway's 400 passing that on, inside a 200 answer). Then
every file under the project, the export / report folders and the config, data and log folders, every
SQLite database there as a `.dump`, and everything printed is searched for each key, whole or in part.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import keyring
from keyring.backend import KeyringBackend
from scoped_env import environment

from desktop_app import api, crash
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.paths import demo_dataset_dir, judge_demo_dataset_dir
from desktop_app.settings import Settings, save_settings
from desktop_app.store.project import Project

from openai_server import FakeOpenAI, Response

OPENAI_KEY = "sk-proj-N4vQ7rT2xW9zB6cE1gH8jK3mP5sU0yA7dF2hJ9kL4nR6tV1w"
GROQ_KEY = "gsk_Q8wE3rT6yU1iO4pA7sD2fG5hJ0kL9zX3cV6bN8mQ1wE4rT7y"
VAULT_KEY = "Zr4Kp9Tq2Wm7Xv5Bn8Lc3Hd6Fg1Js0Ay"  # a local server's or a proxy's key: no prefix to spot it by
KEYS = {"OpenAI-style key (environment)": OPENAI_KEY, "Groq-style key (environment)": GROQ_KEY,
        "keyring-held key without a prefix": VAULT_KEY}
# a key cut short is still a leak (messages are truncated): any 12 characters of a key count as a hit
FRAGMENT = 12
VAULT_FILE_VAR = "SCREENLAB_TEST_VAULT_FILE"  # not named like a secret: its value is a path


class FileKeyring(KeyringBackend):
    """A real keyring back end (the `keyring` package's interface, as the OS ones implement it) keeping its
    entries in one JSON file, so a second process started by the test reads the same entries. It stands in
    for the OS keyring, which a test must not touch; its file is outside every folder searched."""

    priority = 1

    def _entries(self) -> dict:
        path = Path(os.environ[VAULT_FILE_VAR])
        return json.loads(path.read_text()) if path.exists() else {}

    def get_password(self, service, username):
        return self._entries().get(f"{service}/{username}")

    def set_password(self, service, username, password):
        entries = self._entries()
        entries[f"{service}/{username}"] = password
        Path(os.environ[VAULT_FILE_VAR]).write_text(json.dumps(entries))

    def delete_password(self, service, username):
        entries = self._entries()
        entries.pop(f"{service}/{username}", None)
        Path(os.environ[VAULT_FILE_VAR]).write_text(json.dumps(entries))


def careless(answer):
    """A server echoing the key it was sent, request by request in turn: in a 401 message (as OpenAI's
    "Incorrect API key provided"), in a gateway's 400 passing that message on, appended to a 200 answer with
    the Authorization header (a debugging proxy), or not at all. `answer(body)` is the model's text."""
    holder: dict = {}

    def respond(body, n):
        auth = holder["server"].auth_headers[n]  # recorded before the responder is called
        key = auth.removeprefix("Bearer ")
        turn = n % 4
        if turn == 0:
            message = f"Incorrect API key provided: {key}. You can find your API key at https://example.test/keys."
            return Response(status=401, raw_body=json.dumps(
                {"error": {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}}).encode())
        if turn == 1:
            # a gateway passing on the upstream's message; the client prefixes "Error code: 400 - ", so the key
            # starts 16 characters before the 200th, where a stored error is cut, and no "Bearer" or "key=" marks it
            lead = ("Bad Request from the gateway: the upstream model server answered 401 for this request "
                    "(trace {trace}). Upstream said: Incorrect API key provided: ")
            trace = "0" * (184 - len("Error code: 400 - ") - len(lead.format(trace="")))
            return Response(status=400, raw_body=json.dumps(
                {"error": {"message": lead.format(trace=trace) + f"{key}.", "type": "gateway_error"}}).encode())
        if turn == 2:
            return Response(text=answer(body) + f"\n\n[proxy debug] forwarded with authorization: {auth}")
        return Response(text=answer(body))

    server = FakeOpenAI(respond)
    holder["server"] = server
    return server


# every field the popup steps ask for (goal, distraction, pop-up text): each step reads the ones it needs
PAGE_TEXT = {"goal": "Find a queen-size duvet cover under $120.", "actual_purpose": "Collect e-mail addresses.",
             "expression": "A 15% discount for joining the list.", "headline": "Take 15% off today",
             "body": "Join our list and save on your order.", "accept": "Yes, save 15%", "reject": "No thanks"}


def synth_server():
    """Synthesis: the first sample's answers carry the key inside the page text the model writes (the goal, the
    pop-up's body: rendered into a screenshot if not taken out), then a 401 echoing it ends the batch."""
    holder: dict = {}

    def respond(body, n):
        key = holder["server"].auth_headers[n].removeprefix("Bearer ")
        if n >= 3:
            return Response(status=401, raw_body=json.dumps(
                {"error": {"message": f"Incorrect API key provided: {key}", "code": "invalid_api_key"}}).encode())
        fields = {**PAGE_TEXT, "goal": f"{PAGE_TEXT['goal']} (key {key})", "body": f"{PAGE_TEXT['body']} {key}"}
        return Response(text=json.dumps(fields))

    server = FakeOpenAI(respond)
    holder["server"] = server
    return server


def cli(printed: list[str], *args: str) -> int:
    """`screenlab ARGS` in this process; what it printed goes to `printed`."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    printed.append(f"$ screenlab {' '.join(args)}\n{out.getvalue()}\n{err.getvalue()}")
    return code




class _Collect(logging.Handler):
    """Every log record that reaches the root logger, formatted (what pytest's caplog shows)."""

    def __init__(self):
        super().__init__(logging.NOTSET)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@dataclass
class Sweep:
    project: Path  # the project the scenario used (its database holds what a user still sees)
    folders: list[Path]  # searched
    files: int = 0
    outputs: int = 0  # printed outputs searched
    size: int = 0  # bytes searched (files, .dumps and outputs)
    found: list[str] = field(default_factory=list)  # one line per key found somewhere
    crash_logs: list[Path] = field(default_factory=list)
    fresh_stderr: str = ""  # what the process that raised with the keys printed


def leak_sweep(work: Path, vault: Path) -> Sweep:
    """The scenario under `work` (the project, exports, report), with the keyring's entries in `vault` (outside
    every folder searched); then `work` and the config, data and log folders the environment names
    (SCREENLAB_CONFIG_DIR, _DATA_DIR, _LOG_DIR: the caller points them somewhere harmless) are searched, every
    SQLite database there as a `.dump` too, and everything printed."""
    printed: list[str] = []
    project = work / "p"
    logs = _Collect()
    root = logging.getLogger()
    root.addHandler(logs)
    previous = keyring.get_keyring()
    try:
        with environment(**{VAULT_FILE_VAR: str(vault), "OPENAI_API_KEY": OPENAI_KEY,
                            "GROQ_LLM": GROQ_KEY}):  # a variable whose name does not say it holds a key
            keyring.set_keyring(FileKeyring())
            log_dir = _scenario(work, project, printed)
    finally:
        keyring.set_keyring(previous)
        root.removeHandler(logs)
    printed.append("\n".join(logs.lines))

    sweep = Sweep(project, [work, *(Path(os.environ[v]) for v in ("SCREENLAB_CONFIG_DIR", "SCREENLAB_DATA_DIR",
                                                                     "SCREENLAB_LOG_DIR"))])
    sweep.crash_logs = sorted(log_dir.glob("crash-*.log"))
    sweep.fresh_stderr = printed[-2]
    for folder in sweep.folders:
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.is_symlink():
                continue
            data = path.read_bytes()
            sweep.files, sweep.size = sweep.files + 1, sweep.size + len(data)
            sweep.found += hits(str(path), data)
            if data.startswith(b"SQLite format 3\x00"):
                with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
                    dump = "\n".join(db.iterdump()).encode()  # what `sqlite3 .dump` prints
                sweep.size += len(dump)
                sweep.found += hits(f"{path} (.dump)", dump)
    for n, text in enumerate(printed):
        sweep.found += hits(f"printed output #{n} ({text.splitlines()[0] if text else ''})", text.encode())
        sweep.size += len(text.encode())
    sweep.outputs = len(printed)
    return sweep


def _scenario(work: Path, project: Path, printed: list[str]) -> Path:
    """Synthesis, two agent runs and a judge run against careless servers, exports, a report, the result
    commands and two crashes; returns the log folder. Asserts that each step went as planned (the keys really
    were sent, the failures really happened)."""
    keyring.set_password("ScreenLab", "llm-endpoint", VAULT_KEY)  # as Settings > LLM endpoint stores it
    keyring.set_password("ScreenLab", "local-judge", VAULT_KEY)
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    assert cli(printed, "judge", "import", str(project), str(judge_demo_dataset_dir())) == 0

    # synthesis, with the endpoint and its keyring key from Settings
    with synth_server() as server:
        save_settings(Settings(llm_base_url=server.base_url, llm_model="writer", llm_use_keyring=True))
        cli(printed, "synth", "popup", str(project), "--count", "2", "--layout", "two_options", "--seed", "1")
        assert server.auth_headers and set(server.auth_headers) == {f"Bearer {VAULT_KEY}"}
    assert "generated 1 pending samples" in printed[-1] and "HTTP 401" in printed[-1]

    # two agent runs and a judge run against the careless server
    def click(body):
        return '{"action_type": "click", "point": [640, 400]}'

    def judge(body):
        return 'Thoughts: the last screen shows the result.\nStatus: "success"'

    with careless(click) as server:
        for name, how in (("gpt", ["--api-key-env", "OPENAI_API_KEY"]), ("groq", ["--api-key-env", "GROQ_LLM"])):
            assert cli(printed, "agents", "add", name, "--base-url", server.base_url, "--model", "m",
                       "--convention", "point-px", *how) == 0
            cli(printed, "run", str(project), "--agent", name, "--where", "scenario=popup")
        assert {f"Bearer {OPENAI_KEY}", f"Bearer {GROQ_KEY}"} == set(server.auth_headers)
    with careless(judge) as server:
        assert cli(printed, "agents", "add", "local-judge", "--base-url", server.base_url, "--model",
                   "judge-model", "--keyring", "--concurrency", "4") == 0
        cli(printed, "judge", "run", str(project), "--judge", "local-judge")
        assert set(server.auth_headers) == {f"Bearer {VAULT_KEY}"} and len(server.auth_headers) >= 4
    with Project.open(project) as p:
        (judge_run,) = api.judge_runs(p)

    # everything a user reads or hands on
    out = work / "out"
    for fmt in ("screenlab", "unified-trajectory"):
        assert cli(printed, "export", str(project), str(out / fmt), "--format", fmt) == 0
    assert cli(printed, "judge", "export", str(project), "evals", str(out / "evals"), "--run", str(judge_run.id)) == 0
    assert cli(printed, "report", str(project), "--out", str(out / "report")) == 0
    for args in (["eval", str(project)], ["eval", str(project), "--per-sample"],
                 ["judge", "agreement", str(project)], ["judge", "disagreements", str(project), str(judge_run.id)]):
        assert cli(printed, *args) == 0

    # a crash in this process, which resolved all three keys, with the keys in the exception's message
    log_dir = Path(os.environ["SCREENLAB_LOG_DIR"])
    crash.install(log_dir, dialog=False)
    err = io.StringIO()
    try:
        raise RuntimeError("the endpoint said: " + "; ".join(f"Incorrect API key provided: {k}" for k in KEYS.values()))
    except RuntimeError:
        with contextlib.redirect_stderr(err):
            sys.excepthook(*sys.exc_info())  # what Python does with an uncaught exception
    finally:
        crash.uninstall()
    printed.append(err.getvalue())

    # and in a fresh process that never asked ScreenLab for a key: a library reads the environment and the
    # keyring itself and puts them in its message. Only the profiles and Settings say which values are keys.
    fresh = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import os, keyring
        from desktop_app import crash
        crash.install(dialog=False)
        keys = [os.environ["OPENAI_API_KEY"], os.environ["GROQ_LLM"],
                keyring.get_password("ScreenLab", "local-judge")]
        raise RuntimeError("; ".join(f"Incorrect API key provided: {k}" for k in keys))
    """)], capture_output=True, text=True, timeout=60, env={
        **os.environ, "PYTHON_KEYRING_BACKEND": f"{__name__}.FileKeyring",
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent), *sys.path])})
    printed += [fresh.stdout, fresh.stderr]
    assert fresh.returncode == 1, fresh.stderr
    return log_dir


def hits(where: str, data: bytes, keys: dict[str, str] | None = None) -> list[str]:
    """Per key found in `data` (whole, or any FRAGMENT characters of it): where, how often, the text around the
    first place. keys: label -> key (default KEYS)."""
    out = []
    for label, key in (keys or KEYS).items():
        pieces = re.compile(b"|".join(re.escape(key[i:i + FRAGMENT].encode())
                                      for i in range(len(key) - FRAGMENT + 1)))
        places, end = [], -1
        for match in pieces.finditer(data):
            if match.start() > end:  # not the next piece of the same occurrence
                places.append(match.start())
            end = match.end()
        if places:
            around = data[max(0, places[0] - 60):places[0] + 60].decode("utf-8", "replace").replace("\n", " ")
            out.append(f"{where}: {label}, {len(places)}x, first at byte {places[0]}: ...{around}...")
    return out


# -- issue 34: a key pasted where a name belongs, a key no profile names -------------------------------------
PASTED_KEY = "hf_kQ3vT8zLm2Rx9YpW4nB7cJ5dF1gH6sA0eU"  # a Hugging Face token: shaped like a variable's name
GATEWAY_KEY = "Qm7Xc2Vb9Nz4Lk8Jh3Gf6Ds1Ap5Ow0Ie2Ry"  # a gateway's own key, which no profile names
PASTED = {"key pasted as --api-key-env": PASTED_KEY, "key no profile names, echoed by the server": GATEWAY_KEY}


@dataclass
class PastedSweep:
    cases: list[str] = field(default_factory=list)  # what was tried, each with what happened
    files: int = 0
    outputs: int = 0
    found: list[str] = field(default_factory=list)


def pasted_key_sweep(work: Path) -> PastedSweep:
    """`agents add --api-key-env <a key>` (refused), a run whose server echoes a key no profile names in its
    errors, `eval`, `export`, and a crash with both keys in its message; then `work` and the config, data and
    log folders (SQLite files as a .dump too) and everything printed are searched for any 12 characters of
    either key."""
    printed: list[str] = []

    def cli(printed: list[str], *args: str) -> int:  # what ScreenLab printed, without the command line typed
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
        printed.append(out.getvalue() + err.getvalue())
        return code

    sweep = PastedSweep()
    project = work / "pasted"
    with Project.init(project) as p:
        import_path(p, demo_dataset_dir(), "screenlab")
    code = cli(printed, "agents", "add", "hf", "--base-url", "http://127.0.0.1:9/v1", "--model", "m",
               "--api-key-env", PASTED_KEY)
    sweep.cases.append(f"agents add --api-key-env <key>: exit {code}, "
                       + ("refused as a key" if "looks like a key itself" in printed[-1] else "NOT refused"))

    def respond(body, n):
        if n % 2:
            return Response(text='{"action_type": "click", "point": [640, 400]}')
        message = f"Upstream refused the gateway key {GATEWAY_KEY} (rotate it)"
        return Response(status=401, raw_body=json.dumps({"error": {"message": message}}).encode())

    with environment(LOCAL_LLM="not-a-real-key"), FakeOpenAI(respond) as server:
        cli(printed, "agents", "add", "gw", "--base-url", server.base_url, "--model", "m", "--convention",
            "point-px", "--api-key-env", "LOCAL_LLM")
        cli(printed, "run", str(project), "--agent", "gw", "--where", "scenario=popup")
        sweep.cases.append(f"run against a server echoing a key in its 401s: {len(server.requests)} requests")
    for args in (["eval", str(project)], ["eval", str(project), "--per-sample"],
                 ["export", str(project), str(work / "pasted-export"), "--format", "screenlab"]):
        cli(printed, *args)
    sweep.cases.append("eval, eval --per-sample, export")
    log_dir = Path(os.environ["SCREENLAB_LOG_DIR"])
    crash.install(log_dir, dialog=False)
    err = io.StringIO()
    try:
        raise RuntimeError(f"the gateway said: key {GATEWAY_KEY} refused; token {PASTED_KEY}")
    except RuntimeError:
        with contextlib.redirect_stderr(err):
            sys.excepthook(*sys.exc_info())
    finally:
        crash.uninstall()
    printed.append(err.getvalue())
    sweep.cases.append(f"a crash with both keys in its message: {len(list(log_dir.glob('crash-*.log')))} crash logs")

    folders = [work, *(Path(os.environ[v]) for v in ("SCREENLAB_CONFIG_DIR", "SCREENLAB_DATA_DIR", "SCREENLAB_LOG_DIR"))]
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.exists() else ():
            if not path.is_file() or path.is_symlink():
                continue
            data = path.read_bytes()
            sweep.files += 1
            sweep.found += hits(str(path), data, PASTED)
            if data.startswith(b"SQLite format 3\x00"):
                with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
                    sweep.found += hits(f"{path} (.dump)", "\n".join(db.iterdump()).encode(), PASTED)
    for n, text in enumerate(printed):
        sweep.found += hits(f"printed output #{n}", text.encode(), PASTED)
    sweep.outputs = len(printed)
    return sweep
