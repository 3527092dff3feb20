"""OCR, element proposals and the OCR cache, on screens rendered from our own templates.

The truth (text and boxes) comes from the DOM; OCR is the real rapidocr with its bundled
models. Only three screens are OCR'd for the whole module (plus one refresh), under 1 s each.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from coloured_buttons import COLOURED_BUTTONS
from PIL import Image

from desktop_app.images import inspect_bytes
from desktop_app.ocr import registry
from desktop_app.ocr.base import OcrUnavailable, Proposal, Word, reading_order, split_line
from desktop_app.ocr.cache import analyse_image, cached_outcome, ocr_project, ocr_screen
from desktop_app.ocr.easy import EasyOcrEngine, convert_easyocr
from desktop_app.ocr.elements import box_iou, contains, text_inside
from desktop_app.ocr.ink import refine_words
from desktop_app.ocr.rapid import RapidOcrEngine
from desktop_app.ocr.tess import TesseractEngine, parse_tsv
from desktop_app.render.renderer import VIEWPORTS
from desktop_app.store.models import Screen
from desktop_app.store.project import Project
from desktop_app.synth.templates import render_html

SPEC = Path(__file__).resolve().parents[1] / "datasets" / "demo_spec.json"
SCREENS = ("demo-popup-01", "demo-popup-04")  # e-mail input + submit + close; accept/reject + close


def _rgb(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _add_screen(project, png: bytes) -> Screen:
    info = inspect_bytes(png)
    project.media.put(info.sha256, info.ext, info.data)
    with project.transaction() as s:
        screen = Screen(sha256=info.sha256, ext=info.ext, width=info.width, height=info.height, source="test")
        s.add(screen)
    return screen


@pytest.fixture(scope="module")
def rendered(renderer):
    entries = {e["id"]: e for e in json.loads(SPEC.read_text(encoding="utf-8"))}
    out = {}
    for key in SCREENS:
        e = entries[key]
        viewport = VIEWPORTS[e["viewport"]]
        out[key] = renderer.render(render_html(e["scenario"], e["content"], viewport), viewport)
    return out


@pytest.fixture(scope="module")
def ocr_done(rendered, tmp_path_factory):
    """A project holding the two screens, OCR'd once through ocr_project (the bulk path)."""
    folder = tmp_path_factory.mktemp("ocr") / "proj"
    calls = []
    with Project.init(folder) as project:
        screens = {key: _add_screen(project, r.png) for key, r in rendered.items()}
        report = ocr_project(project, progress=lambda *a: calls.append(a))
    return folder, screens, report, calls


def _element(rendered, key, role):
    return next(e for e in rendered[key].elements if e.role == role)


# -- the real engine ---------------------------------------------------------------------

@pytest.mark.browser
def test_rapidocr_runs_from_its_bundled_models_without_network_or_chatter(rendered, monkeypatch, capfd):
    import rapidocr.utils.download_file as download

    def refuse(*a, **k):
        raise AssertionError("rapidocr tried to download a file")

    monkeypatch.setattr(download.DownloadFile, "run", classmethod(refuse))
    monkeypatch.setattr(socket.socket, "connect", refuse)
    capfd.readouterr()
    engine = RapidOcrEngine("en")  # a fresh instance: loads the three ONNX files again
    image = _rgb(rendered["demo-popup-01"].png)[180:560, 400:880]  # the dialog only: fast
    words = engine.read(image)
    assert {"send", "code", "e-mail"} <= {w.text.casefold() for w in words}
    err = capfd.readouterr().err
    assert "INFO" not in err and "Using" not in err, err


_MODEL_TABLE_PROBE = """
import json, sys
from pathlib import Path
from omegaconf import OmegaConf
from desktop_app.ocr.rapid import RapidOcrEngine, _package_dir
from desktop_app.ocr.rapid_model_table import RUNTIMES_NOT_RUN
original = OmegaConf.__dict__["load"]
assert RapidOcrEngine.available("en") == (True, "")  # the first import of rapidocr, as an OCR process makes it
import rapidocr.inference_engine.base as base, rapidocr.utils.model_resolver as resolver
table = _package_dir() / "default_models.yaml"
full = OmegaConf.to_container(OmegaConf.load(table))
print(json.dumps({
    "one_config": base.InferSession.model_info is resolver._MODEL_CONFIG,
    "read_only": OmegaConf.is_readonly(resolver._MODEL_CONFIG),
    "load_put_back": OmegaConf.__dict__["load"] is original,
    "kept": OmegaConf.to_container(resolver._MODEL_CONFIG),
    "full_without": {k: v for k, v in full.items() if k not in RUNTIMES_NOT_RUN},
    "dropped_were_there": all(k in full for k in RUNTIMES_NOT_RUN),
}))
"""


def test_rapidocr_reads_its_model_table_once_and_only_what_our_runtime_needs():
    # a fresh process: the first import of rapidocr is where the table is read (rapid_model_table.py)
    out = subprocess.run([sys.executable, "-c", _MODEL_TABLE_PROBE], capture_output=True, text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1], check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["one_config"] and seen["read_only"] and seen["load_put_back"]
    assert seen["dropped_were_there"]  # a later rapidocr without these sections: the list here needs a look
    assert seen["kept"] == seen["full_without"]  # what rapidocr reads of it: as OmegaConf's own reading gives it
    assert {"model_routes", "lang_mapping", "onnxruntime"} <= set(seen["kept"])


def test_rapidocr_names_the_languages_it_covers():
    ok, reason = RapidOcrEngine.available("ar")
    assert not ok and "'ar'" in reason and "en" in reason
    assert RapidOcrEngine.available("de") == (True, "")


# -- words, proposals, text ----------------------------------------------------------------

@pytest.mark.browser
def test_button_texts_are_read_and_proposed_with_their_text(ocr_done, rendered):
    folder, screens, _, _ = ocr_done
    with Project.open(folder) as project:
        for key, roles in (("demo-popup-01", ("submit", "input")), ("demo-popup-04", ("accept", "reject"))):
            outcome = cached_outcome(project, screens[key])
            assert outcome is not None and outcome.cached
            read = {w.text.casefold() for w in outcome.words}
            for role in roles:
                el = _element(rendered, key, role)
                # every word of the button is read, exactly (case-insensitive)
                assert set(el.text.casefold().split()) <= read, (el.text, sorted(read))
                # the element is proposed where the DOM has it, with that text and kind
                best = max(outcome.elements, key=lambda p: box_iou(p.box, el.box))
                assert box_iou(best.box, el.box) >= 0.9, (role, best, el.box)
                assert best.text.casefold() == el.text.casefold()
                assert best.kind == ("input" if role == "input" else "button")
                assert text_inside(el.box, outcome.words).casefold() == el.text.casefold()
            close = _element(rendered, key, "close")
            best = max(outcome.elements, key=lambda p: box_iou(p.box, close.box))
            assert box_iou(best.box, close.box) >= 0.9 and best.kind == "icon"


def test_light_text_on_coloured_buttons_is_read_in_boxes_on_its_label(renderer):
    """Issue 33 item 2: white on green and blue, light grey on white, each read word by word, each word's box on
    its label (inside the button, apart from its neighbour), and the button proposed with its text."""
    out = renderer.render(COLOURED_BUTTONS, VIEWPORTS["desktop"])
    words, proposals = analyse_image(_rgb(out.png), registry.get_engine("rapidocr", "en"))
    for button in out.elements:
        inside = [w for w in words if contains(button.box, w.center)]
        assert [w.text for w in inside] == button.text.split()
        x1, y1, x2, y2 = button.box
        for w in inside:
            assert x1 - 1 <= w.xyxy[0] and y1 - 1 <= w.xyxy[1] and w.xyxy[2] <= x2 + 1 and w.xyxy[3] <= y2 + 1, \
                (w.text, w.xyxy, button.box)
        assert all(a.xyxy[2] <= b.xyxy[0] for a, b in zip(inside, inside[1:], strict=False)), \
            [(w.text, w.xyxy) for w in inside]
        assert any(p.kind == "button" and p.text == button.text and box_iou(p.box, button.box) >= 0.8
                   for p in proposals), (button.text, [(p.kind, p.text) for p in proposals])


def test_a_word_box_past_the_edge_of_its_button_still_fits_the_letters():
    """The engine's box for a white word on a green button began a pixel above the button: that row (white
    page against the green around it) counted as ink from end to end, and the word grew over its neighbour."""
    image = np.full((120, 260, 3), 255, np.uint8)
    image[40:84, 40:206] = (34, 170, 119)  # the button
    for left in (62, 74, 84, 94):  # four letters, 2 px apart
        image[52:71, left:left + 9] = 255
    (word,) = refine_words(image, [Word.from_xyxy((62, 39, 109, 80), "Save")])
    x1, y1, x2, y2 = word.xyxy
    assert (x1, x2) == (62, 103)  # the letters' ink, not the region's width
    assert 40 <= y1 < 52 and 71 < y2 <= 84  # the font's text box around them, inside the button


def test_text_inside_takes_words_by_centre_in_reading_order():
    words = [Word.from_xyxy((60, 10, 90, 20), "world"), Word.from_xyxy((10, 11, 50, 21), "hello"),
             Word.from_xyxy((10, 30, 40, 40), "again"), Word.from_xyxy((95, 10, 140, 20), "outside")]
    assert text_inside((0, 0, 100, 50), words) == "hello world again"
    assert text_inside((200, 200, 300, 300), words) == ""


def test_words_and_proposals_survive_json():
    w = Word(((1, 2), (30, 2.5), (30, 12), (1, 11.5)), "Café", 0.93, "word")
    assert Word.from_json(json.loads(json.dumps(w.to_json()))) == w
    assert w.xyxy == (1, 2, 30, 12)
    p = Proposal((1.0, 2.0, 3.0, 4.0), "button", "OK", 0.5)
    assert Proposal.from_json(json.loads(json.dumps(p.to_json()))) == p


def test_split_line_divides_a_line_by_character_widths():
    line = Word.from_xyxy((100, 10, 220, 30), "Sign in now", 0.9, "line")
    words = split_line(line)
    assert [w.text for w in words] == ["Sign", "in", "now"]
    boxes = [w.xyxy for w in words]
    assert boxes[0][0] == 100 and boxes[-1][2] == 220
    assert all(a[2] < b[0] for a, b in zip(boxes, boxes[1:], strict=False))  # the spaces stay gaps
    assert boxes[0][2] - boxes[0][0] > boxes[1][2] - boxes[1][0]  # "Sign" is wider than "in"
    assert all(w.kind == "word" and w.conf == 0.9 and w.xyxy[1] == 10 for w in words)


def test_reading_order_keeps_a_line_together_despite_pixel_jitter():
    a, b = Word.from_xyxy((50, 11, 80, 21), "b"), Word.from_xyxy((10, 10, 40, 20), "a")
    c = Word.from_xyxy((10, 40, 40, 50), "c")
    assert [w.text for w in reading_order([c, a, b])] == ["a", "b", "c"]


# -- the cache -------------------------------------------------------------------------------

@pytest.mark.browser
def test_bulk_ocr_then_everything_is_cached_and_survives_reopening(ocr_done):
    folder, screens, report, calls = ocr_done
    assert (report.total, report.computed, report.skipped, report.failed) == (2, 2, 0, [])
    assert calls[0] == ("ocr", 0, 2) and calls[-1] == ("ocr", 2, 2)
    with Project.open(folder) as project:
        again = ocr_project(project)  # only missing: nothing to do
        assert (again.computed, again.skipped) == (0, 2)
        first = ocr_screen(project, screens["demo-popup-01"])
        assert first.cached and first.engine == "rapidocr" and first.duration_ms > 0
        hit = ocr_screen(project, screens["demo-popup-01"].id)  # by id works too; its speed: benchmarks/ocr.py
        assert hit.cached and hit.words == first.words and hit.elements == first.elements


@pytest.mark.browser
def test_refresh_recomputes_and_replaces_the_cached_row(ocr_done):
    folder, screens, _, _ = ocr_done
    with Project.open(folder) as project:
        fresh = ocr_screen(project, screens["demo-popup-04"], refresh=True)
        assert not fresh.cached and fresh.words
        from sqlalchemy import func

        from desktop_app.store.models import OcrResult
        from desktop_app.store.orm import select

        with project.reading() as s:
            rows = s.exec(select(func.count()).select_from(OcrResult)
                          .where(OcrResult.sha256 == screens["demo-popup-04"].sha256)).one()
        assert rows == 1
        assert ocr_screen(project, screens["demo-popup-04"]).cached


def test_cache_key_holds_language_and_pipeline_but_not_paths():
    a = registry.settings_json("easyocr", "en", model_dir="/a", allow_downloads=True)
    b = registry.settings_json("easyocr", "en", model_dir="/b")
    assert a == b and json.loads(a) == {"language": "en", "pipeline": registry.PIPELINE_VERSION}
    assert registry.settings_json("rapidocr", "de") != registry.settings_json("rapidocr", "en")


@pytest.mark.browser
def test_a_row_read_with_another_rapidocr_configuration_is_not_served(ocr_done):
    folder, screens, _, _ = ocr_done
    with Project.open(folder) as project:
        screen = screens["demo-popup-01"]
        assert cached_outcome(project, screen) is not None
        # rapidocr's own detector scale reads other words: that row is not this one
        assert cached_outcome(project, screen, det_scale=1.0) is None
        # the number of threads changes the speed, not the words
        assert cached_outcome(project, screen, threads=2) is not None


def test_rapidocr_options_are_checked_by_name():
    ok, reason = RapidOcrEngine.available("en", det_scale=0)
    assert not ok and "'det_scale'" in reason and "from 0.1 to 4.0" in reason and "not 0" in reason
    assert not RapidOcrEngine.available("en", rec_batch=2.5)[0]
    assert not RapidOcrEngine.available("en", threads=True)[0]
    with pytest.raises(OcrUnavailable, match="unknown rapidocr option 'speed'.*det_scale"):
        registry.get_engine("rapidocr", "en", speed="fast")
    assert RapidOcrEngine.available("en", det_scale=1, rec_batch=6.0, rec_min_width=320) == (True, "")


def test_cancelled_bulk_run_reads_nothing(project, rendered):
    _add_screen(project, rendered["demo-popup-01"].png)
    report = ocr_project(project, cancel=lambda: True)
    assert report.cancelled and report.computed == 0 and "cancelled" in report.summary()


def test_bulk_run_reports_a_missing_image_and_goes_on(project):
    with project.transaction() as s:
        s.add(Screen(sha256="f" * 64, ext="png", width=10, height=10))
    report = ocr_project(project)
    assert report.computed == 0 and len(report.failed) == 1 and "f" * 12 in report.summary()


# -- the other engines: messages, and their output formats --------------------------------

def test_registry_names_engines_and_refuses_unknown_ones():
    assert set(registry.ENGINES) == {"rapidocr", "easyocr", "tesseract"}
    assert set(registry.status()) == set(registry.ENGINES)
    with pytest.raises(OcrUnavailable, match="unknown OCR engine 'paddle'.*rapidocr"):
        registry.get_engine("paddle")
    assert registry.available("paddle")[0] is False


def test_easyocr_not_installed_says_so(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "easyocr" else real(name, *a))
    ok, reason = EasyOcrEngine.available("en")
    assert not ok and "easyocr is not installed" in reason and "pip install easyocr" in reason
    with pytest.raises(OcrUnavailable, match="not installed"):
        EasyOcrEngine("en")


@pytest.fixture
def fake_easyocr(tmp_path, monkeypatch):
    """An importable `easyocr` whose Reader records how it was called (stands in for the
    1 GB package; it is not our code)."""
    pkg = tmp_path / "site" / "easyocr"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(textwrap.dedent("""
        calls = []
        class Reader:
            def __init__(self, lang_list, **kw):
                calls.append((lang_list, kw))
    """))
    monkeypatch.syspath_prepend(str(pkg.parent))
    monkeypatch.delitem(sys.modules, "easyocr", raising=False)
    yield
    sys.modules.pop("easyocr", None)


def test_easyocr_without_weights_names_the_files_and_the_folder_and_never_loads(fake_easyocr, tmp_path):
    folder = tmp_path / "weights"
    ok, reason = EasyOcrEngine.available("en", model_dir=str(folder))
    assert not ok
    assert "craft_mlt_25k.pth" in reason and "english_g2.pth" in reason and str(folder) in reason
    with pytest.raises(OcrUnavailable, match="english_g2.pth"):
        EasyOcrEngine("en", model_dir=str(folder))
    import easyocr

    assert easyocr.calls == []  # refused before any Reader (which would download) was made
    assert "latin_g2.pth" in EasyOcrEngine.available("de", model_dir=str(folder))[1]


def test_easyocr_with_weights_loads_with_downloads_disabled(fake_easyocr, tmp_path):
    folder = tmp_path / "weights"
    folder.mkdir()
    for name in ("craft_mlt_25k.pth", "english_g2.pth"):
        (folder / name).write_bytes(b"weights")
    assert EasyOcrEngine.available("en", model_dir=str(folder)) == (True, "")
    EasyOcrEngine("en", model_dir=str(folder))
    EasyOcrEngine("en", model_dir=str(tmp_path / "elsewhere"), allow_downloads=True)
    import easyocr

    (langs, kw), (_, kw2) = easyocr.calls
    assert langs == ["en"] and kw["download_enabled"] is False and kw["model_storage_directory"] == str(folder)
    assert kw2["download_enabled"] is True  # only when the caller allows it


def test_easyocr_output_becomes_words():
    # readtext(detail=1) output, as easyocr returns it: numpy ints, numpy float confidence
    sample = [
        ([[np.int32(10), np.int32(20)], [np.int32(130), np.int32(20)], [np.int32(130), np.int32(44)],
          [np.int32(10), np.int32(44)]], "Send me my code", np.float64(0.97)),
        ([[200, 21], [240, 21], [240, 43], [200, 43]], "Cart", 0.88),
        ([[300, 21], [320, 21], [320, 43], [300, 43]], " ", 0.1),
    ]
    words = convert_easyocr(sample)
    assert [w.text for w in words] == ["Send", "me", "my", "code", "Cart"]
    assert words[-1].xyxy == (200, 21, 240, 43) and words[-1].conf == pytest.approx(0.88)
    assert words[0].xyxy[0] == 10 and words[3].xyxy[2] == 130 and all(w.kind == "word" for w in words)
    assert isinstance(words[0].conf, float)


TSV = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    "1\t1\t0\t0\t0\t0\t0\t0\t2560\t1600\t-1\t\n"
    "2\t1\t1\t0\t0\t0\t900\t960\t300\t40\t-1\t\n"
    "4\t1\t1\t1\t1\t0\t900\t960\t300\t40\t-1\t\n"
    "5\t1\t1\t1\t1\t1\t900\t960\t120\t40\t96.5\tAccept\n"
    "5\t1\t1\t1\t1\t2\t1040\t962\t160\t38\t91.25\tcookies\n"
    "5\t1\t1\t1\t1\t3\t1210\t962\t10\t38\t12.0\t \n"
)


def test_tesseract_tsv_becomes_words_in_image_pixels():
    words = parse_tsv(TSV, scale=2.0)
    assert [(w.text, w.xyxy) for w in words] == [("Accept", (450, 480, 510, 500)), ("cookies", (520, 481, 600, 500))]
    assert words[0].conf == pytest.approx(0.965)
    assert parse_tsv("") == [] and parse_tsv("garbage\nrow") == []


def test_tesseract_missing_binary_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    ok, reason = TesseractEngine.available("en")
    assert not ok and "tesseract binary not found on PATH" in reason and "apt install tesseract-ocr" in reason
    with pytest.raises(OcrUnavailable, match="not found on PATH"):
        registry.get_engine("tesseract")


# -- command line ------------------------------------------------------------------------------

def _cli(argv):
    from desktop_app.cli.common import add_project as _add_project
    from desktop_app.cli.ocr_command import add_ocr_command

    parser = argparse.ArgumentParser(prog="screenlab")
    add_ocr_command(parser.add_subparsers(dest="command"), _add_project)
    args = parser.parse_args(argv)
    return args.func(args)


@pytest.mark.browser
def test_cli_ocr_reports_what_it_did(ocr_done, capsys):
    folder, _, _, _ = ocr_done
    assert _cli(["ocr", str(folder), "-q"]) == 0
    out = capsys.readouterr().out
    assert "2 screens, 0 read, 2 already cached, 0 failed" in out


def test_cli_ocr_with_an_unavailable_engine_fails_cleanly(project, monkeypatch, tmp_path, capsys):
    _add_screen_png = Image.new("RGB", (20, 20), "white")
    buf = io.BytesIO()
    _add_screen_png.save(buf, format="PNG")
    _add_screen(project, buf.getvalue())
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _cli(["ocr", str(project.folder), "--engine", "tesseract"]) == 2
    assert "tesseract binary not found" in capsys.readouterr().err


def _tesseract_recording_its_thread_limit(tmp_path: Path) -> tuple[str, Path]:
    """The real tesseract command behind a script that first writes down the OpenMP limit it was given."""
    import shutil

    real = shutil.which("tesseract")
    if real is None:  # .ci/system-deps.sh installs it, and .ci/run asks for it; a developer's machine may lack it
        if os.environ.get("SCREENLAB_REQUIRE_TESSERACT"):
            pytest.fail("SCREENLAB_REQUIRE_TESSERACT is set, yet there is no tesseract command")
        pytest.skip("no tesseract command (apt install tesseract-ocr)")
    record = tmp_path / "limit.txt"
    wrapper = tmp_path / "tesseract"
    wrapper.write_text(f'#!/bin/sh\nprintf %s "${{OMP_THREAD_LIMIT-unset}}" > "{record}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper), record


def test_tesseract_reads_with_one_openmp_thread_unless_the_user_sets_a_limit(tmp_path, monkeypatch):
    # Debian's tesseract spins OpenMP threads against each other: 3.8 s a screen instead of 0.5 s here (ADR 0073)
    binary, record = _tesseract_recording_its_thread_limit(tmp_path)
    screen = Path(__file__).resolve().parents[1] / "datasets" / "demo" / "images"
    image = np.asarray(Image.open(sorted(screen.glob("*.png"))[0]).convert("RGB"))
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    words = registry.get_engine("tesseract", "en", binary=binary).read(image)
    assert record.read_text() == "1" and len(words) > 10
    monkeypatch.setenv("OMP_THREAD_LIMIT", "2")
    assert registry.get_engine("tesseract", "en", binary=binary).read(image) == words
    assert record.read_text() == "2"
