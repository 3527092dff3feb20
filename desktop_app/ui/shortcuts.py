"""Every keyboard action of the window, with its default key; users rebind them in Settings."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ActionSpec:
    id: str
    text: str
    keys: tuple[str, ...]  # default key sequences (portable text)
    group: str
    mode: str = "annotate"  # "review": only active in the verification queue, where its keys win


ACTIONS: tuple[ActionSpec, ...] = (
    ActionSpec("file.open", "Open project...", ("Ctrl+O",), "File"),
    ActionSpec("file.open_folder", "Open Screenshots Folder…", ("Ctrl+Shift+O",), "File"),
    ActionSpec("file.new", "New project...", ("Ctrl+N",), "File"),
    ActionSpec("file.import", "Import...", ("Ctrl+I",), "File"),
    ActionSpec("file.export", "Export...", ("Ctrl+E",), "File"),
    ActionSpec("file.quit", "Quit", ("Ctrl+Q",), "File"),
    ActionSpec("edit.undo", "Undo", ("Ctrl+Z",), "Edit"),
    ActionSpec("edit.redo", "Redo", ("Ctrl+Shift+Z", "Ctrl+Y"), "Edit"),
    ActionSpec("edit.draw", "Draw a box (drag)", ("W", "R"), "Edit"),
    ActionSpec("edit.select_mode", "Stop drawing / clear selection", ("Esc",), "Edit"),
    ActionSpec("edit.delete", "Delete selected boxes", ("Del", "Backspace"), "Edit"),
    ActionSpec("edit.duplicate", "Duplicate selected boxes", ("Ctrl+D",), "Edit"),
    ActionSpec("edit.copy", "Copy boxes", ("Ctrl+C",), "Edit"),
    ActionSpec("edit.paste", "Paste boxes", ("Ctrl+V",), "Edit"),
    ActionSpec("edit.select_all", "Select all boxes", ("Ctrl+A",), "Edit"),
    ActionSpec("edit.next_box", "Select next box", ("Tab",), "Edit"),
    ActionSpec("edit.prev_box", "Select previous box", ("Shift+Tab",), "Edit"),
    ActionSpec("label.gold", "Label gold", ("1",), "Label"),
    ActionSpec("label.distracted", "Label distracted", ("2",), "Label"),
    ActionSpec("label.other", "Label other", ("3",), "Label"),
    # a project's own labels (store/label_set.py), in the order it added them
    *(ActionSpec(f"label.{n}", f"Label with the project's label no. {n}", (str(n),), "Label") for n in range(4, 10)),
    ActionSpec("nudge.left", "Move left 1 px", ("Left",), "Move"),
    ActionSpec("nudge.right", "Move right 1 px", ("Right",), "Move"),
    ActionSpec("nudge.up", "Move up 1 px", ("Up",), "Move"),
    ActionSpec("nudge.down", "Move down 1 px", ("Down",), "Move"),
    ActionSpec("nudge.left10", "Move left 10 px", ("Shift+Left",), "Move"),
    ActionSpec("nudge.right10", "Move right 10 px", ("Shift+Right",), "Move"),
    ActionSpec("nudge.up10", "Move up 10 px", ("Shift+Up",), "Move"),
    ActionSpec("nudge.down10", "Move down 10 px", ("Shift+Down",), "Move"),
    ActionSpec("nav.prev", "Previous screen", ("A",), "Navigate"),
    ActionSpec("nav.next", "Next screen", ("D",), "Navigate"),
    ActionSpec("nav.prev_step", "Previous step of the episode", ("Ctrl+Left",), "Navigate"),
    ActionSpec("nav.next_step", "Next step of the episode", ("Ctrl+Right",), "Navigate"),
    ActionSpec("nav.search", "Search goals", ("Ctrl+F",), "Navigate"),
    ActionSpec("work.done", "Done, next unlabelled", ("Ctrl+Return", "Ctrl+Enter"), "Work"),
    ActionSpec("work.skip", "Skip this screen (with a reason) and go to the next", ("Ctrl+Shift+Return",), "Work"),
    ActionSpec("work.reopen", "Mark the screen in progress again", ("Ctrl+Shift+Backspace",), "Work"),
    # a reviewer's or lead's decision on an annotator's finished work (teams/work_review.py)
    ActionSpec("work.accept", "Accept the finished work on this screen (review)", ("Ctrl+Shift+Y",), "Work"),
    ActionSpec("work.return", "Return the work on this screen to its annotator, with a comment…", ("Ctrl+Shift+N",),
               "Work"),
    ActionSpec("edit.snap", "Snap box to the element under it", ("S",), "Edit"),
    ActionSpec("ocr.toggle", "Show OCR suggestions", ("O",), "OCR"),
    ActionSpec("ocr.run", "Run OCR on this screen again", ("Shift+O",), "OCR"),
    ActionSpec("ocr.accept", "Turn selected suggestions into boxes", ("Return", "Enter"), "OCR"),
    ActionSpec("view.zoom_in", "Zoom in", ("Ctrl++", "Ctrl+="), "View"),
    ActionSpec("view.zoom_out", "Zoom out", ("Ctrl+-",), "View"),
    ActionSpec("view.fit", "Fit to window", ("Ctrl+0",), "View"),
    ActionSpec("view.actual", "Actual pixels (1:1)", ("Ctrl+1",), "View"),
    ActionSpec("help.shortcuts", "Keyboard shortcuts", ("F1",), "Help"),
    ActionSpec("review.mode", "Verification queue (generated samples)", ("Ctrl+Shift+V",), "Review"),
    # one meaning per key: A / D move between samples here too, and the verdicts have keys (Y yes, N no) that
    # mean nothing elsewhere, so a key pressed out of habit never records a verdict by accident
    ActionSpec("review.accept", "Accept sample", ("Y",), "Review", "review"),
    ActionSpec("review.reject", "Reject sample (with a reason)", ("N",), "Review", "review"),
    ActionSpec("review.edit", "Edit the sample's texts", ("E",), "Review", "review"),
    ActionSpec("review.apply", "Apply edited texts (re-render)", ("Ctrl+Return",), "Review", "review"),
    ActionSpec("review.regenerate", "Regenerate sample", ("G",), "Review", "review"),
    ActionSpec("judge.label", "Label trajectories", ("Ctrl+Shift+J",), "Trajectories"),
    ActionSpec("judge.agreement", "Judge agreement", ("Ctrl+Shift+K",), "Trajectories"),
    ActionSpec("tree.snap", "Snap box to the best-matching tree node", ("Ctrl+Shift+S",), "Tree"),
    ActionSpec("tree.promote", "Promote box to its clickable ancestor node", ("Ctrl+Shift+U",), "Tree"),
    ActionSpec("tree.flag", "Flag the tree node's clickable value as wrong", ("Ctrl+Shift+L",), "Tree"),
)

BY_ID = {a.id: a for a in ACTIONS}
WINDOW_GROUPS = ("File", "Help", "Trajectories")  # keys that act on the window, not on the canvas
NUDGES = {"nudge.left": (-1, 0), "nudge.right": (1, 0), "nudge.up": (0, -1), "nudge.down": (0, 1),
          "nudge.left10": (-10, 0), "nudge.right10": (10, 0), "nudge.up10": (0, -10), "nudge.down10": (0, 10)}


def default_key(action_id: str) -> str:
    """The first default key of an action, as a button's label shows it ("Accept (Y)")."""
    return BY_ID[action_id].keys[0]


def keys_for(action_id: str, overrides: dict[str, str]) -> tuple[str, ...]:
    """The user's binding if any (one key; empty = unbound), else the defaults."""
    if action_id in overrides:
        return (overrides[action_id],) if overrides[action_id] else ()
    return BY_ID[action_id].keys


def conflicts(overrides: dict[str, str]) -> dict[str, list[str]]:
    """Key sequence -> the actions bound to it, for keys bound more than once in one mode.
    Review keys may reuse annotation keys: in the verification queue they take them over."""
    out: dict[str, list[str]] = {}
    for mode in ("annotate", "review"):
        seen: dict[str, list[str]] = {}
        for spec in ACTIONS:
            if spec.mode == mode:
                for key in keys_for(spec.id, overrides):
                    seen.setdefault(key.lower(), []).append(spec.id)
        out.update({k: v for k, v in seen.items() if len(v) > 1})
    return out


def review_keys(overrides: dict[str, str]) -> set[str]:
    return {k.lower() for spec in ACTIONS if spec.mode == "review" for k in keys_for(spec.id, overrides)}
