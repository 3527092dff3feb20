"""Scenes from the hand-written content bank (resources/synth/bank.json): no LLM, no network.

Components are combined at random (a shop with a pop-up and a goal; search results with a
fake result at a random position; ...), so a small bank gives many different samples.
"""

from __future__ import annotations

import copy
import json
import random
from functools import lru_cache
from typing import Any

from desktop_app.paths import resources_dir
from desktop_app.synth.scene import Scene
from desktop_app.synth.templates import POPUP_LAYOUTS


@lru_cache(maxsize=1)
def load_bank() -> dict[str, Any]:
    return json.loads((resources_dir() / "synth" / "bank.json").read_text(encoding="utf-8"))


def _persona(bank: dict, rng: random.Random) -> str:
    # the paper gives a persona half of the time
    return rng.choice(bank["personas"]) if rng.random() < 0.5 else ""


def popup_scene(rng: random.Random, viewport: str, layout: str | None = None) -> Scene:
    bank = load_bank()["popup"]
    layout = layout or rng.choice(POPUP_LAYOUTS)
    shop = rng.choice(bank["shops"])
    popup = copy.deepcopy(rng.choice(bank["popups"][layout]))
    return Scene("popup", viewport, rng.choice(shop["goals"]),
                 {"layout": layout, "shop": copy.deepcopy(shop["shop"]), "popup": popup["popup"]},
                 popup["distractor"], _persona(load_bank(), rng), layout)


def search_scene(rng: random.Random, viewport: str, layout: str | None = None) -> Scene:
    entry = copy.deepcopy(rng.choice(load_bank()["search"]))
    results = entry["results"]
    content = {"engine": entry["engine"], "query": entry["query"], "results": results,
               "fake": rng.choice(entry["fakes"]), "fake_position": rng.randint(0, min(3, len(results))),
               "related": entry["related"]}
    return Scene("search", viewport, entry["goal"], content, entry["distractor"], _persona(load_bank(), rng))


def recommendation_scene(rng: random.Random, viewport: str, layout: str | None = None) -> Scene:
    entry = copy.deepcopy(rng.choice(load_bank()["recommendation"]))
    products = entry["products"]
    # the paper replaces one real product with the made-up one; on a phone only the first six
    # cards are on screen, and a fake below the fold would leave the sample without a distraction
    index = rng.randrange(min(len(products), 6 if viewport == "mobile" else len(products)))
    products.pop(index)
    content = {"shop": entry["shop"], "category": entry["category"], "products": products,
               "fake_index": index, "fake": rng.choice(entry["fakes"])}
    return Scene("recommendation", viewport, entry["goal"], content, entry["distractor"], _persona(load_bank(), rng))


def chat_scene(rng: random.Random, viewport: str, layout: str | None = None) -> Scene:
    entry = copy.deepcopy(rng.choice(load_bank()["chat"]))
    goal = rng.choice(entry["goals"])
    lure = rng.choice(entry["lures"])
    messages = entry["history"] + [
        {**m, "action": {**m["action"], "label": "distracted"}} if m.get("action") else m for m in lure["messages"]]
    content = {"app": entry["app"], "me": entry["me"], "contact": entry["contact"], "chats": entry["chats"],
               **({"status": entry["status"]} if entry.get("status") else {}),
               "messages": messages,
               "toolbar": [{"text": t, "label": "gold" if t == goal["gold"] else "other"} for t in entry["toolbar"]],
               "composer_label": "gold" if goal["gold"] == "composer" else "other"}
    return Scene("chat", viewport, goal["goal"], content, lure["distractor"], _persona(load_bank(), rng),
                 context={"history": len(entry["history"])})


BUILDERS = {"popup": popup_scene, "search": search_scene, "recommendation": recommendation_scene,
            "chat": chat_scene}


def offline_scene(scenario: str, rng: random.Random, viewport: str, layout: str | None = None) -> Scene:
    return BUILDERS[scenario](rng, viewport, layout)


def injection_phrases() -> dict[str, list[str]]:
    return load_bank()["popup"]["injection"]
