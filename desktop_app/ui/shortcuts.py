"""Every key ScreenLab answers to, in one table: the main window's actions with their default keys (users
rebind them in Settings), and the fixed keys of the tool windows and pages (WINDOW_KEYS). Every message,
tooltip, docstring and guide line that names a key is generated from here or checked against it
(tests/test_key_names.py), so a text never says "A accept" where A moves to the previous screen.
"""

from __future__ import annotations

from dataclasses import dataclass

from desktop_app.judging.vocabulary import STEP_LABELS


@dataclass(frozen=True)
class ActionSpec:
    id: str
    text: str
    keys: tuple[str, ...]  # default key sequences (portable text)
    group: str
    mode: str = "annotate"  # "review": only active in the verification queue, where its keys win;
    # "window": a tool window's or a page's own key (WINDOW_KEYS), fixed


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
    ActionSpec("edit.delete", "Delete selected boxes (selected suggestions: dismiss them)", ("Del", "Backspace"),
               "Edit"),
    ActionSpec("edit.duplicate", "Duplicate selected boxes", ("Ctrl+D",), "Edit"),
    ActionSpec("edit.copy", "Copy boxes", ("Ctrl+C",), "Edit"),
    ActionSpec("edit.paste", "Paste boxes", ("Ctrl+V",), "Edit"),
    ActionSpec("edit.select_all", "Select all boxes", ("Ctrl+A",), "Edit"),
    ActionSpec("edit.next_box", "Select next box", ("Tab",), "Edit"),
    ActionSpec("edit.prev_box", "Select previous box", ("Shift+Tab",), "Edit"),
    # a box's role (what scoring reads) and its class (the project's vocabulary, store/label_set.py: ADR 0047);
    # the ids stay label.*, so keys users rebound before the split keep their binding
    ActionSpec("label.gold", "Label gold", ("1",), "Label"),
    ActionSpec("label.distracted", "Label distracted", ("2",), "Label"),
    ActionSpec("label.other", "Label other", ("3",), "Label"),
    *(ActionSpec(f"label.{n}", f"Label with the project's class no. {n - 3}", (str(n),), "Label")
      for n in range(4, 10)),
    ActionSpec("label.class", "Label with a class: open the class picker, to search the project's classes by "
               "name or number", ("C",), "Label"),
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
    ActionSpec("review.apply", "Save the edited texts (re-render)", ("Ctrl+Return",), "Review", "review"),
    ActionSpec("review.regenerate", "Regenerate sample", ("G",), "Review", "review"),
    ActionSpec("judge.label", "Label trajectories", ("Ctrl+Shift+J",), "Trajectories"),
    ActionSpec("judge.agreement", "Judge agreement", ("Ctrl+Shift+K",), "Trajectories"),
    ActionSpec("tree.snap", "Snap box to the best-matching tree node", ("Ctrl+Shift+S",), "Tree"),
    ActionSpec("tree.promote", "Promote box to its clickable ancestor node", ("Ctrl+Shift+U",), "Tree"),
    ActionSpec("tree.flag", "Flag the tree node's clickable value as wrong", ("Ctrl+Shift+L",), "Tree"),
)

# The fixed keys of the tool windows and of the pages that take the canvas's place, by the window (group):
# each window binds its keys from here (or reads them here to draw its buttons and hints).
_OUTCOMES = (("success", "Success", "S"), ("failure", "Failure", "F"), ("impossible", "Impossible", "I"),
             ("unsure", "Unsure", "U"), ("emulator_error", "Emulator error", "E"))


def _window(id_: str, text: str, keys: tuple[str, ...], group: str) -> ActionSpec:
    return ActionSpec(id_, text, keys, group, "window")


WINDOW_KEYS: tuple[ActionSpec, ...] = (
    _window("window.close", "Close the tool window", ("Esc",), "Tool windows"),
    # labelling trajectories (ui/judge/trajectory_view.py): plain keys, the view's while it has the focus
    *(_window(f"judge.outcome.{name}", f"Outcome of the trajectory: {text}", (key,), "Trajectory labelling")
      for name, text, key in _OUTCOMES),
    *(_window(f"judge.step.{name}", f"Label the selected step {name}: {meaning}", (str(i + 1),),
              "Trajectory labelling") for i, (name, (meaning, _reward)) in enumerate(STEP_LABELS.items())),
    _window("judge.step.clear", "Clear the selected step's label", ("0", "Backspace"), "Trajectory labelling"),
    _window("judge.step.prev", "Select the previous step", ("Left",), "Trajectory labelling"),
    _window("judge.step.next", "Select the next step", ("Right",), "Trajectory labelling"),
    _window("judge.step.first", "Select the first step", ("Home",), "Trajectory labelling"),
    _window("judge.step.last", "Select the final step", ("End",), "Trajectory labelling"),
    _window("judge.save_next", "Save the label and go to the next trajectory", ("Return", "Enter"),
            "Trajectory labelling"),
    _window("judge.next", "Next trajectory, without saving (skip)", ("N", "PgDown"), "Trajectory labelling"),
    _window("judge.prev", "Previous trajectory, without saving (skip)", ("P", "PgUp"), "Trajectory labelling"),
    _window("judge.filter", "Filter the queue by text", ("/",), "Trajectory labelling"),
    _window("judge.leave_field", "Leave a text field, back to the keys", ("Esc",), "Trajectory labelling"),
    _window("judge.accept", "Accept the judge's verdict under review", ("A",), "Trajectory labelling"),
    _window("judge.keep", "Keep the human label (the judge erred)", ("K",), "Trajectory labelling"),
    # Team > Adjudicate (ui/team/adjudication_window.py)
    _window("adjudication.take_first", "Take the first version", ("1",), "Adjudication"),
    _window("adjudication.take_second", "Take the second version", ("2",), "Adjudication"),
    _window("adjudication.next", "Next sample", ("Down",), "Adjudication"),
    _window("adjudication.prev", "Previous sample", ("Up",), "Adjudication"),
    # Capability > Knowledge probes (ui/probe_editor.py): a window of its own, so Ctrl+N stays New project
    _window("probes.new", "New probe", ("Alt+N",), "Knowledge probes"),
    _window("probes.save", "Save the probe", ("Ctrl+S",), "Knowledge probes"),
    _window("probes.accept", "Accept the probe", ("Ctrl+Return",), "Knowledge probes"),
    _window("probes.reject", "Reject the probe (with a reason)", ("Ctrl+Shift+R",), "Knowledge probes"),
    _window("probes.undo", "Undo an edit of the probes", ("Ctrl+Z",), "Knowledge probes"),
    _window("probes.redo", "Redo an edit of the probes", ("Ctrl+Shift+Z",), "Knowledge probes"),
    _window("probes.prev", "Previous probe in the list", ("Up",), "Knowledge probes"),
    _window("probes.next", "Next probe in the list", ("Down",), "Knowledge probes"),
    # Variants > Page variants: a trial's replay (ui/vaf/replay.py) and the page pictures (ui/vaf/page_view.py)
    _window("replay.prev", "Previous step of the trial", ("Left",), "Replay"),
    _window("replay.next", "Next step of the trial", ("Right",), "Replay"),
    _window("page.zoom_in", "Zoom in on the page", ("Ctrl++", "Ctrl+="), "Page pictures"),
    _window("page.zoom_out", "Zoom out of the page", ("Ctrl+-",), "Page pictures"),
    _window("page.fit", "Fit the page to the view", ("Ctrl+0",), "Page pictures"),
    # the goal being typed in the Properties panel (ui/properties.py)
    _window("goal.commit", "Save the goal being typed", ("Ctrl+Return", "Ctrl+Enter"), "Goal field"),
    # the class picker over the canvas (ui/class_picker.py, opened by label.class); typed text filters it
    _window("picker.take", "Take the highlighted class (a number is taken once no other class number begins "
            "with it)", ("Return", "Enter"), "Class picker"),
    _window("picker.none", "No class: clear the selected boxes' class", ("0",), "Class picker"),
    _window("picker.up", "Highlight the class above", ("Up",), "Class picker"),
    _window("picker.down", "Highlight the class below", ("Down",), "Class picker"),
    _window("picker.page_up", "Highlight a page of classes above", ("PgUp",), "Class picker"),
    _window("picker.page_down", "Highlight a page of classes below", ("PgDown",), "Class picker"),
    _window("picker.close", "Close the class picker, nothing changed", ("Esc",), "Class picker"),
    # mouse with a key, on the canvas
    _window("canvas.add", "Add a suggestion or a box to the selection (select several)", ("Shift+click",),
            "Canvas"),
    # `screenlab` in a terminal: a run or an import stops cleanly, and goes on when run again
    _window("terminal.stop", "Stop the command cleanly: a run is marked cancelled (--resume goes on), an import "
            "keeps what it stored", ("Ctrl+C",), "Terminal"),
)
ALL_KEYS = ACTIONS + WINDOW_KEYS
MAIN = "main window"
# where each group of WINDOW_KEYS is found, for Help > Keyboard shortcuts' headings (a window's keys under its name)
WHERE = {
    "Tool windows": "every tool window",
    "Trajectory labelling": "Trajectories > Label trajectories",
    "Adjudication": "Team > Adjudicate double annotations",
    "Knowledge probes": "Capability > Knowledge probes",
    "Replay": "Variants > Page variants, a trial's replay",
    "Page pictures": "Variants > Page variants, the page's pictures",
    "Goal field": "the Properties panel, while typing a goal",
    "Class picker": "the class picker over the screen",
    "Canvas": "the main window's screen, with the mouse",
    "Terminal": "the screenlab command in a terminal",
}
# where a window's own keys apply, besides the main window's everywhere: the source files that are the window,
# and the guide's paragraphs that name it
SCOPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "Canvas": (("desktop_app/",), ("",)),
    "Tool windows": (("desktop_app/ui/tool_window.py", "desktop_app/ui/vaf/", "desktop_app/ui/team/",
                      "desktop_app/ui/capability_view.py", "desktop_app/ui/observation_view.py",
                      "desktop_app/ui/probe_editor.py"), ("tool window",)),
    "Trajectory labelling": (("desktop_app/ui/judge/",), ("trajector", "judge")),
    "Adjudication": (("desktop_app/ui/team/adjudication_window.py",), ("adjudicat",)),
    "Knowledge probes": (("desktop_app/ui/probe_editor.py",), ("probe",)),
    "Replay": (("desktop_app/ui/vaf/replay.py", "desktop_app/ui/vaf/results_tab.py"), ("replay",)),
    "Page pictures": (("desktop_app/ui/vaf/page_view.py",), ("page picture",)),
    "Goal field": (("desktop_app/ui/properties.py",), ("goal field",)),
    "Class picker": (("desktop_app/ui/class_picker.py",), ("class picker", "picker")),
    "Terminal": (("desktop_app/cli/", "desktop_app/crash.py"), ("screenlab ", "terminal", "command", "--resume")),
}


def scope_of(spec: ActionSpec) -> str:
    return spec.group if spec.mode == "window" else MAIN


def scopes_for_source(path: str) -> frozenset[str]:
    """The parts of the table a source file (a path under the repository) may speak of."""
    return frozenset({MAIN, *(g for g, (files, _) in SCOPES.items() if path.startswith(files))})


def scopes_for_text(text: str) -> frozenset[str]:
    """The parts of the table a guide paragraph may speak of: the main window's, and the windows it names."""
    lower = text.lower()
    return frozenset({MAIN, *(g for g, (_, names) in SCOPES.items() if any(n in lower for n in names))})


BY_ID = {a.id: a for a in ALL_KEYS}
WINDOW_GROUPS = ("File", "Help", "Trajectories")  # keys that act on the window, not on the canvas
NUDGES = {"nudge.left": (-1, 0), "nudge.right": (1, 0), "nudge.up": (0, -1), "nudge.down": (0, 1),
          "nudge.left10": (-10, 0), "nudge.right10": (10, 0), "nudge.up10": (0, -10), "nudge.down10": (0, 10)}


def default_key(action_id: str) -> str:
    """The first default key of an action, as a key sequence ("Ctrl+Return")."""
    return BY_ID[action_id].keys[0]


def printed(key: str) -> str:
    """A key as a text names it: as printed on keyboards (Return is "Enter")."""
    return key.replace("Return", "Enter")


def key_name(action_id: str, overrides: dict[str, str] | None = None) -> str:
    """The key a text names for an action: the user's binding if any, else its first default ("unbound" when
    the user took its key away)."""
    keys = keys_for(action_id, overrides or {}) if BY_ID[action_id].mode != "window" else BY_ID[action_id].keys
    return printed(keys[0]) if keys else "unbound"


def key_names(action_id: str, overrides: dict[str, str] | None = None, joiner: str = " / ") -> str:
    """Every key of an action, as texts name them ("N / PgDown")."""
    keys = keys_for(action_id, overrides or {}) if BY_ID[action_id].mode != "window" else BY_ID[action_id].keys
    return joiner.join(dict.fromkeys(printed(k) for k in keys)) or "unbound"


def pressed(event, action_id: str) -> bool:
    """Whether a key event is one of the action's keys: for a widget that reads its own keys in keyPressEvent.
    Shift is let go where a key needs it to be typed (Ctrl++, a capital letter); the keypad's Enter is Enter."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QKeySequence

    modifiers = event.modifiers() & ~Qt.KeypadModifier
    tried = {QKeySequence(event.key() | modifiers.value).toString(QKeySequence.PortableText)}
    if modifiers & Qt.ShiftModifier:
        tried.add(QKeySequence(event.key() | (modifiers & ~Qt.ShiftModifier).value).toString(QKeySequence.PortableText))
    wanted = {QKeySequence(k).toString(QKeySequence.PortableText) for k in BY_ID[action_id].keys}
    return bool(tried & wanted)


def hint(*pairs: tuple[str, str], overrides: dict[str, str] | None = None, sep: str = ", ") -> str:
    """ "Y accept, N reject" from (action id, what it does) pairs."""
    return sep.join(f"{key_name(a, overrides)} {does}" for a, does in pairs)


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
