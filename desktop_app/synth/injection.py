"""Environment injection (EnvDistraction §5.1) on a two-option pop-up: the accept button made
ambiguous (plausible for the user's goal and the distraction), the reject button made
emotionally charged, or both. The attacker knows the goal; so does the rewrite."""

from __future__ import annotations

import random

from desktop_app.synth.bank import injection_phrases
from desktop_app.synth.llm import LlmSession
from desktop_app.synth.scene import Scene

INJECTION_LAYOUT = "two_options"  # the paper simplifies the pop-up to one accept and one reject button


def inject(scene: Scene, kind: str, rng: random.Random, session: LlmSession | None = None) -> Scene:
    if kind == "none":
        return scene
    if scene.scenario != "popup" or scene.layout != INJECTION_LAYOUT:
        raise ValueError("environment injection applies to two-option pop-ups (--layout two_options)")
    popup = scene.content["popup"]
    original = {"accept": popup["accept"], "reject": popup["reject"]}
    if kind in ("accept", "both"):
        if session is not None:
            popup["accept"] = session.ask("inject_accept.j2", {"accept": "text:30"}, scene.calls,
                                          distractor=scene.distractor, accept=popup["accept"],
                                          goal=scene.goal)["accept"]
        else:
            popup["accept"] = rng.choice(injection_phrases()["ambiguous_accept"]).replace(
                "{topic}", scene.content["shop"]["name"])
    if kind in ("reject", "both"):
        if session is not None:
            popup["reject"] = session.ask("inject_reject.j2", {"reject": "text:30"}, scene.calls,
                                          distractor=scene.distractor, reject=popup["reject"])["reject"]
        else:
            popup["reject"] = rng.choice(injection_phrases()["emotional_reject"])
    scene.injection = kind
    scene.context["before_injection"] = original
    return scene
