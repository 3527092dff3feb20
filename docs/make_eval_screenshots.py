"""Render the evaluation widgets on the demo project into docs/.

    .venv/bin/python docs/make_eval_screenshots.py

Runs three agents on a scratch copy of the demo - the `center` and `random` baselines and an
element-text agent served by the local fake OpenAI server (tests/openai_server.py) that picks the
gold element, except on every third goal where it falls for the distraction - then saves:

  docs/eval-overlay.png    one pop-up screen: its boxes, every agent's marker and verdict badge,
                           the legend, the answers panel and the runs list
  docs/eval-dashboard.png  the dashboard, by scenario (ScreenLab's rules)
  docs/eval-rules.png      the dashboard, the two rule sets side by side, by scenario
  docs/eval-new-run.png    the New run dialog: agents, patterns, the protocol, what is left out

Offscreen; nothing of yours is touched (settings go to a temporary folder).
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["SCREENLAB_CONFIG_DIR"] = tempfile.mkdtemp()  # never save into the user's settings
DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS.parent))
sys.path.insert(0, str(DOCS.parent / "tests"))

from PIL import Image as PILImage  # noqa: E402
from PySide6.QtCore import QEventLoop, QRectF, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QApplication, QSplitter, QVBoxLayout, QWidget  # noqa: E402
from sqlalchemy import select  # noqa: E402

from desktop_app.agents.profiles import BASELINES, AgentProfile  # noqa: E402
from desktop_app.evaluation.step_predictions import step_prediction_rows  # noqa: E402
from desktop_app.formats.transfer import import_path  # noqa: E402
from desktop_app.paths import demo_dataset_dir  # noqa: E402
from desktop_app.runs.engine import RunRequest  # noqa: E402
from desktop_app.store import models as m  # noqa: E402
from desktop_app.store.project import Project  # noqa: E402
from desktop_app.store.queries import EpisodeFilter  # noqa: E402
from desktop_app.ui.app import application  # noqa: E402
from desktop_app.ui.canvas.scene import AnnotationScene  # noqa: E402
from desktop_app.ui.canvas.view import CanvasView  # noqa: E402
from desktop_app.ui.eval.dashboard import DashboardWidget  # noqa: E402
from desktop_app.ui.eval.prediction_layer import PredictionLayer, draw_legend, marks_from_rows  # noqa: E402
from desktop_app.ui.eval.prediction_panel import PredictionPanel  # noqa: E402
from desktop_app.ui.eval.run_dialog import RunDialog  # noqa: E402
from desktop_app.ui.eval.runs_panel import RunsPanel  # noqa: E402
from desktop_app.ui.theme import apply_theme  # noqa: E402

from openai_server import FakeOpenAI, Response, user_text  # noqa: E402

EPISODE = "demo-popup-04"
TASK = re.compile(r"(?:Task: |<user_goal>)(.*?)(?:</user_goal>|\n|$)")


class LegendView(CanvasView):
    """The canvas plus the legend in the top-right corner (what the main window's view will do)."""

    layer: PredictionLayer | None = None

    def drawForeground(self, painter, rect) -> None:
        super().drawForeground(painter, rect)
        if self.layer is not None:
            painter.save()
            painter.resetTransform()
            draw_legend(painter, QRectF(self.viewport().rect()), self.layer.legend_entries())
            painter.restore()


def element_agent(project: Project) -> tuple[FakeOpenAI, dict]:
    """A fake model that names the gold element, or the distracting one on every third goal."""
    texts: dict[str, dict[str, str]] = {}
    with project.reading() as s:
        for goal, label, text in s.execute(
                select(m.Episode.goal, m.ActionBox.label, m.ActionBox.element_text).select_from(m.Episode)
                .join(m.Step, m.Step.episode_id == m.Episode.id).join(m.ActionBox, m.ActionBox.step_id == m.Step.id)
                .where(m.ActionBox.x1.is_not(None))):
            texts.setdefault(goal, {}).setdefault(label, text)
    fooled = set(sorted(texts)[::3])

    def respond(body, n):
        found = TASK.findall(user_text(body))
        goal = found[-1].strip() if found else ""
        pick = texts.get(goal, {})
        label = "distracted" if goal in fooled and "distracted" in pick else "gold"
        return Response(text=json.dumps({"action_type": "click", "element": pick.get(label, "nothing")}),
                        delay=0.02)

    return FakeOpenAI(respond), texts


def run_agents(project: Project, panel: RunsPanel, server: FakeOpenAI) -> list[int]:
    agent = AgentProfile(name="element-agent", base_url=server.base_url, model="fake-element-model",
                         convention="json-text", concurrency=4, max_retries=0)
    finished: list[int] = []
    loop = QEventLoop()
    panel.runFinished.connect(lambda run_id: (finished.append(run_id), len(finished) == 3 and loop.quit()))
    run_ids = panel.start_runs([RunRequest(BASELINES["center"]), RunRequest(BASELINES["random"]), RunRequest(agent)])
    QTimer.singleShot(30_000, loop.quit)  # never hang a docs build
    loop.exec()
    if len(finished) != 3:
        raise SystemExit(f"runs did not finish: {finished} of {run_ids}")
    return run_ids


def settle(n: int = 10) -> None:
    for _ in range(n):
        QApplication.processEvents()


def main() -> None:
    app = application()
    apply_theme(app, "light")
    scratch = Path(tempfile.mkdtemp()) / "demo"
    with Project.init(scratch) as project:
        import_path(project, demo_dataset_dir(), "screenlab")
        server, _ = element_agent(project)
        with server:
            window = QWidget()
            window.setWindowTitle("ScreenLab — evaluation")
            panel = RunsPanel(project)
            run_ids = run_agents(project, panel, server)

            with project.reading() as s:
                step, screen = s.execute(select(m.Step, m.Screen).join(m.Episode).join(
                    m.Screen, m.Screen.id == m.Step.screen_id).where(m.Episode.key == EPISODE)).one()
                boxes = list(s.execute(select(m.ActionBox).where(m.ActionBox.step_id == step.id)).scalars())
            scene = AnnotationScene()
            scene.load(QImage(str(project.image_path(screen))), screen.width, screen.height, boxes)
            layer = PredictionLayer(scene.image_rect)
            scene.addItem(layer)
            rows = step_prediction_rows(project, step.id, run_ids)
            layer.set_predictions(marks_from_rows(rows, panel.colour_of))
            view = LegendView(scene)
            view.layer = layer
            answers = PredictionPanel()
            answers.show_predictions(rows)

            top = QSplitter(Qt.Horizontal)
            top.addWidget(view)
            top.addWidget(answers)
            top.setSizes([1080, 420])
            body = QSplitter(Qt.Vertical)
            body.addWidget(top)
            body.addWidget(panel)
            body.setSizes([760, 150])
            QVBoxLayout(window).addWidget(body)
            window.resize(1500, 940)
            window.show()
            settle()
            view.fit()
            settle()
            window.grab().save(str(DOCS / "eval-overlay.png"))
            print(f"wrote {DOCS / 'eval-overlay.png'}")
            for r in rows:
                print(f"  run {r['run']} {r['agent']}: point {r['point']} element {r['element']!r} -> {r['verdict']}")

            dashboard = DashboardWidget()
            dashboard.resize(1400, 820)
            dashboard.show()
            loop = QEventLoop()
            dashboard.refreshed.connect(loop.quit)
            dashboard.refresh(project, run_ids)
            QTimer.singleShot(10_000, loop.quit)
            loop.exec()
            settle()
            dashboard.grab().save(str(DOCS / "eval-dashboard.png"))
            print(f"wrote {DOCS / 'eval-dashboard.png'}")
            dashboard.set_rules("both")
            settle()
            dashboard.grab().save(str(DOCS / "eval-rules.png"))
            print(f"wrote {DOCS / 'eval-rules.png'}")

            shots = scratch.parent / "shots"  # two screenshots nobody labelled yet: the dialog leaves them out
            for i in range(2):
                shots.mkdir(exist_ok=True)
                PILImage.new("RGB", (1280, 800), (240, 240, 240 - 20 * i)).save(shots / f"raw-{i}.png")
            import_path(project, shots, "images")
            gpt = AgentProfile(name="gpt-4o", base_url="https://api.openai.com/v1", model="gpt-4o",
                               convention="json-text", image_detail="low", price_in_per_mtok=2.5,
                               price_out_per_mtok=10)
            dialog = RunDialog(project, current_filter=EpisodeFilter(), profiles={"gpt-4o": gpt})
            dialog.set_agents(["gpt-4o", "center"])
            dialog.set_patterns(["direct", "cot"])
            dialog.show()
            loop = QEventLoop()
            dialog.estimateChanged.connect(loop.quit)
            QTimer.singleShot(10_000, loop.quit)
            loop.exec()
            settle()
            dialog.grab().save(str(DOCS / "eval-new-run.png"))
            print(f"wrote {DOCS / 'eval-new-run.png'}")
            dialog.close()
            panel.shutdown()
            window.close()
            dashboard.close()


if __name__ == "__main__":
    main()
