"""The main window's actions and menus: what each action of ui/shortcuts.py does (one table, `handlers`), the
keys each one answers to in the current mode, and the menus that show them all with their keys."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from desktop_app.ui.shortcuts import (
    ACTIONS,
    NUDGES,
    WINDOW_GROUPS,
    key_name,
    key_names,
    keys_for,
    review_keys,
)

if TYPE_CHECKING:
    from desktop_app.ui.main_window import MainWindow

# keys that mean something else in lists and text fields: they act only while the canvas has the focus
CANVAS_SCOPED = {"edit.next_box", "edit.prev_box", "ocr.accept", *NUDGES}
# actions on the open project's samples and boxes: greyed out (their keys do nothing) while no project is
# open, so what they do may take the open project as given. Undo and redo follow the open project's undo
# stack; the work.* actions follow the login's team role (ui/team_menu.py).
NEEDS_PROJECT = frozenset({
    "file.import", "file.export", "edit.draw", "edit.select_mode", "edit.delete", "edit.duplicate", "edit.copy",
    "edit.paste", "edit.select_all", "edit.next_box", "edit.prev_box", "edit.snap", "label.gold",
    "label.distracted", "label.other", *(f"label.{n}" for n in range(4, 10)), "label.class", "nav.prev", "nav.next",
    "nav.prev_step", "nav.next_step", "nav.search", "ocr.run", "ocr.accept", "tree.snap", "tree.promote",
    "tree.flag", "review.mode", *NUDGES})
UNDO = ("edit.undo", "edit.redo")
# the menu items of make_menus that act on the open project, by their name in its result
NAMED_NEEDS_PROJECT = ("classes", "observe", "grounding_tasks", "grounding_instructions", "probes", "profile",
                       "variants", "new_run", "report", "export_run", "import_run", "check", "record")


def handlers(w: MainWindow) -> dict:
    """Action id -> what it does. Wiring objects are looked up when the action fires, not now; an action of
    NEEDS_PROJECT fires only while a project is open (project_shown)."""
    edit, ws = w.editing, lambda: w.ws
    table = {
        "file.open": w.projects.choose, "file.open_folder": w.projects.folders.choose, "file.new": w.new_project,
        "file.import": w.projects.import_dialog,
        "file.export": w.projects.export_dialog, "file.quit": w.close,
        "edit.undo": lambda: ws().undo_stack.undo(), "edit.redo": lambda: ws().undo_stack.redo(),
        "edit.draw": edit.toggle_draw, "edit.select_mode": edit.escape, "edit.delete": edit.delete_selected,
        "edit.duplicate": edit.duplicate_selected, "edit.copy": edit.copy_selected, "edit.paste": edit.paste,
        "edit.select_all": lambda: w.scene.select_ids(w.scene.items_by_id),
        "edit.next_box": lambda: edit.cycle_box(1), "edit.prev_box": lambda: edit.cycle_box(-1),
        "label.gold": lambda: edit.set_label("gold"), "label.distracted": lambda: edit.set_label("distracted"),
        "label.other": lambda: edit.set_label("other"),
        **{f"label.{n}": lambda _checked=False, n=n: edit.set_class_number(n - 3) for n in range(4, 10)},
        "label.class": edit.pick_class,
        "nav.prev": lambda: w.browser.step(-1), "nav.next": lambda: w.browser.step(1),
        "nav.prev_step": lambda: edit.go_step(-1), "nav.next_step": lambda: edit.go_step(1),
        "nav.search": lambda: w.browser.search.setFocus(),
        "work.done": w.team.done_and_next, "work.skip": w.team.skip_and_next, "work.reopen": w.team.reopen,
        "work.accept": w.team.accept_work, "work.return": w.team.return_work,
        "edit.snap": edit.snap_selected, "ocr.toggle": w.suggestions.toggle,
        "ocr.run": lambda: w.ocr.run(refresh=True), "ocr.accept": w.suggestions.accept_selected,
        "view.zoom_in": w.view.zoom_in, "view.zoom_out": w.view.zoom_out, "view.fit": w.view.fit,
        "view.actual": w.view.actual_size, "help.shortcuts": w.dialogs.shortcuts,
        "review.mode": w.reviewing.toggle,
        "review.accept": lambda: w.review and w.review.accept_current(),
        "review.reject": lambda: w.review and w.review.reject_current(),
        "review.edit": lambda: w.review and w.review.focus_texts(),
        "review.apply": lambda: w.review and w.review.apply_texts(),
        "review.regenerate": lambda: w.review and w.review.regenerate(),
        "judge.label": lambda: w.judge.toggle("label"), "judge.agreement": lambda: w.judge.toggle("agreement"),
        "tree.snap": w.a11y.snap_selected, "tree.promote": w.a11y.promote_selected, "tree.flag": w.a11y.flag_current,
    }
    for direction, (dx, dy) in NUDGES.items():
        table[direction] = lambda _checked=False, dx=dx, dy=dy: edit.nudge(dx, dy)
    return table


def make_actions(w: MainWindow) -> dict[str, QAction]:
    table, actions = handlers(w), {}
    for spec in ACTIONS:
        action = QAction(spec.text, w)
        action.triggered.connect(table[spec.id])
        if spec.id in CANVAS_SCOPED:
            action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            w.view.addAction(action)
        else:
            action.setShortcutContext(Qt.WindowShortcut)
            w.addAction(action)
        actions[spec.id] = action
    return actions


def apply_shortcuts(w: MainWindow) -> None:
    """In the verification queue the review keys (Y, N, E, G, Ctrl+Enter) take over; elsewhere they are off.
    While a trajectory page hides the canvas, only the window's own keys (File, Help, Trajectories) stay:
    Ctrl+Z or Ctrl+D must not edit boxes nobody sees."""
    taken = review_keys(w.settings.shortcuts) if w.review_mode else set()
    judge = getattr(w, "judge", None)
    canvas_hidden = judge is not None and judge.current() != "annotate"
    for spec in ACTIONS:
        keys = keys_for(spec.id, w.settings.shortcuts)
        if spec.mode == "review":
            keys = keys if w.review_mode else ()
        else:
            keys = tuple(k for k in keys if k.lower() not in taken)
        if canvas_hidden and spec.group not in WINDOW_GROUPS:
            keys = ()
        w.actions_by_id[spec.id].setShortcuts([QKeySequence(k) for k in keys])


def project_shown(w: MainWindow, on: bool) -> None:
    """A project opened (on) or closed: the actions that act on one become usable, or greyed out."""
    for key in NEEDS_PROJECT:
        w.actions_by_id[key].setEnabled(on)
    for name in NAMED_NEEDS_PROJECT:
        w.menu_actions[name].setEnabled(on)
    if not on:
        for key in UNDO:
            w.actions_by_id[key].setEnabled(False)


def make_menus(w: MainWindow) -> dict[str, QAction]:
    """The menu bar; returns its own actions (those not in ACTIONS) by name, for the window to keep."""
    a, bar, named = w.actions_by_id, w.menuBar(), {}
    menu = bar.addMenu("&File")
    for key in ("file.open", "file.open_folder", "file.new"):
        menu.addAction(a[key])
    menu.addAction("Open project on a server…").triggered.connect(w.open_server_project)
    recent = menu.addMenu("Recent projects")
    recent.aboutToShow.connect(lambda: w.projects.fill_recent(recent))
    menu.addSeparator()
    menu.addAction(a["file.import"])
    menu.addAction(a["file.export"])
    named["record"] = menu.addAction("Record a task…")
    named["record"].setToolTip("Act in a browser window on a flow site, a web page or a saved page; each action "
                               "becomes a step of a new episode. Replay and check tells which steps still match")
    named["record"].triggered.connect(w.dialogs.record_task)
    named["check"] = menu.addAction("Check project…")
    named["check"].setToolTip("What `screenlab check` says: the database's integrity, the counts, and the image "
                              "files no screen names, with a Repair button")
    named["check"].triggered.connect(w.dialogs.check_project)
    menu.addSeparator()
    menu.addAction(a["file.quit"])

    menu = bar.addMenu("&Edit")
    for key in ("edit.undo", "edit.redo", None, "edit.draw", "edit.select_mode", "edit.delete",
                "edit.duplicate", "edit.copy", "edit.paste", "edit.select_all", "edit.snap", None,
                "label.gold", "label.distracted", "label.other", *(f"label.{n}" for n in range(4, 10)), "label.class"):
        menu.addSeparator() if key is None else menu.addAction(a[key])
    move = menu.addMenu("Move selected boxes")  # the arrow keys, findable like every other key
    for key in NUDGES:
        move.addAction(a[key])
    menu.addSeparator()
    named["classes"] = menu.addAction("Classes of this project…")
    named["classes"].triggered.connect(w.classes_dialog)
    menu.addAction("Settings...").triggered.connect(lambda: w.dialogs.settings())
    menu.addAction("LLM endpoint and browser...").triggered.connect(lambda: w.dialogs.settings(tab="LLM && browser"))

    menu = bar.addMenu("&View")
    for key in ("view.zoom_in", "view.zoom_out", "view.fit", "view.actual"):
        menu.addAction(a[key])
    captions = named["captions"] = menu.addAction("Show captions")
    captions.setCheckable(True)
    captions.setChecked(True)
    captions.toggled.connect(w.show_captions)
    menu.addSeparator()
    a["ocr.toggle"].setCheckable(True)
    a["ocr.toggle"].setChecked(w.scene.show_suggestions)
    for key in ("ocr.toggle", "ocr.run", "ocr.accept"):
        menu.addAction(a[key])
    suggestions = named["model_suggestions"] = menu.addAction("Suggestions from the shown runs' answers")
    suggestions.setCheckable(True)
    keys = w.settings.shortcuts
    suggestions.setToolTip("Pre-labelling: run your grounding model on the samples (Runs > New run…), tick its run, "
                           "and its answers are offered here as boxes to accept "
                           f"({key_name('ocr.accept', keys)}) or dismiss ({key_names('edit.delete', keys, ' or ')})")
    suggestions.toggled.connect(lambda _on: w.suggestions.refresh())
    menu.addSeparator()
    menu.addAction(w.left.toggleViewAction())
    menu.addAction(w.right.toggleViewAction())
    dashboard = named["dashboard"] = menu.addAction("Dashboard")
    dashboard.setCheckable(True)
    dashboard.toggled.connect(w.evaluation.show_dashboard)

    menu = bar.addMenu("&Navigate")
    for key in ("nav.prev", "nav.next", "nav.prev_step", "nav.next_step", "nav.search",
                "edit.next_box", "edit.prev_box"):
        menu.addAction(a[key])

    menu = bar.addMenu("&Runs")  # agents' runs on the samples (the Runs tab beside the list)
    named["new_run"] = menu.addAction("New run…")
    named["new_run"].triggered.connect(lambda: (w.left_tabs.setCurrentWidget(w.runs), w.runs.new_button.click()))
    named["report"] = menu.addAction("Write report (plots and summary.md)…")
    named["report"].setToolTip("What `screenlab report` writes, of every run: summary.md, the tables (CSV, Markdown, "
                               "LaTeX) and the plots, into a folder you choose")
    named["report"].triggered.connect(w.reports.choose)
    menu.addSeparator()
    named["export_run"] = menu.addAction("Export run…")
    named["export_run"].setToolTip("The run selected in the Runs tab as a folder another project can import (its "
                                   "answers, and a live run's trajectories): `screenlab export-run`")
    named["export_run"].triggered.connect(w.run_transfer.choose_export)
    named["import_run"] = menu.addAction("Import run…")
    named["import_run"].setToolTip("A run folder as a new run of this project: `screenlab import-run`")
    named["import_run"].triggered.connect(w.run_transfer.choose_import)

    menu = bar.addMenu("&Capability")  # recorded app screens (Sphinx)
    menu.addAction("Show accessibility tree").triggered.connect(w.show_a11y)
    named["observe"] = menu.addAction("What the agent reads…")
    named["observe"].triggered.connect(w.dialogs.show_observation)
    menu.addSeparator()
    for key in ("tree.snap", "tree.promote", "tree.flag"):
        menu.addAction(a[key])
    menu.addSeparator()
    named["grounding_tasks"] = menu.addAction("Make grounding tasks from recorded tasks")
    named["grounding_tasks"].triggered.connect(w.dialogs.extract_grounding)
    named["grounding_instructions"] = menu.addAction("Write grounding instructions with the LLM")
    named["grounding_instructions"].triggered.connect(w.dialogs.write_instructions)
    named["probes"] = menu.addAction("Knowledge probes…")
    named["probes"].triggered.connect(w.dialogs.show_probes)
    menu.addSeparator()
    named["profile"] = menu.addAction("Capability profile…")
    named["profile"].triggered.connect(w.dialogs.show_capability_profile)

    menu = bar.addMenu("&Review")
    a["review.mode"].setCheckable(True)
    menu.addAction(a["review.mode"])
    menu.addSeparator()
    for key in ("review.accept", "review.reject", "review.edit", "review.apply", "review.regenerate"):
        menu.addAction(a[key])
    w.team.add_menu(bar)

    menu = bar.addMenu("&Variants")  # page variants and browsing agents (VAF)
    variants = named["variants"] = menu.addAction("Page variants…")
    variants.setToolTip("Restyle one item of a web page, verify the variants, see how browsing agents react")
    variants.triggered.connect(w.dialogs.show_page_variants)

    menu = bar.addMenu("&Help")
    w.guide_action = menu.addAction("User guide")
    w.guide_action.setToolTip("The guide by task, the protocols and the API reference, in your browser (offline)")
    w.guide_action.triggered.connect(w.dialogs.user_guide)
    menu.addAction(a["help.shortcuts"])
    menu.addAction("Welcome...").triggered.connect(w.dialogs.welcome)
    menu.addAction("About ScreenLab").triggered.connect(w.dialogs.about)
    return named
