"""How a trajectory sits in an episode, and an agent's action in it as a judge reads it and the viewer draws it.

A trajectory is an episode of kind "trajectory": episode.meta["trajectory"] holds the policy, the
final response, the platform and the source; step.meta["action"] a TrajectoryAction. Formats read
and write this layout; judging/ works on it.

A text judge never sees coordinates (they mean nothing once the screen is a caption), so each
action has a short text in the authors' renderings: Android DualPoint -> "tap" or "swipe on
screen" (touch and lift more than 0.05 apart, normalised), web -> "click at [element]" /
"type [text] at [element]", iOS taps -> "tap". The viewer keeps the points (normalised 0..1)
to draw taps and swipes on the screen, which the paper's text evaluators lose.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

SWIPE_DISTANCE = 0.05  # normalised distance between touch and lift above which a DualPoint is a swipe
KINDS = ("tap", "swipe", "click", "type", "scroll", "key", "back", "home", "stop", "other")

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_POINT = re.compile(r"(Touch|Lift) Point:\s*\(\s*(-?[\d.]+)\s*,\s*(-?[\d.]+)\s*\)")
_RENDERED = re.compile(r"^(click) at \[.*\]$|^(type) \[.*\] at \[.*\]$")
_ANDROID_TYPE = re.compile(r"Action Type:\s*(\w+)")
_ANDROID_KINDS = {"Type": "type", "GoBack": "back", "GoHome": "home", "Enter": "key", "TaskComplete": "stop",
                  "TaskImpossible": "stop", "PressBack": "back", "PressHome": "home", "PressEnter": "key"}


@dataclass(frozen=True)
class TrajectoryAction:
    kind: str
    text: str  # what a judge reads
    points: tuple[tuple[float, float], ...] = ()  # normalised (x, y): a tap has one, a swipe two
    raw: str = ""  # as the source wrote it

    def to_json(self) -> dict:
        return {"kind": self.kind, "text": self.text, "points": [list(p) for p in self.points], "raw": self.raw}

    @classmethod
    def from_json(cls, data: dict | None) -> TrajectoryAction:
        data = data or {}
        points = tuple((float(p[0]), float(p[1])) for p in data.get("points") or [] if len(p) == 2)
        return cls(str(data.get("kind", "other")), str(data.get("text", "")), points, str(data.get("raw", "")))


def android_action(raw: str) -> TrajectoryAction:
    """`Action Type: DualPoint, Touch Point: (x, y), Lift Point: (x, y)` (x first, normalised) and the
    other Android actions (Type, GoBack, GoHome, Enter, TaskComplete), whose text stays as written."""
    points = {name: (_coordinate(x), _coordinate(y)) for name, x, y in _POINT.findall(raw)}
    if any(None in point for point in points.values()):
        points = {}  # "(1.2.3, 5)" or 400 digits: no point to draw, and no infinity stored
    if "DualPoint" in raw and len(points) == 2:
        touch, lift = points["Touch"], points["Lift"]
        if math.dist(touch, lift) > SWIPE_DISTANCE:
            return TrajectoryAction("swipe", "swipe on screen", (touch, lift), raw)
        return TrajectoryAction("tap", "tap", (touch,), raw)
    if "DualPoint" in raw:
        # the authors read any four numbers: keep that for strings written another way
        numbers = [_coordinate(n) for n in _NUMBER.findall(raw)]
        if len(numbers) == 4 and None not in numbers:
            touch, lift = (numbers[0], numbers[1]), (numbers[2], numbers[3])
            swipe = math.dist(touch, lift) > SWIPE_DISTANCE
            return TrajectoryAction("swipe" if swipe else "tap", "swipe on screen" if swipe else "tap",
                                    (touch, lift) if swipe else (touch,), raw)
    found = _ANDROID_TYPE.search(raw)
    kind = _ANDROID_KINDS.get(found.group(1), "other") if found else "other"
    return TrajectoryAction(kind, raw.strip(), (), raw)


def _coordinate(text: str) -> float | None:
    """A normalised coordinate as written, None when it is no finite number."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def web_action(raw: str) -> TrajectoryAction:
    """WebArena's `click [id] where [id] is <role> <name>` -> `click at [<name>]` (the words after the
    sixth, as the authors cut it), `type [id] [text] [enter] where [id] is ...` -> `type [text] at [...]`,
    scroll and stop as written."""
    rendered = _RENDERED.match(raw)
    if rendered:  # already in the judge's words (our own export): keep it
        return TrajectoryAction(rendered.group(1) or rendered.group(2), raw, (), raw)
    words = raw.split(" ")
    head = words[0] if words else ""
    if head == "click":
        return TrajectoryAction("click", f"click at [{' '.join(words[6:])}]", (), raw)
    if head == "type":
        brackets = re.findall(r"\[(.*?)\]", raw)
        if len(brackets) >= 2:
            element = raw[raw.rfind("]") + 1:].strip()
            return TrajectoryAction("type", f"type [{brackets[1].strip()}] at [{element}]", (), raw)
    if head in ("scroll", "stop"):
        return TrajectoryAction(head, raw, (), raw)
    return TrajectoryAction("other", raw.replace("_", " ") if len(words) <= 1 else raw, (), raw)


def ios_action(translated: str) -> TrajectoryAction:
    if "tap" in translated:
        return TrajectoryAction("tap", "tap", (), translated)
    return TrajectoryAction("other", translated, (), translated)


def unified_action(other: dict, platform: str) -> TrajectoryAction:
    """The action of one step of the authors' UnifiedTrajectory layout (`step.other`)."""
    if platform == "android":
        return android_action(str(other.get("action", "")))
    if platform == "ios":
        return ios_action(str(other.get("translated_action", "")))
    return web_action(str(other.get("raw_action", "")))


def screenlab_action(action_type: str, element: str, typed: str = "", point: tuple | None = None,
                     size: tuple[int, int] | None = None) -> TrajectoryAction:
    """An action of ours (a labelled gold box, or an agent's parsed answer) in the web rendering;
    the point, when known, is kept normalised for drawing."""
    points = ()
    if point is not None and size and size[0] and size[1]:
        points = ((point[0] / size[0], point[1] / size[1]),)
    name = element.strip() or "an unnamed element"
    if action_type == "type":
        return TrajectoryAction("type", f"type [{typed}] at [{name}]", points, "")
    if action_type in ("scroll", "stop", "answer"):
        return TrajectoryAction("stop" if action_type == "answer" else action_type, action_type, points, "")
    if action_type == "navigate_back":
        return TrajectoryAction("back", "go back", points, "")
    if action_type == "navigate_home":
        return TrajectoryAction("home", "go home", points, "")
    return TrajectoryAction("click", f"click at [{name}]", points, "")


KIND = "trajectory"


def trajectory_meta(policy: str, response: str = "", platform: str = "web", source: dict | None = None) -> dict:
    return {KIND: {"policy": policy, "response": response, "platform": platform, "source": source or {}}}


def info_of(episode_meta: dict | None) -> dict:
    info = (episode_meta or {}).get(KIND)
    return info if isinstance(info, dict) else {}
