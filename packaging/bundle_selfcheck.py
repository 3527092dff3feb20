"""`screenlab --bundle-selfcheck`: does the built bundle contain everything and does it work?

Run by packaging/smoke_test.sh against the frozen app (it also runs from a checkout:
`.venv/bin/python packaging/bundle_selfcheck.py`). One line per check, then a summary;
exit status 1 when a required check fails. A missing browser is reported, not a failure
(the bundle never contains one). Needs no network: the OpenAI check uses a local server.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

RESULTS: list[tuple[str, str, str, float]] = []  # (status, name, detail, seconds)


def check(name: str, required: bool = True) -> Callable:
    def wrap(fn: Callable[[], str]) -> Callable[[], None]:
        def run() -> None:
            started = time.perf_counter()
            try:
                detail = fn()
                status = "skip" if detail.startswith("SKIP") else "warn" if detail.startswith("WARN") else "ok"
                detail = detail.removeprefix("WARN ")
            except Exception as exc:
                status = "FAIL" if required else "warn"
                detail = f"{type(exc).__name__}: {exc}"
                if os.environ.get("SELFCHECK_VERBOSE"):
                    traceback.print_exc()
            RESULTS.append((status, name, detail, time.perf_counter() - started))
            print(f"{status:<5} {name:<22} {detail}  ({time.perf_counter() - started:.2f} s)", flush=True)
        run.__name__ = fn.__name__
        return run
    return wrap


@check("bundle paths")
def paths() -> str:
    from desktop_app import paths as app_paths

    res = app_paths.resources_dir()
    # every bundled dataset the app knows of (demo_dataset_dir, navi_demo_dataset_dir, ...)
    datasets = {name: getattr(app_paths, name)() for name in dir(app_paths) if name.endswith("_dataset_dir")}
    root = getattr(sys, "_MEIPASS", None)
    outside = [str(p) for p in (res, *datasets.values()) if root and not str(p).startswith(root)]
    if outside:
        raise AssertionError(f"bundled data found outside the bundle: {outside}")
    for needed in ("scenarios/base.html.j2", "synth/bank.json", "fonts/DejaVuSans.woff2", "icons/screenlab.png"):
        if not (res / needed).is_file():
            raise FileNotFoundError(res / needed)
    counts = ", ".join(f"{p.name} ({sum(1 for _ in p.rglob('*') if _.is_file())} files)" for p in datasets.values())
    return f"resources {res}; datasets {counts}"


@check("user guide")  # Help > User guide opens these pages from the bundle (build_*.sh build them first)
def guide() -> str:
    from desktop_app.guide import guide_index

    index = guide_index()
    if index is None:
        raise FileNotFoundError("no built user guide in the bundle (the build script runs `mkdocs build` first)")
    root = getattr(sys, "_MEIPASS", None)
    if root and not str(index).startswith(root):
        raise AssertionError(f"the user guide was found outside the bundle: {index}")
    return f"{index} ({sum(1 for _ in index.parent.rglob('*.html'))} pages)"


@check("alembic migrations")
def migrations() -> str:
    from desktop_app.store.migrate import head_revision
    from desktop_app.store.project import Project

    head = head_revision()
    with tempfile.TemporaryDirectory() as tmp, Project.init(Path(tmp) / "p") as project:
        from desktop_app.store.migrate import current_revision

        current = current_revision(project.engine)
    if current != head:
        raise AssertionError(f"new project at {current}, head is {head}")
    return f"head {head}; a new project migrates to it"


@check("PostgreSQL driver")  # a team project on a server needs it; the bundle run of 2026-11-24 showed it
def postgres_driver() -> str:
    # team projects live on PostgreSQL; SQLAlchemy imports the driver by name, which a bundle can miss
    import psycopg
    from sqlalchemy.dialects.postgresql import psycopg as dialect  # noqa: F401

    if psycopg.pq.__impl__ not in ("binary", "c"):
        raise AssertionError(f"psycopg runs its {psycopg.pq.__impl__} implementation (needs a libpq)")
    return f"psycopg {psycopg.__version__} ({psycopg.pq.__impl__}, libpq {psycopg.pq.version()})"


@check("jinja templates")
def templates() -> str:
    import random

    from desktop_app.render.renderer import DESKTOP
    from desktop_app.synth.bank import offline_scene
    from desktop_app.synth.llm import _env as prompt_environment
    from desktop_app.synth.templates import render_html

    sizes = []
    for scenario in ("popup", "search", "recommendation", "chat"):
        scene = offline_scene(scenario, random.Random(1), "desktop")
        sizes.append(len(render_html(scenario, scene.content, DESKTOP)))
    prompts = sorted(p.name for p in (_resources() / "prompts" / "synth").glob("*.j2"))
    for name in prompts:  # parse (compile) each prompt template
        prompt_environment().get_template(name)
    from desktop_app.agents.prompts import _env as agent_environment

    agents = sorted(p.name for p in (_resources() / "prompts" / "agents").glob("*.j2"))
    for name in agents:
        agent_environment().get_template(name)
    return (f"4 scenario pages rendered ({min(sizes)}-{max(sizes)} chars), {len(prompts)} synth prompts "
            f"and {len(agents)} agent prompt files compiled")


def _resources() -> Path:
    from desktop_app.paths import resources_dir

    return resources_dir()


@check("rapidocr + models")
def ocr() -> str:
    import numpy as np
    from PIL import Image

    from desktop_app.ocr.rapid import RapidOcrEngine, _package_dir
    from desktop_app.paths import demo_dataset_dir

    models = sorted(p.name for p in (_package_dir() / "models").glob("*.onnx"))
    started = time.perf_counter()
    engine = RapidOcrEngine("en")
    loaded = time.perf_counter() - started
    image = sorted((demo_dataset_dir() / "images").iterdir())[0]
    rgb = np.asarray(Image.open(image).convert("RGB"))
    started = time.perf_counter()
    words = engine.read(rgb)
    if len(words) < 3:
        raise AssertionError(f"only {len(words)} words on {image.name}")
    sample = " ".join(w.text for w in words[:6])
    took = time.perf_counter() - started
    dumped = ""
    if os.environ.get("SCREENLAB_OCR_DUMP"):  # the smoke test compares it with the source tree's OCR
        from ocr_outputs import dump

        dump(Path(os.environ["SCREENLAB_OCR_DUMP"]), limit=int(os.environ.get("SCREENLAB_OCR_DUMP_SCREENS", "6")),
             quiet=True)
        dumped = f"; OCR of the first demo screens written to {os.environ['SCREENLAB_OCR_DUMP']}"
    return f"{len(models)} models, load {loaded:.2f} s, {len(words)} words on {image.name} in {took:.2f} s: {sample!r}{dumped}"


@check("opencv / numpy")
def cv() -> str:
    import cv2
    import numpy as np

    edges = cv2.Canny(np.zeros((32, 32), np.uint8), 10, 20)
    return f"cv2 {cv2.__version__}, numpy {np.__version__}, Canny {edges.shape}"


# A one-row Parquet file as Hugging Face's ScreenSpot mirror stores rows (a list of floats, a string, an image
# struct of bytes and path; Snappy pages), written by pyarrow 26 with its schema metadata left out
PARQUET_ROW = (
    "UEFSMRUEFUAVPEwVCBUAEgAAIASamQEBBLk/CQhEyT8zMzMzMzPTP5qZmZmZmdk/FQAVIBUkLBUIFRAVBhUGHBgImpmZmZmZ2T8Y"
    "CJqZmZmZmbk/FgAoCJqZmZmZmdk/GAiamZmZmZm5PxERAAAAEDwCAAAAAw4CAAAACAMCA+QAFQQVKhUuTBUCFQASAAAVUBEAAABj"
    "bG9zZSB0aGlzIHdpbmRvdxUAFRIVFiwVAhUQFQYVBhw2ACgRY2xvc2UgdGhpcyB3aW5kb3cYEWNsb3NlIHRoaXMgd2luZG93EREA"
    "AAAJIAIAAAACAQECABUEFRAVFEwVAhUAEgAACBwEAAAAiVBORxUAFRIVFiwVAhUQFQYVBhw2ACgEiVBORxgEiVBORxERAAAACSAC"
    "AAAAAgIBAgAVBBUSFRZMFQIVABIAAAkgBQAAAGEucG5nFQAVEhUWLBUCFRAVBhUGHDYAKAVhLnBuZxgFYS5wbmcREQAAAAkgAgAA"
    "AAICAQIAFQQZjDUAGAZzY2hlbWEVBgA1AhgEYmJveBUCFQZMPAAAADUEGARsaXN0FQIAFQolAhgHZWxlbWVudAAVDCUCGAtpbnN0"
    "cnVjdGlvbiUATBwAAAA1AhgFaW1hZ2UVBAAVDCUCGAVieXRlcwAVDCUCGARwYXRoJQBMHAAAABYCGRwZTCYAHBUKGTUABhAZOARi"
    "Ym94BGxpc3QHZWxlbWVudBUCFggW+gEW+gEmYCYIHBgImpmZmZmZ2T8YCJqZmZmZmbk/FgAoCJqZmZmZmdk/GAiamZmZmZm5PxER"
    "ABksFQQVABUCABUAFRAVAgA8KSYCBhlGAAAACAAAACYAHBUMGTUABhAZGAtpbnN0cnVjdGlvbhUCFgIW0gEW2gEmzAImggIcNgAo"
    "EWNsb3NlIHRoaXMgd2luZG93GBFjbG9zZSB0aGlzIHdpbmRvdxERABksFQQVABUCABUAFRAVAgA8FiIZBhkmAAIAAAAmABwVDBk1"
    "AAYQGSgFaW1hZ2UFYnl0ZXMVAhYCFoQBFowBJowEJtwDHDYAKASJUE5HGASJUE5HEREAGSwVBBUAFQIAFQAVEBUCADwWCBkGGTYA"
    "AAIAAAAmABwVDBk1AAYQGSgFaW1hZ2UEcGF0aBUCFgIWigEWkgEmmgUm6AQcNgAoBWEucG5nGAVhLnBuZxERABksFQQVABUCABUA"
    "FRAVAgA8FgoZBhk2AAACAAAAFtoFFgImCBbyBQAoIHBhcnF1ZXQtY3BwLWFycm93IHZlcnNpb24gMjYuMC4xGUwcAAAcAAAcAAAc"
    "AAAAVQIAAFBBUjE="
)


@check("parquet (our reader)")
def parquet() -> str:
    # the Parquet formats (screenspot-parquet, mind2web-parquet) read without pyarrow (left out of the bundle)
    import base64

    from desktop_app.formats.parquet_read import ParquetFile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "row.parquet"
        path.write_bytes(base64.b64decode("".join(PARQUET_ROW)))
        with ParquetFile(path) as parquet:
            rows = [row for batch in parquet.iter_batches(batch_size=8) for row in batch]
    expected = [{"bbox": [0.1, 0.2, 0.3, 0.4], "instruction": "close this window",
                 "image": {"bytes": b"\x89PNG", "path": "a.png"}}]
    if rows != expected:
        raise AssertionError(f"read back {rows!r}")
    return "a Snappy-compressed row with a list and a struct read back"


# Pages of each codec the Parquet reader takes from cramjam (ADR 0030), as writers store them: Snappy made by
# hand from its format description, the others by their reference encoders; each holds EIGHT_WORDS but Snappy's.
EIGHT_WORDS = b"screenlab " * 8
CODEC_PAGES = {
    1: ("SNAPPY", bytes([16, 1 << 2, 97, 98, (9 << 2) | 2, 2, 0, 1, 1]), b"ab" * 6 + b"bbbb"),
    4: ("BROTLI", bytes.fromhex("1b4f00f8a541c2c4d81421a0950223186c00"), EIGHT_WORDS),
    6: ("ZSTD", bytes.fromhex("28b52ffd20508d00005073637265656e6c616220010053b42001"), EIGHT_WORDS),
    7: ("LZ4_RAW", bytes.fromhex("af73637265656e6c6162200a002e506e6c616220"), EIGHT_WORDS),
}


@check("codecs and checksums")
def codecs() -> str:
    # cramjam and google-crc32c are compiled extensions: a bundle that missed one fails here, not on a user's file
    import google_crc32c

    from desktop_app.formats.parquet_decode import decompress
    from desktop_app.formats.tfrecord import crc32c

    for codec, (name, page, expected) in CODEC_PAGES.items():
        if bytes(decompress(codec, page, len(expected))) != expected:
            raise AssertionError(f"a {name} page decoded wrong")
    if crc32c(b"123456789") != 0xE3069283:  # CRC-32C's standard check value
        raise AssertionError(f"CRC-32C of '123456789' is {crc32c(b'123456789'):#x}")
    if google_crc32c.implementation != "c":  # it falls back to pure Python, a hundred times slower, silently
        raise AssertionError(f"google-crc32c runs its {google_crc32c.implementation} implementation")
    return f"{', '.join(name for name, _, _ in CODEC_PAGES.values())} pages decoded; CRC-32C in C"


@check("locks and processes")
def locks() -> str:
    from desktop_app.processes import pid_alive
    from desktop_app.store.media import LockTimeout, file_lock

    with tempfile.TemporaryDirectory() as folder:
        lock = Path(folder) / "LOCK"
        with file_lock(lock, timeout=5):
            try:  # a second hold waits: another thread of this process is excluded as another process is
                with file_lock(lock, timeout=0.2):
                    raise AssertionError("the lock was taken twice")
            except LockTimeout as refused:
                if str(lock) not in str(refused):
                    raise AssertionError(f"the refusal does not name the lock: {refused}") from None
    if not pid_alive(os.getpid(), time.time()) or pid_alive(os.getpid(), time.time() - 3600 * 24 * 365):
        raise AssertionError("this process's start is misread (psutil)")
    return "the media lock waits and refuses by name (filelock); process checks (psutil) answer"


@check("playwright driver")
def playwright_driver() -> str:
    from playwright._impl._driver import compute_driver_executable

    from desktop_app.render.node_runtime import ensure_node

    unpacking = time.perf_counter()
    ensure_node()  # the bundle ships node.xz and package.tar.xz (Linux, Windows): unpacked on first use
    unpacked = time.perf_counter() - unpacking
    node, cli = compute_driver_executable()
    if not (os.path.isfile(node) and os.access(node, os.X_OK)):
        raise FileNotFoundError(f"node driver missing or not executable: {node}")
    package = os.environ.get("SCREENLAB_PLAYWRIGHT_PACKAGE")  # the stand-in cli.js runs the unpacked one
    if package and not os.path.isfile(os.path.join(package, "cli.js")):
        raise FileNotFoundError(f"the driver's JavaScript was not unpacked: {package}")
    from desktop_app.render.renderer import _playwright

    started = time.perf_counter()
    pw = _playwright()  # starts node + the driver package over pipes
    return (f"node and JavaScript ready in {unpacked:.2f} s ({package or cli}), driver started in "
            f"{time.perf_counter() - started:.2f} s ({node}); "
            f"browsers API {type(pw.chromium).__name__}")


@check("render with a browser", required=False)
def render() -> str:
    import random

    from desktop_app.render.browser import BrowserNotFound, find_browser
    from desktop_app.render.renderer import Renderer
    from desktop_app.synth.bank import offline_scene
    from desktop_app.synth.save import render_scene

    try:
        browser = find_browser(None, os.environ.get("SCREENLAB_SELFCHECK_BROWSER", ""))
    except BrowserNotFound:
        return "SKIP no Chromium/Chrome/Edge installed (the bundle never contains one)"
    started = time.perf_counter()
    with Renderer() as renderer:
        rendered = render_scene(renderer, offline_scene("popup", random.Random(2), "desktop"))
    if not rendered.elements:
        raise AssertionError("no marked elements read from the page")
    return (f"{browser}: {rendered.width}x{rendered.height}, {len(rendered.elements)} marked elements "
            f"in {time.perf_counter() - started:.2f} s")


@check("openai client")
def openai_client() -> str:
    import openai

    answer = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                         "choices": [{"index": 0, "finish_reason": "stop",
                                      "message": {"role": "assistant", "content": "pong"}}],
                         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("content-length", 0)))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{server.server_address[1]}/v1", api_key="x",
                               max_retries=0, timeout=10)
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "ping"}])
    finally:
        server.shutdown()
    import certifi

    if not os.path.isfile(certifi.where()):
        raise FileNotFoundError(f"CA bundle missing: {certifi.where()}")
    return f"openai {openai.__version__}: {reply.choices[0].message.content!r}; CA bundle present"


@check("keyring backend", required=False)
def keyring_backend() -> str:
    # "ok" only for a keyring that keeps keys: keyring's fallback stores nothing (issue 38)
    from desktop_app.secrets import keyring_report

    usable, what = keyring_report()
    return what if usable else f"WARN {what}"


@check("qt plugins")
def qt() -> str:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QImageReader
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    formats = {bytes(f).decode() for f in QImageReader.supportedImageFormats()}
    missing = {"png", "jpeg", "webp"} - formats
    if missing:
        raise AssertionError(f"image formats missing: {sorted(missing)}")
    import pyqtgraph

    said = f"platform {app.platformName()}, images {','.join(sorted(formats))}, pyqtgraph {pyqtgraph.__version__}"
    # PySide6's support modules from files with their bytecode, not compiled from their embedded source at each
    # start (packaging/shiboken_files.py, ADR 0072). Verified on Linux; a macOS or Windows bundle lays its files
    # out otherwise, where shiboken6 may not find the folder: there the app still starts, so it is a warning.
    loader = sys.modules.get("shibokensupport.signature.loader")
    cached = Path(getattr(loader, "__cached__", None) or "")
    if "files.dir" not in Path(getattr(loader, "__file__", None) or "").parts or not cached.is_file():
        problem = f"PySide6's support modules are compiled at each start: {getattr(loader, '__file__', '-')}"
        if sys.platform.startswith("linux"):
            raise AssertionError(problem)
        return f"WARN {said}; {problem}"
    return f"{said}, support modules with their bytecode"


@check("excluded packages")
def excluded() -> str:
    import importlib.util

    present = [m for m in ("pytest", "hypothesis", "ruff", "easyocr", "torch", "tkinter", "pyarrow",
                           "PySide6.QtWebEngineCore",
                           "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtMultimedia", "PySide6.QtPdf", "PySide6.Qt3DCore")
               if _findable(importlib.util, m)]
    if getattr(sys, "frozen", False) and present:
        raise AssertionError(f"should not be bundled: {present}")
    return "none of the test tools, torch, tkinter, pyarrow or unused Qt modules" if not present else f"(not frozen) {present}"


def _findable(util, name: str) -> bool:
    try:
        return util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


CHECKS = [paths, guide, migrations, postgres_driver, templates, ocr, cv, parquet, codecs, locks, playwright_driver,
          render, openai_client, keyring_backend, qt, excluded]


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from desktop_app import __version__

    print(f"ScreenLab {__version__} bundle self-check ({'frozen' if getattr(sys, 'frozen', False) else 'source'}, "
          f"{sys.executable})", flush=True)
    started = time.perf_counter()
    for run in CHECKS:
        run()
    failed = [name for status, name, _, _ in RESULTS if status == "FAIL"]
    print(f"selfcheck: {'FAILED: ' + ', '.join(failed) if failed else 'ok'} "
          f"({len(RESULTS)} checks, {time.perf_counter() - started:.1f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main(sys.argv[1:]))
