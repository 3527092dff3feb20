"""Rebuild datasets/judge_demo: judged trajectories made from our own flows, for the trajectory-judge views.

    .venv/bin/python datasets/build_judge_demo.py

Reads the six navigation flows of datasets/navi_demo (no browser needed: the screens and their boxes
are there) and writes the authors' UnifiedTrajectory layout (formats/unified_trajectory.py):

  trajectory_log.json   18 trajectories, three policies per flow:
                          demonstration  the whole gold path; replies "Done."
                          early-stop     the gold path without its last step; still replies that it is done
                          wrong-turn     the gold path up to its last choice, where it picks the option next
                                         to the right one, and stops (half of them admit they could not finish)
                        web flows as rendered actions ("click at [Size 42]"), the phone flows as Android
                        DualPoint taps at the centre of the box, normalised, x first
  images/               the screens used (copied from navi_demo/images, same names)
  evals/annotators.jsonl   two annotators: "ana" labels what each policy did; "ben" misses the
                        non-stop filter once (calls that early stop a success: a tie, left unscored),
                        is unsure once and has not labelled two trajectories yet
  verdicts/*.jsonl      two scripted judges as evals lines (user_uid = the judge, comment = its reasoning),
                        imported as judge runs by `screenlab judge import-verdicts`:
                          reply-trusting judge (demo)  success when the agent says it is done
                          last-action judge (demo)     success when the last action is the task's final
                                                       step, except one demonstration it misreads
                        They are rules written here, not models: they stand for a gullible and a careful
                        judge so the agreement view has something to show before any model is run.
The demo project (desktop_app/demo.py) imports the folder and both verdict files on first run.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SOURCE = ROOT / "navi_demo"
OUT = ROOT / "judge_demo"
ANNOTATORS = ("ana", "ben")
TRUSTING = "reply-trusting judge (demo)"
CAREFUL = "last-action judge (demo)"
MISREAD = "navi-settings-timeout"  # the demonstration the careful judge gets wrong
BEN_WRONG = "navi-skyscout-flights"  # ben calls its early stop a success
BEN_UNSURE = "navi-clock-alarm"  # ben is unsure of its wrong turn
BEN_TODO = {("navi-olive-booking", "wrong-turn"), ("navi-pocketly-send", "early-stop")}


def centre(box: list[float]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def gold(step: dict) -> dict:
    return next(a for a in step["actions"] if a["label"] == "gold")


def nearest_other(step: dict) -> dict:
    """The option next to the right one: the nearest other box with text and the same kind of action."""
    target = gold(step)
    others = [a for a in step["actions"] if a["label"] != "gold" and a["box"] and a["element_text"].strip()
              and a["action_type"] == target["action_type"]]
    return min(others, key=lambda a: math.dist(centre(a["box"]), centre(target["box"])))


def action(step: dict, chosen: dict) -> dict:
    """step.other in the UnifiedTrajectory layout: raw_action (web) or action (Android)."""
    name, typed = chosen["element_text"].strip(), chosen.get("type_text", "")
    if step["platform"] == "android":
        if chosen["action_type"] == "type":
            return {"action": f'Action Type: Type, Typed Text: "{typed}"'}
        x, y = centre(chosen["box"])
        point = f"({x / step['width']:.4f}, {y / step['height']:.4f})"
        return {"action": f"Action Type: DualPoint, Touch Point: {point}, Lift Point: {point}"}
    if chosen["action_type"] == "type":
        return {"raw_action": f"type [{typed}] at [{name}]"}
    return {"raw_action": f"click at [{name}]"}


def said(chosen: dict) -> str:
    name = chosen["element_text"].strip()
    return f"type [{chosen.get('type_text', '')}] at [{name}]" if chosen["action_type"] == "type" else f"click at [{name}]"


def last_choice(episode: dict) -> int:
    """The last informative click before the final step (the final step when there is none)."""
    kinds = episode["meta"]["navi"]["step_kinds"]
    steps = episode["steps"]
    for i in range(len(steps) - 2, -1, -1):
        if kinds[i] == "informative" and gold(steps[i])["action_type"] == "click":
            return i
    return len(steps) - 1


def trajectories(episode: dict, flow_index: int) -> list[dict]:
    steps = episode["steps"]
    pick = last_choice(episode)
    plans = {
        "demonstration": ([gold(s) for s in steps], "Done."),
        "early-stop": ([gold(s) for s in steps[:-1]], "Done, the task is complete."),
        "wrong-turn": ([gold(s) for s in steps[:pick]] + [nearest_other(steps[pick])],
                       "Done." if flow_index % 2 == 0 else "I could not finish: the option I needed was not there."),
    }
    out = []
    for policy, (chosen, response) in plans.items():
        out.append({"uid": f"{episode['id']}/{policy}", "intent": episode["goal"], "response": response,
                    "policy": policy, "flow": episode["id"], "final": said(gold(steps[-1])),
                    "actions": chosen, "steps": [{"img": Path(s["image"]).name, "other": action(s, c)}
                                                 for s, c in zip(steps, chosen, strict=False)]})  # chosen may stop early
    return out


def truth(t: dict) -> str:
    return "Success" if t["policy"] == "demonstration" else "Failure"


def human_lines(log: list[dict]) -> list[dict]:
    lines = []
    for idx, t in enumerate(log):
        base = {"dataset_path": OUT.name, "task_idx": idx, "task_uid": t["uid"]}
        lines.append({**base, "user_uid": "ana", "annotation": truth(t), "comment": ""})
        if (t["flow"], t["policy"]) in BEN_TODO:
            continue
        annotation, comment = truth(t), ""
        if t["flow"] == BEN_WRONG and t["policy"] == "early-stop":
            annotation, comment = "Success", "the search ran; I did not check the non-stop filter"
        elif t["flow"] == BEN_UNSURE and t["policy"] == "wrong-turn":
            annotation, comment = "Unsure", "cannot tell which repeat option is selected"
        lines.append({**base, "user_uid": "ben", "annotation": annotation, "comment": comment})
    return lines


def judge_lines(log: list[dict]) -> dict[str, list[dict]]:
    trusting, careful = [], []
    for idx, t in enumerate(log):
        base = {"dataset_path": OUT.name, "task_idx": idx, "task_uid": t["uid"]}
        done = t["response"].startswith("Done")
        trusting.append({**base, "user_uid": TRUSTING, "annotation": "Success" if done else "Failure",
                         "comment": f"The agent replied {t['response']!r}, so "
                                    + ("it finished the task." if done else "it did not finish.")})
        last = said(t["actions"][-1])
        final = last == t["final"] and len(t["actions"]) == len(t["steps"])
        if t["flow"] == MISREAD and t["policy"] == "demonstration":
            careful.append({**base, "user_uid": CAREFUL, "annotation": "Failure",
                            "comment": f"The last frame still shows 30 seconds selected; '{last}' did not take."})
        elif final:
            careful.append({**base, "user_uid": CAREFUL, "annotation": "Success",
                            "comment": f"The last action, '{last}', is the task's final step and the frame shows "
                                       f"everything the task asked for."})
        else:
            careful.append({**base, "user_uid": CAREFUL, "annotation": "Failure",
                            "comment": f"The trajectory ends with '{last}'; the task still needed '{t['final']}'."})
    return {"reply-trusting": trusting, "last-action": careful}


def write_jsonl(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")


def main() -> int:
    episodes = [json.loads(x) for x in (SOURCE / "episodes.jsonl").read_text(encoding="utf-8").splitlines() if x]
    flows = [e for e in episodes if e["scenario"] == "navigation"]
    log = [t for i, e in enumerate(flows) for t in trajectories(e, i)]
    if OUT.exists():
        shutil.rmtree(OUT)
    (OUT / "images").mkdir(parents=True)
    for name in sorted({s["img"] for t in log for s in t["steps"]}):
        shutil.copyfile(SOURCE / "images" / name, OUT / "images" / name)
    written = [{k: t[k] for k in ("uid", "intent", "response", "policy", "steps")} for t in log]
    (OUT / "trajectory_log.json").write_text(json.dumps(written, indent=1, ensure_ascii=False) + "\n",
                                             encoding="utf-8")
    write_jsonl(OUT / "evals" / "annotators.jsonl", human_lines(log))
    for name, lines in judge_lines(log).items():
        write_jsonl(OUT / "verdicts" / f"{name}.jsonl", lines)
    print(f"{len(log)} trajectories from {len(flows)} flows -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
