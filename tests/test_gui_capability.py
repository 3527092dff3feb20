"""The capability profile window, opened from the Capability menu on a project with two agents' runs."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QApplication

from desktop_app import api
from desktop_app.a11y.observe import tags
from desktop_app.cli.main import main
from desktop_app.formats.transfer import import_path
from desktop_app.paths import sphinx_demo_dataset_dir
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, episode_ids, load_bundles

from openai_server import FakeOpenAI, Response, user_text
from test_gui_editing import open_window


def make_profiled_project(path):
    """The Sphinx demo with grounding, completion and replay runs of a careful agent ("careful") and one
    that always taps the first element and never stops ("hasty"), both reading the tree."""
    import os

    os.environ.setdefault("SCREENLAB_TEST_KEY", "sk-test")
    with Project.init(path) as project:
        import_path(project, sphinx_demo_dataset_dir(), "sphinx")
        with project.reading() as s:
            grounding = load_bundles(s, episode_ids(s, EpisodeFilter(scenarios=("grounding",))))
            navigation = load_bundles(s, episode_ids(s, EpisodeFilter(scenarios=("navigation",))))
        right = {}
        for bundle in grounding:
            step = bundle.steps[0]
            tree = api.screen_tree(project, step.step.id).tree
            action = step.step.meta["reference_action"]
            tag = tags(tree)[tree.clickable_ancestor(tree.find({"bounds": action["element"]["bounds"]}).id).id]
            right[bundle.episode.goal] = (f"text [{tag}] [{action['message']}]" if action["type"] == "input"
                                          else f"click [{tag}]")
        lengths = {b.episode.goal: len(b.steps) for b in navigation}

    def scripted(body, n):
        system, said = body["messages"][0]["content"], user_text(body)
        careful = body["model"] == "careful"
        if "Carry out one instruction" in system:
            goal = re.search(r"^Instruction: (.*)$", said, re.M).group(1)
            return Response(text=right[goal] if careful or len(goal) % 2 else "click [0]")
        goal = re.search(r"^Task: (.*)$", said, re.M).group(1)
        done = 0 if "(none yet)" in said else len(re.findall(r"^\d+\. ", said, re.M))
        if "whether the task is finished" in system:
            last = done == lengths[goal] - 1
            return Response(text="stop" if last and (careful or done % 2) else "continue")
        return Response(text="press [back]" if not careful else "press [stop]")

    with FakeOpenAI(scripted) as server:
        for name in ("careful", "hasty"):
            assert main(["agents", "add", name, "--base-url", server.base_url, "--model", name,
                         "--api-key-env", "SCREENLAB_TEST_KEY", "--replace"]) == 0
            for protocol, where in (("grounding", "grounding"), ("completion", "navigation")):
                assert main(["run", str(path), "--agent", name, "--protocol", protocol, "--observation", "tree",
                             "--where", f"scenario={where}"]) == 0
    return path


def test_the_profile_window_draws_one_polygon_per_agent_and_tabulates_them(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("SCREENLAB_TEST_KEY", "sk-test")
    path = make_profiled_project(tmp_path / "p")
    window = open_window(qtbot, path)
    window.profile_action.trigger()  # Capability > Capability profile…
    view = window.capability_view
    qtbot.waitUntil(lambda: view.table.rowCount() == 2, timeout=10_000)
    assert [r.label for r in view.chart.rows] == ["careful · tree", "hasty · tree"]
    cells = {view.table.item(r, 0).text(): [view.table.item(r, c).text() for c in range(view.table.columnCount())]
             for r in range(2)}
    headers = [view.table.horizontalHeaderItem(c).text() for c in range(view.table.columnCount())]
    grounding, planning = headers.index("Grounding"), headers.index("Planning (Perfect.)")
    assert cells["careful"][grounding].startswith("100.0") and cells["careful"][planning].startswith("100.0")
    assert not cells["hasty"][grounding].startswith("100.0")
    assert cells["careful"][headers.index("Goal understanding")] == "-"  # no probe runs: never shown as 0
    picture = view.grab().toImage()
    assert picture.width() > 600  # painted without error at its size
    view.close()
    QApplication.processEvents()
