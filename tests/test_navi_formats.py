"""AndroidControl and Mind2Web imports, and the Navi-plus JSONL of ambiguous tasks (export and import)."""

import json

import pytest

from desktop_app.cli.main import main
from desktop_app.formats.ingest import ingest
from desktop_app.formats.records import BoxRecord, EpisodeRecord, StepRecord, Where
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.navi.model import NaviInfo, QAPair, navi_of
from desktop_app.store.models import ActionBox, Episode, Screen, Step
from desktop_app.store.orm import select
from desktop_app.store.project import Project

from conftest import make_image, snapshot


def _steps(project, key):
    """[(instruction, platform, [(label, action_type, box, type_text, element_text, meta)])] of one episode."""
    with project.reading() as s:
        episode = s.exec(select(Episode).where(Episode.key == key)).one()
        rows = s.exec(select(Step, Screen).join(Screen, Screen.id == Step.screen_id)
                      .where(Step.episode_id == episode.id).order_by(Step.index)).all()
        out = []
        for step, screen in rows:
            boxes = s.exec(select(ActionBox).where(ActionBox.step_id == step.id).order_by(ActionBox.id)).all()
            out.append((step.instruction, screen.platform,
                        [(b.label, b.action_type, None if b.x1 is None else (b.x1, b.y1, b.x2, b.y2), b.type_text,
                          b.element_text, b.meta) for b in boxes]))
        return episode, out


# ---------- AndroidControl ----------

AC_ACTIONS = [
    {"action_type": "open_app", "app_name": "Clock"},
    {"action_type": "click", "x": 561, "y": 2011},
    json.dumps({"action_type": "long_press", "x": 100, "y": 200}),  # the TFRecords hold JSON strings
    {"action_type": "scroll", "direction": "down"},
    {"action_type": "input_text", "text": "Gym"},
    {"action_type": "click", "x": 300, "y": 420},
    {"action_type": "navigate_back"},
    {"action_type": "wait"},
    {"action_type": "navigate_home"},
]
AC_BOXES = [None, None, None, None, [40, 380, 1040, 460], [250, 400, 350, 440], None, None, None]


def _android_episode(folder, episode_id=7, actions=AC_ACTIONS, boxes=AC_BOXES, name=None, **changes):
    shots = []
    for i in range(len(actions) + 1):  # one screenshot per action and the final screen
        rel = f"shots/{episode_id}_{i}.png"
        make_image(folder / rel, size=(1080, 2400), color=(i * 20, 40, episode_id % 250))
        shots.append(rel)
    episode = {"episode_id": episode_id, "goal": "Set a weekday alarm called Gym",
               "step_instructions": [f"instruction {i}" for i in range(len(actions))],
               "screenshots": shots, "actions": actions, "element_boxes": boxes,
               "accessibility_trees": ["<huge>"] * len(shots), **changes}
    path = folder / (name or f"episode_{episode_id}.json")
    path.write_text(json.dumps(episode), encoding="utf-8")
    return path


def test_androidcontrol_steps_become_gold_actions(project, tmp_path):
    path = _android_episode(tmp_path / "ac")

    report = import_path(project, path, "androidcontrol")

    assert (report.episodes, report.steps, dict(report.boxes)) == (1, 9, {"gold": 9})
    episode, steps = _steps(project, "7")
    assert (episode.goal, episode.scenario) == ("Set a weekday alarm called Gym", "navigation")
    assert episode.meta["androidcontrol"] == {"final_screenshot": "shots/7_9.png"}
    assert [s[0] for s in steps] == [f"instruction {i}" for i in range(9)]
    assert {s[1] for s in steps} == {"android"}
    golds = [s[2] for s in steps]
    assert all(len(g) == 1 for g in golds)
    actions = [(a, box, text, meta) for ((_label, a, box, text, _el, meta),) in golds]
    assert actions == [
        ("open_app", None, "", {"app_name": "Clock"}),
        ("click", (561, 2011, 561, 2011), "", {"point": True}),  # no element box: a point
        ("long_press", (100, 200, 100, 200), "", {"point": True}),
        ("scroll", None, "", {"direction": "down"}),
        ("type", (40, 380, 1040, 460), "Gym", {}),  # input_text on the step's element box
        ("click", (250, 400, 350, 440), "", {"x": 300, "y": 420}),  # the element box, the tap kept
        ("navigate_back", None, "", {}),
        ("wait", None, "", {}),
        ("navigate_home", None, "", {}),
    ]
    # the final screen is not a step and is not stored
    with project.reading() as s:
        assert len(s.exec(select(Screen)).all()) == 9


def test_androidcontrol_folder_of_episodes_without_element_boxes(project, tmp_path):
    folder = tmp_path / "ac"
    actions = [{"action_type": "click", "x": 10, "y": 20}, {"action_type": "input_text", "text": "hello"}]
    _android_episode(folder, 1, actions=actions, boxes=None)
    _android_episode(folder, 2, actions=actions[:1], boxes=None)
    # episode 2 lists only the acted-on screenshot (no final screen) and no element boxes: accepted as well
    data = json.loads((folder / "episode_2.json").read_text())
    data["screenshots"] = ["shots/2_0.png"]
    del data["element_boxes"]
    (folder / "episode_2.json").write_text(json.dumps(data))

    report = import_path(project, folder, "androidcontrol")

    assert (report.episodes, report.steps) == (2, 3)
    _, steps = _steps(project, "1")
    assert steps[1][2] == [("gold", "type", None, "hello", "", {})]  # typed text without a box
    episode, _ = _steps(project, "2")
    assert "final_screenshot" not in episode.meta["androidcontrol"]


# ---------- Mind2Web ----------

def _mind2web(folder):
    make_image(folder / "shots" / "a0.png", size=(1280, 2000), color="white")
    make_image(folder / "shots" / "a1.png", size=(1280, 2000), color="gray")
    make_image(folder / "shots" / "b0.png", size=(1280, 1000), color="navy")
    tasks = [
        {"annotation_id": "task-a", "confirmed_task": "Find a one-way flight from NYC to Paris on May 2",
         "website": "united", "domain": "Travel", "subdomain": "Airlines",
         "action_reprs": ["[combobox]  From -> TYPE: NYC", "[button]  Search -> CLICK"],
         "actions": [
             {"action_uid": "u1", "operation": {"op": "TYPE", "original_op": "TYPE", "value": "NYC"},
              "screenshot": "shots/a0.png", "bbox": {"x": 100, "y": 300, "width": 200, "height": 40},
              "raw_html": "<html>not kept</html>"},
             {"action_uid": "u2", "operation": {"op": "CLICK", "original_op": "ENTER", "value": ""},
              "screenshot": "shots/a1.png",
              "pos_candidates": [{"tag": "button", "attributes": json.dumps(
                  {"backend_node_id": "136", "bounding_box_rect": "900.5,310,120,44"})}]},
         ]},
        {"annotation_id": "task-b", "confirmed_task": "Sort the results by price",
         "website": "shop", "domain": "Shopping", "subdomain": "General",
         "actions": [{"action_uid": "u3", "operation": {"op": "SELECT", "original_op": "SELECT",
                                                         "value": "Price: low to high"},
                      "screenshot": "shots/b0.png", "bbox": [10, 20, 300, 36]}]},
    ]
    path = folder / "mind2web.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    return path


def test_mind2web_operations_and_boxes(project, tmp_path):
    path = _mind2web(tmp_path / "m2w")

    report = import_path(project, path, "mind2web")

    assert (report.episodes, report.steps, dict(report.boxes)) == (2, 3, {"gold": 3})
    episode, steps = _steps(project, "task-a")
    assert (episode.goal, episode.scenario) == ("Find a one-way flight from NYC to Paris on May 2", "navigation")
    assert episode.meta["mind2web"] == {
        "website": "united", "domain": "Travel", "subdomain": "Airlines",
        "action_reprs": ["[combobox]  From -> TYPE: NYC", "[button]  Search -> CLICK"]}
    assert {s[1] for s in steps} == {"web"}
    assert steps[0][2] == [("gold", "type", (100, 300, 300, 340), "NYC", "From", {"action_uid": "u1",
                                                                                  "original_op": "TYPE"})]
    assert steps[1][2] == [("gold", "click", (900.5, 310, 1020.5, 354), "", "Search",
                            {"action_uid": "u2", "original_op": "ENTER", "backend_node_id": "136", "tag": "button"})]
    _, steps = _steps(project, "task-b")
    assert steps[0][2][0][1:4] == ("select", (10, 20, 310, 56), "Price: low to high")


# ---------- bad input: named, and nothing changes ----------

@pytest.fixture
def populated(project, tmp_path):
    make_image(tmp_path / "existing" / "old.png", color="purple")
    import_path(project, tmp_path / "existing", "images")
    return project


def _fails(project, path, fmt, capsys):
    before = snapshot(project)
    code = main(["import", str(project.folder), str(path), "--format", fmt, "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert snapshot(project) == before, "a failed import changed the project"
    return err


def test_androidcontrol_missing_coordinate_is_named(populated, tmp_path, capsys):
    folder = tmp_path / "ac"
    _android_episode(folder, 1)
    actions = [dict(AC_ACTIONS[0]), {"action_type": "click", "y": 5}]
    bad = _android_episode(folder, 2, actions=actions, boxes=[None, None])
    err = _fails(populated, folder, "androidcontrol", capsys)
    assert f"{bad}, field 'actions[1].x': missing" in err


def test_androidcontrol_bad_coordinate_is_named(populated, tmp_path, capsys):
    folder = tmp_path / "ac"
    _android_episode(folder, 1)
    bad = _android_episode(folder, 2, actions=[{"action_type": "click", "x": "561", "y": 5}], boxes=[None])
    err = _fails(populated, folder, "androidcontrol", capsys)
    assert f"{bad}, field 'actions[0].x': expected integer or number, got str" in err


def test_androidcontrol_point_off_the_screen_leaves_no_images_behind(populated, tmp_path, capsys):
    folder = tmp_path / "ac"
    _android_episode(folder, 1)  # good, and its images are checked (and copied) first
    bad = _android_episode(folder, 2, actions=[{"action_type": "click", "x": 5000, "y": 5}], boxes=[None])
    err = _fails(populated, folder, "androidcontrol", capsys)
    assert f"{bad}, field 'actions[0]': box [5000, 5, 5000, 5] lies outside the 1080x2400 image" in err


def test_androidcontrol_unknown_action_and_count_mismatch(populated, tmp_path, capsys):
    bad = _android_episode(tmp_path / "ac", 3, actions=[{"action_type": "swipe_left"}], boxes=[None])
    err = _fails(populated, bad, "androidcontrol", capsys)
    assert f"{bad}, field 'actions[0].action_type': unknown action type 'swipe_left'" in err
    bad = _android_episode(tmp_path / "ac2", 4, step_instructions=["only one"])
    err = _fails(populated, bad, "androidcontrol", capsys)
    assert f"{bad}, field 'step_instructions': 1 instructions for 9 actions" in err


def test_mind2web_missing_field_and_bad_box(populated, tmp_path, capsys):
    path = _mind2web(tmp_path / "m2w")
    tasks = json.loads(path.read_text())
    del tasks[1]["confirmed_task"]
    path.write_text(json.dumps(tasks))
    err = _fails(populated, path, "mind2web", capsys)
    assert f"{path}, field '[1].confirmed_task': missing" in err

    tasks = json.loads(_mind2web(tmp_path / "m2w2").read_text())
    tasks[0]["actions"][1]["pos_candidates"][0]["attributes"] = json.dumps({"bounding_box_rect": "1,2,-3,4"})
    path = tmp_path / "m2w2" / "mind2web.json"
    path.write_text(json.dumps(tasks))
    err = _fails(populated, path, "mind2web", capsys)
    assert f"{path}, field '[0].actions[1].pos_candidates[0].bounding_box_rect': negative width" in err


# ---------- Navi-plus JSONL ----------

def _ambiguous_project(root) -> Project:
    """A source episode and its ambiguous variant, with every kind of gold action."""
    shots = [make_image(root / "shots" / f"s{i}.png", size=(412, 915), color=(i * 40, 90, 160)) for i in range(5)]
    golds = [
        BoxRecord("gold", None, action_type="open_app", meta={"app_name": "Pocketly"}),
        BoxRecord("gold", (20, 250, 390, 320), element_text="Maya Patel", meta={"role": "contact"}),
        BoxRecord("gold", (60, 240, 360, 300), action_type="type", type_text="25", element_text="Amount",
                  meta={"x": 100, "y": 260}),
        BoxRecord("gold", None, action_type="scroll", meta={"direction": "down"}),
        BoxRecord("gold", (206.5, 780, 206.5, 780), meta={"point": True}),
    ]
    kinds = ["transactional", "informative", "informative", "transactional", "transactional"]

    def steps():
        return [StepRecord(image=shot, platform="android", instruction=f"step {i}",
                           boxes=[BoxRecord(**{**vars(golds[i]), "meta": dict(golds[i].meta)}),
                                  BoxRecord("other", (0, 0, 40, 40), element_text="Back")])
                for i, shot in enumerate(shots)]

    task = "Send $25 to Maya Patel in Pocketly."
    info = NaviInfo(original_task=task, ambiguous_task="Send $25 in Pocketly.", step_kinds=kinds,
                    source_episode="send",
                    qa_pairs=[QAPair(1, 1, "Who should get the money?", "Maya Patel.", "to Maya Patel",
                                     llm={"question": "Who is the recipient?"})],
                    checklist={"style_kept": True}, llm={"model": "x"})
    project = Project.init(root / "project")
    ingest(project, [
        EpisodeRecord("send", Where(root / "x"), goal=task, scenario="navigation", steps=steps()),
        EpisodeRecord("send-ambiguous-1", Where(root / "x"), goal=info.ambiguous_task, scenario="ambiguous",
                      review_status="pending", meta={"navi": info.to_json()}, steps=steps()),
    ], "test", "test")
    return project


def test_naviplus_export_writes_only_ambiguous_episodes(tmp_path):
    with _ambiguous_project(tmp_path / "a") as project:
        report = export_path(project, tmp_path / "out", "naviplus")
    assert (report.episodes, report.skipped, report.images) == (1, 1, 5)
    (line,) = [json.loads(x) for x in (tmp_path / "out" / "naviplus.jsonl").read_text().splitlines()]
    assert line["episode"] == "send-ambiguous-1"
    assert (line["original_task"], line["ambiguous_task"]) == ("Send $25 to Maya Patel in Pocketly.",
                                                               "Send $25 in Pocketly.")
    assert line["qa_pairs"] == [{"ask_step": 1, "removed_step": 1, "question": "Who should get the money?",
                                 "answer": "Maya Patel.", "overlap": "to Maya Patel",
                                 "llm": {"question": "Who is the recipient?"}}]
    actions = [s["action"] for s in line["steps"]]
    assert [s["step_kind"] for s in line["steps"]] == ["transactional", "informative", "informative",
                                                       "transactional", "transactional"]
    assert actions[0] == {"action_type": "open_app", "x": None, "y": None, "box": None, "text": None,
                          "direction": None, "app_name": "Pocketly", "element": None}
    assert (actions[1]["x"], actions[1]["y"], actions[1]["box"]) == (205, 285, [20, 250, 390, 320])
    assert actions[1]["meta"] == {"role": "contact"}
    assert (actions[2]["x"], actions[2]["y"], actions[2]["text"]) == (100, 260, "25")
    assert actions[3]["direction"] == "down"
    assert (actions[4]["x"], actions[4]["y"], actions[4]["box"]) == (206.5, 780, None)  # a point
    assert all((tmp_path / "out" / s["image"]).is_file() for s in line["steps"])


def test_naviplus_round_trip(tmp_path):
    with _ambiguous_project(tmp_path / "a") as first:
        export_path(first, tmp_path / "out", "naviplus")
        _, original = _steps(first, "send-ambiguous-1")
        with first.reading() as s:
            source = s.exec(select(Episode).where(Episode.key == "send-ambiguous-1")).one()
    with Project.init(tmp_path / "b") as second:
        report = import_path(second, tmp_path / "out", "naviplus")
        assert (report.episodes, report.steps) == (1, 5)
        episode, copy = _steps(second, "send-ambiguous-1")
    assert (episode.goal, episode.scenario, episode.review_status) == (source.goal, "ambiguous", "pending")
    assert navi_of(episode) == navi_of(source)
    assert episode.meta == source.meta
    gold_only = [(instr, platform, [b for b in boxes if b[0] == "gold"]) for instr, platform, boxes in original]
    assert copy == gold_only


def test_naviplus_bad_step_reference_is_named(populated, tmp_path, capsys):
    with _ambiguous_project(tmp_path / "a") as project:
        export_path(project, tmp_path / "out", "naviplus")
    path = tmp_path / "out" / "naviplus.jsonl"
    line = json.loads(path.read_text())
    line["qa_pairs"][0]["ask_step"] = 9
    path.write_text(json.dumps(line) + "\n")
    err = _fails(populated, path, "naviplus", capsys)
    assert f"{path}, line 1, field 'qa_pairs[0].ask_step': step 9 does not exist (the episode has 5 steps)" in err
