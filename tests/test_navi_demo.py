"""The multi-step demo (datasets/navi_demo): rendered flows and their hand-written ambiguous variants."""

import json
import re
from pathlib import Path

import pytest

from desktop_app.formats.transfer import export_path, import_path
from desktop_app.navi.model import navi_of
from desktop_app.store.models import ActionBox, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

NAVI_DEMO = Path(__file__).resolve().parents[1] / "datasets" / "navi_demo"
STOPWORDS = {"a", "an", "the", "to", "in", "on", "at", "for", "of", "and", "with", "from", "by"}


def _words(text):
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The navi demo imported into a project: {key: (episode, [(step, screen, [boxes])])}."""
    with Project.init(tmp_path_factory.mktemp("navi") / "proj") as project:
        report = import_path(project, NAVI_DEMO, "screenlab")
        with project.reading() as s:
            episodes = {}
            for episode in s.exec(select(Episode).order_by(Episode.id)).all():
                rows = s.exec(select(Step, Screen).join(Screen, Screen.id == Step.screen_id)
                              .where(Step.episode_id == episode.id).order_by(Step.index)).all()
                episodes[episode.key] = (episode, [
                    (step, screen, s.exec(select(ActionBox).where(ActionBox.step_id == step.id)).all())
                    for step, screen in rows])
        yield report, episodes


def test_navi_demo_is_small_and_imports(demo):
    size = sum(p.stat().st_size for p in NAVI_DEMO.rglob("*") if p.is_file())
    assert size < 2_000_000
    report, episodes = demo
    sources = [e for e, _ in episodes.values() if e.scenario == "navigation"]
    ambiguous = [e for e, _ in episodes.values() if e.scenario == "ambiguous"]
    assert report.episodes == len(episodes) and len(sources) == 6 and len(ambiguous) >= 6
    assert all(3 <= len(episodes[e.key][1]) <= 6 for e in sources)
    # desktop and mobile screens, both made by our renderer
    sizes = {(screen.width, screen.height) for _, steps in episodes.values() for _, screen, _ in steps}
    assert sizes == {(1280, 800), (412, 915)}
    statuses = [e.review_status for e in ambiguous]
    assert statuses.count("pending") == 2 and set(statuses) == {"accepted", "pending"}
    assert {e.review_status for e in sources} == {"accepted"}


def test_every_step_has_one_gold_action_inside_its_image(demo):
    _, episodes = demo
    for key, (_, steps) in episodes.items():
        for step, screen, boxes in steps:
            golds = [b for b in boxes if b.label == "gold"]
            assert len(golds) == 1, (key, step.index)
            gold = golds[0]
            assert gold.has_box and gold.source == "dom", (key, step.index)
            assert 0 <= gold.x1 < gold.x2 <= screen.width and 0 <= gold.y1 < gold.y2 <= screen.height
            assert step.instruction, (key, step.index)
            assert (gold.action_type == "type") == bool(gold.type_text), (key, step.index)


def test_ambiguous_episodes_ask_at_an_informative_step_and_drop_its_words(demo):
    _, episodes = demo
    for key, (episode, steps) in episodes.items():
        info = navi_of(episode)
        assert info is not None and len(info.step_kinds) == len(steps), key
        if episode.scenario != "ambiguous":
            assert info.original_task == episode.goal and not info.qa_pairs
            continue
        assert episode.goal == info.ambiguous_task and key.startswith(info.source_episode + "-ambiguous-")
        source, source_steps = episodes[info.source_episode]
        assert info.original_task == source.goal and info.step_kinds == navi_of(source).step_kinds
        # the same screens and boxes as the source
        assert [sc.sha256 for _, sc, _ in steps] == [sc.sha256 for _, sc, _ in source_steps]
        assert [s.instruction for s, _, _ in steps] == [s.instruction for s, _, _ in source_steps]
        assert ([[(b.label, b.x1, b.y1, b.x2, b.y2, b.type_text) for b in bs] for _, _, bs in steps]
                == [[(b.label, b.x1, b.y1, b.x2, b.y2, b.type_text) for b in bs] for _, _, bs in source_steps])
        assert len(info.qa_pairs) == 1, key
        pair = info.qa_pairs[0]
        assert pair.ask_step == pair.removed_step and 0 <= pair.ask_step < len(steps)
        assert info.step_kinds[pair.ask_step] == "informative", key
        assert pair.question.endswith("?") and pair.answer
        assert len(info.ambiguous_task) < len(info.original_task), key
        assert pair.overlap and pair.overlap.lower() in info.original_task.lower(), key
        assert pair.overlap.lower() not in info.ambiguous_task.lower(), key
        assert not _words(pair.overlap) & _words(info.ambiguous_task), key


def test_navi_demo_round_trips_through_naviplus(tmp_path):
    with Project.init(tmp_path / "a") as first:
        import_path(first, NAVI_DEMO, "screenlab")
        report = export_path(first, tmp_path / "out", "naviplus")
        with first.reading() as s:
            wanted = {e.key: e.meta["navi"] for e in s.exec(select(Episode).where(Episode.scenario == "ambiguous"))}
    assert report.episodes == len(wanted) and report.skipped == 6
    lines = [json.loads(x) for x in (tmp_path / "out" / "naviplus.jsonl").read_text().splitlines()]
    assert all(line["steps"][line["qa_pairs"][0]["ask_step"]]["step_kind"] == "informative" for line in lines)
    with Project.init(tmp_path / "b") as second:
        import_path(second, tmp_path / "out", "naviplus")
        with second.reading() as s:
            got = {e.key: e.meta["navi"] for e in s.exec(select(Episode))}
    assert got == wanted
