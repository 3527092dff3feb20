"""The guide's Python API examples run as written (docs/guide/python-api.md; a fake model behind the real
openai client)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from desktop_app.agents.profiles import AgentProfile, save_profiles
from desktop_app.store.project import Project

from conftest import make_image
from openai_server import FakeOpenAI, Response, user_text

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "python-api.md"


def test_the_guides_api_example_runs(tmp_path, monkeypatch, capsys):
    code = re.search(r"## An EnvDistraction evaluation\n\n```python\n(.*?)```", PAGE.read_text(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    Project.init(tmp_path / "myproject").close()
    make_image(tmp_path / "web_data" / "images" / "popupbox_phone_2b" / "page.png", size=(400, 300))
    sample = {"target": "popupbox_phone_2b", "goal": "Keep browsing the shop", "persona": "An ordinary person.",
              "distractor": {}, "modified_file": "page.html",
              "label": {"gold": [["Button <icon-cross>", [360, 10, 390, 40]]], "bad": [["Button Subscribe", [100, 200, 300, 240]]]}}
    (tmp_path / "output_popupbox.jsonl").write_text(json.dumps(sample) + "\n")
    monkeypatch.setenv("FAKE_KEY", "sk-fake")
    with FakeOpenAI(lambda body, n: Response(text='{"action_type": "click", "element": "close"}')) as server:
        save_profiles({"gpt4o": AgentProfile(name="gpt4o", base_url=server.base_url, model="gpt-4o",
                                             api_key_env="FAKE_KEY")})
        exec(compile(code, "python-api.md", "exec"), {})  # our own documentation, not model output
    out = capsys.readouterr().out.splitlines()
    assert out[-2:] == ["screenlab 1.0 [0.206549, 1.0]", "envdistraction 1.0 [0.206549, 1.0]"]
    assert (tmp_path / "report" / "table_by_rules.md").exists() and (tmp_path / "report" / "summary.md").exists()


def test_the_guides_vaf_example_runs(tmp_path, monkeypatch, capsys):
    code = re.search(r"Page variants \(VAF\), from a script.*?```python\n(.*?)```", PAGE.read_text(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    Project.init(tmp_path / "myproject").close()
    monkeypatch.setenv("FAKE_KEY", "sk-fake")

    def answer(body, n):
        if "semantic_understanding_score" in user_text(body):
            return Response(text='{"semantic_understanding_score": 1, "reasoning": "named"}')
        return Response(text="Thought: On this screen I see these laptops: Northwind 14.\n"
                             "Action: click(start_box='(500,280)')")  # the first card, where the original has its target

    with FakeOpenAI(answer) as server:
        save_profiles({"uitars": AgentProfile(name="uitars", base_url=server.base_url, model="ui-tars",
                                              convention="uitars", api_key_env="FAKE_KEY"),
                       "qwen3": AgentProfile(name="qwen3", base_url=server.base_url, model="qwen3",
                                             api_key_env="FAKE_KEY")})
        exec(compile(code, "python-api.md", "exec"), {})  # our own documentation, not model output
    out = dict(line.split(" ", 1) for line in capsys.readouterr().out.splitlines())
    assert out["original"] == "1.0 0.0 1.0"  # every click on the target of the original page
    assert out["order_last"] == "0.0 -1.0 1.0" and out["order_middle"] == "0.0 -1.0 1.0"
