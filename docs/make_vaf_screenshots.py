"""docs/vaf-page.png: Page & target on the demo laptop shop (the target outlined, the prompt's words);
docs/vaf-verify.png: a variant being verified beside the original;
docs/vaf-results.png: two agents' browse runs: the delta heatmap and the ranked tables;
docs/vaf-replay.png: one trial replayed at its last step (the click on the page).

    QT_QPA_PLATFORM=offscreen .venv/bin/python docs/make_vaf_screenshots.py

The agents answer through the local fake OpenAI server of the tests (tests/openai_server.py): each scrolls
down and back up, then clicks one of a few places of the first screen, so a variant that moves or
restyles the target changes where the clicks land.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
os.environ["SCREENLAB_DATA_DIR"] = tempfile.mkdtemp()
os.environ["SCREENLAB_TEST_KEY"] = "sk-screenshots"
DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS.parent / "tests"))

from PySide6.QtWidgets import QApplication  # noqa: E402

from desktop_app import api  # noqa: E402
from desktop_app.cli.main import main as cli  # noqa: E402
from desktop_app.render.renderer import Renderer  # noqa: E402
from desktop_app.settings import Settings  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.main_window import MainWindow  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402
from desktop_app.ui.vaf.window import PAGE, RESULTS, TABLE, VERIFY  # noqa: E402
from desktop_app.vaf.settings import Setting  # noqa: E402
from desktop_app.vaf.study import generate_study  # noqa: E402

from openai_server import FakeOpenAI, Response, user_text  # noqa: E402

STUDY = "laptops"
SETTINGS = [Setting("background", "#ff9800"), Setting("background", "#4caf50"), Setting("fontSize", "24px"),
            Setting("card_size", "1.2"), Setting("clarity", "card_blur_2px"), Setting("fontFamily", "comic"),
            Setting("order", "middle"), Setting("order", "last"), Setting("position", "sidebar"),
            Setting("textColor", "#dc3545")]
REPORT: list[str] = []
PENDING = {"position_sidebar", "textColor_dc3545"}  # left for the verification shot
REJECTED = {"fontFamily_comic": "text unreadable"}
# where each agent clicks on its last screen (viewport pixels) and the laptop it says it chose, cycling
# over its answers; (640, 300) is the first card of the original page, the target
CLICKS = {"careful": [(640, 300, "Northwind 14"), (640, 330, "Northwind 14"), (640, 560, "Kestrel Air"),
                      (640, 300, "first laptop")],
          "hasty": [(640, 300, "first laptop"), (640, 700, "Veltra Chromebook"), (640, 960, "Orbis ProBook"),
                    (640, 560, "Kestrel Air")]}


def responder(body: dict, n: int) -> Response:
    said = user_text(body)
    if "semantic_understanding_score" in said:  # the judge: does a step of the response name the target?
        named = any("Northwind" in line for line in re.findall(r"^Step \d+: .*$", said, re.M))
        return Response(text=f'{{"semantic_understanding_score": {int(named)}, "reasoning": '
                             f'"{"the response names the Northwind 14" if named else "another laptop is chosen"}"}}')
    turn = max(int(x) for x in re.findall(r"^Screen (\d+) \(", said, re.M))
    if turn == 1:
        return Response(text="Thought: On this screen I see these laptops: several 14 and 15 inch laptops between "
                             "$139 and $599. I scroll down to see more options.\n"
                             "Action: scroll(start_box='(640,600)', direction='down')")
    if turn == 2:
        return Response(text="Thought: On this screen I see these laptops: Tessera Gaming 16, Fairhaven 15. The "
                             "first ones looked better; I scroll back up.\n"
                             "Action: scroll(start_box='(640,600)', direction='up')")
    x, y, name = CLICKS[body["model"]][n % 4]
    return Response(text=f"Thought: On this screen I see these laptops again. The {name} has the best price for its "
                         f"rating; I select it.\nAction: click(start_box='({x},{y})')")


def make_project(path: Path) -> Path:
    spec = next(p for p in api.vaf_demo_pages() if p.name == STUDY)
    with Project.init(path) as project, Renderer() as renderer:
        report = generate_study(project, renderer, spec, SETTINGS)
        REPORT[:] = report.lines()
        print("\n".join(REPORT))
        for v in api.vaf_variants(project, STUDY):
            if v.setting in REJECTED:
                api.verify_variant(project, v.episode_id, "reject", REJECTED[v.setting], reviewer="Ada")
            elif v.review_status == "pending" and v.setting not in PENDING:
                api.verify_variant(project, v.episode_id, "accept", reviewer="Ada")
    with FakeOpenAI(responder) as server, Project.open(path) as project:
        for name, convention in (("careful", "point-px"), ("hasty", "point-px"), ("judge", "json-text")):
            assert cli(["agents", "add", name, "--base-url", server.base_url, "--model", name, "--convention",
                        convention, "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
        for name in ("careful", "hasty"):
            run_id = api.create_run(project, name, where={"scenarios": (STUDY,)}, protocol="browse", trials=4,
                                    judge="judge", name=f"{name} · laptops")
            api.execute_run(project, run_id, concurrency=1)  # answers in a fixed order: the same pictures each time
    return path


def settle(rounds: int = 10) -> None:
    for _ in range(rounds):
        QApplication.processEvents()


def wait(condition, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            raise TimeoutError("the window did not get there")
        QApplication.processEvents()
        time.sleep(0.01)


def shoot(widget, name: str, folder: Path = DOCS) -> None:
    settle()
    out = folder / name
    widget.grab().save(str(out))
    print(f"wrote {out}")


def main() -> None:
    app = application()
    apply_theme(app, "light")
    path = make_project(Path(tempfile.mkdtemp()) / "p")
    window = MainWindow(Settings(annotator="Ada", theme="light", show_suggestions=False))
    window.resize(1500, 900)
    window.show()
    window.open_project(path)
    window.variants_action.trigger()
    vaf = window.vaf_window
    vaf.resize(1440, 880)

    vaf.show_tab(PAGE)
    page = vaf.page
    wait(lambda: page.shot is not None and page.found.text().startswith("Target found"))
    shoot(vaf, "vaf-page.png")

    vaf.show_tab(VERIFY)
    verify = vaf.verify
    wait(lambda: verify.variant_view.has_picture())
    verify.step(0)
    verify.focus_queue()
    shoot(vaf, "vaf-verify.png")

    results = vaf.results
    vaf.show_tab(RESULTS)
    wait(lambda: bool(results.heatmap.names) and results.run_combo.count() == 2)
    results.heatmap.choose(results.heatmap.names.index("order_last"), 0)
    shoot(vaf, "vaf-results.png")

    results.details.setCurrentIndex(2)  # Trials
    results.trial_list.setCurrentRow(0)
    results.replay.show_step(len(results.replay.steps()) - 1)
    shoot(vaf, "vaf-replay.png")

    if os.environ.get("VAF_EXTRA_SHOTS"):  # the click map and the table too, into that folder (not the docs)
        extra = Path(os.environ["VAF_EXTRA_SHOTS"])
        results.details.setCurrentIndex(1)
        shoot(vaf, "vaf-clicks.png", extra)
        vaf.show_tab(TABLE)
        vaf.table.report_text.setPlainText("\n".join(REPORT))
        shoot(vaf, "vaf-table.png", extra)
    vaf.close()
    window.close()


if __name__ == "__main__":
    main()
