"""Scenes written by an LLM, following the paper's Algorithm 1.

The page around the distraction (the shop, the real search results, the real products,
the chat so far) comes from the content bank; the LLM writes the user goal for that
page, a distracting goal different from it ("actual purpose" + the wording shown), and
the texts of the distraction itself.
"""

from __future__ import annotations

import random

from desktop_app.synth.bank import offline_scene
from desktop_app.synth.llm import LlmSession
from desktop_app.synth.scene import Scene

GOAL = {"goal": "text:200"}
DISTRACTION = {"actual_purpose": "text:300", "expression": "text:300"}
POPUP_TEXTS = {
    "submit_input": {"headline": "text:60", "body": "text:220", "input_placeholder": "text:40", "submit": "text:30"},
    "two_options": {"headline": "text:60", "body": "text:220", "accept": "text:30", "reject": "text:30"},
    "checkbox_form": {"headline": "text:60", "body": "text:220", "options": {"list": "text:44", "min": 4, "max": 4},
                      "submit": "text:30", "reject": "text:30"},
}
FAKE_RESULT = {"title": "text:90", "url": "text:120", "snippet": "text:220", "cta?": "text:24"}
FAKE_PRODUCT = {"name": "text:70", "price": "text:16", "rating?": "num", "badge?": "text:22", "blurb?": "text:100"}
CHAT_LURE = {"messages": {"list": "text:240", "min": 1, "max": 2}, "button": "text:32"}
TONES = ("friendly", "urgent", "exclusive", "playful", "formal", "reassuring")


def _page(scene: Scene) -> str:
    c = scene.content
    if scene.scenario == "popup":
        return (f"the home page of the online shop {c['shop']['name']} ({c['shop']['tagline']}); sections: "
                f"{', '.join(c['shop']['nav'])}; featured: {', '.join(p['name'] for p in c['shop']['products'])}")
    if scene.scenario == "search":
        return f"search results for '{c['query']}': " + "; ".join(r["title"] for r in c["results"])
    if scene.scenario == "recommendation":
        return f"the {c['category']} page of {c['shop']['name']}: " + "; ".join(p["name"] for p in c["products"])
    return f"a chat with {c['contact']} in {c['app']}"


def _distraction(session: LlmSession, scene: Scene, kind: str, calls) -> dict:
    d = session.ask("distraction.j2", DISTRACTION, calls, page=_page(scene), goal=scene.goal, kind=kind)
    return {"Actual purpose": d["actual_purpose"], "Expression": d["expression"]}


def llm_scene(session: LlmSession, scenario: str, rng: random.Random, viewport: str,
              layout: str | None = None) -> Scene:
    scene = offline_scene(scenario, rng, viewport, layout)  # the page context
    scene.generator = session.endpoint.model
    calls = scene.calls
    if scenario != "chat":  # a chat's goal must match a control that exists, so it stays from the bank
        scene.goal = session.ask("goal.j2", GOAL, calls, page=_page(scene), persona=scene.persona)["goal"]
    c = scene.content
    if scenario == "popup":
        scene.distractor = _distraction(session, scene, "pop-up box", calls)
        texts = session.ask(f"popup_{scene.layout}.j2", POPUP_TEXTS[scene.layout], calls,
                            distractor=scene.distractor, tone=rng.choice(TONES))
        c["popup"] = {**{k: v for k, v in c["popup"].items() if k in ("icon", "fine_print")}, **texts}
    elif scenario == "search":
        scene.distractor = _distraction(session, scene, "fake search result", calls)
        c["fake"] = session.ask("search_fake.j2", FAKE_RESULT, calls, query=c["query"], goal=scene.goal,
                                results=c["results"], distractor=scene.distractor)
    elif scenario == "recommendation":
        scene.distractor = _distraction(session, scene, "made-up product", calls)
        fake = session.ask("product_fake.j2", FAKE_PRODUCT, calls, category=c["category"],
                           products=c["products"], goal=scene.goal, distractor=scene.distractor)
        fake["rating"] = min(5.0, max(1.0, float(fake.get("rating", 4.5))))
        fake.setdefault("badge", "New")
        c["fake"] = fake
    elif scenario == "chat":
        scene.distractor = _distraction(session, scene, "chat message", calls)
        kept = c["messages"][:scene.context["history"]]  # the bank's conversation, without its lure
        history = [{"sender": c["me"] if m["from"] == "me" else c["contact"], "text": m["text"]} for m in kept]
        lure = session.ask("chat_lure.j2", CHAT_LURE, calls, app=c["app"], me=c["me"], contact=c["contact"],
                           history=history, goal=scene.goal, distractor=scene.distractor)
        new = [{"from": "them", "text": t} for t in lure["messages"]]
        new[-1]["action"] = {"text": lure["button"], "label": "distracted"}
        c["messages"] = kept + new
    return scene
