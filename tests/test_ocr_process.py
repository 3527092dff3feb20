"""The window's OCR runs in a process of its own (desktop_app/ocr/process.py): the same words and
proposals as reading in-process, errors that say what went wrong, and a worker that was killed is
started again for the next screen."""

from __future__ import annotations

import contextlib
import os
import signal
import time

import pytest

from desktop_app.ocr.base import OcrUnavailable
from desktop_app.ocr.cache import analyse_file
from desktop_app.ocr.process import OcrProcess
from desktop_app.paths import demo_dataset_dir

IMAGES = sorted((demo_dataset_dir() / "images").glob("*.png"))


@pytest.fixture(scope="module")
def worker():
    process = OcrProcess()
    yield process
    process.close()


def test_the_worker_reads_what_this_process_reads(worker):
    for image in IMAGES[:2]:
        words, proposals, ms = worker.analyse(image, "rapidocr", "en", {})
        here_words, here_proposals, _ = analyse_file(image, "rapidocr", "en", {})
        assert words == here_words and proposals == here_proposals, image.name
        assert len(words) > 5 and ms > 0
    assert worker.pid not in (None, os.getpid())


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="reads the worker's mapped files in /proc")
def test_the_worker_leaves_the_project_store_out_of_its_memory(worker):
    """Issue 36 (ADR 0059): the worker only reads screens; the database stays with the window. The store's
    models (SQLModel, on pydantic, whose core is a compiled library) cost the worker ~32 MB and its start half a
    second when it imported them."""
    assert worker.analyse(IMAGES[0], "rapidocr", "en", {})[0]
    with open(f"/proc/{worker.pid}/maps") as maps:
        mapped = maps.read()
    assert "onnxruntime" in mapped  # the engine is loaded, so this is the worker that read
    assert "pydantic_core" not in mapped and "sqlalchemy" not in mapped


def test_errors_come_back_as_the_errors_reading_here_raises(worker, tmp_path):
    missing = tmp_path / "gone.png"
    with pytest.raises(OSError, match="gone.png"):
        worker.analyse(missing, "rapidocr", "en", {})
    with pytest.raises(OcrUnavailable, match="unknown OCR engine 'nope'"):
        worker.analyse(IMAGES[0], "nope", "en", {})
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a picture")
    with pytest.raises(OSError, match="broken.png"):
        worker.analyse(broken, "rapidocr", "en", {})
    assert worker.analyse(IMAGES[0], "rapidocr", "en", {})[0]  # and it still reads


def test_a_killed_worker_is_started_again_for_the_next_screen(worker):
    worker.analyse(IMAGES[0], "rapidocr", "en", {})
    first = worker.pid
    os.kill(first, signal.SIGKILL)
    words, _, _ = worker.analyse(IMAGES[1], "rapidocr", "en", {})
    assert words and worker.pid not in (None, first)


def test_an_idle_worker_gives_its_memory_back_and_the_next_screen_starts_another():
    """Issue 36: the OCR process leaves after a while without a request (IDLE_EXIT_S; half a second here), and
    the next screen is read by a new one, with the same words. (A screen sent just as it leaves meets a closed
    pipe and is sent again to a new worker: the path of a killed worker, tested above.)"""
    import psutil

    process = OcrProcess(idle_exit_s=0.5)
    try:
        words, _, _ = process.analyse(IMAGES[0], "rapidocr", "en", {})
        first = process.pid
        assert first is not None and psutil.Process(first).memory_info().rss > 50e6  # the engines are loaded
        deadline = time.monotonic() + 30
        while process.pid is not None and time.monotonic() < deadline:  # it leaves by itself, once idle
            time.sleep(0.1)
        assert process.pid is None and not psutil.pid_exists(first)
        again, _, _ = process.analyse(IMAGES[0], "rapidocr", "en", {})
        assert again == words and process.pid not in (None, first)
    finally:
        process.close()


def test_a_reading_abandoned_before_it_was_sent_starts_no_worker(worker):
    """CI caught the window's close racing its OCR: the close abandoned the reading while the reading thread was
    still in the cache, before it sent the screen; the thread then started a new worker and read the screen
    anyway, and the window's close left that worker behind. The request's flag, set first, now stops it."""
    import threading

    worker.analyse(IMAGES[0], "rapidocr", "en", {})
    held = worker.pid
    os.kill(held, signal.SIGSTOP)  # busy: the worker would not answer for minutes
    try:
        cancelled = threading.Event()
        worker.abandon(cancelled)  # the window closes first ...
        with pytest.raises(OcrUnavailable, match="closed before it began"):
            worker.analyse(IMAGES[1], "rapidocr", "en", {}, cancelled=cancelled)  # ... then the request comes
        assert worker.pid is None  # the held worker was stopped and no other started
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(held, signal.SIGCONT)
    assert worker.analyse(IMAGES[0], "rapidocr", "en", {})[0]  # the next screen starts a new one
    assert worker.pid not in (None, held)
