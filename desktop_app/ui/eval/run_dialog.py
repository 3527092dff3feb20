"""Choose what to run: agents (and the offline baselines), working patterns, and samples; see how
many requests and tokens that is before anything is sent.

    dialog = RunDialog(project, browser.current_filter(), selected_episode_ids, parent=window)
    if dialog.exec() == RunDialog.Accepted:
        runs_panel.start_runs(dialog.runs(), dialog.run_name())

runs() gives one RunRequest per run: every ticked agent x every ticked pattern (baselines run
once: their clicks do not depend on the prompt), with the protocol (automatic: the one the samples
fit) and its options. `last` is what choices() gave the time before (the agents, patterns, protocol and
samples chosen then): the dialog opens with them, where they still exist. The sample count, what is left out and why (no goal, no labelled action),
and the token estimate (desktop_app/agents/estimate.py) are computed off the UI thread, a moment
after the last change.
"""

from __future__ import annotations

from dataclasses import fields, replace

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app import api
from desktop_app.agents.estimate import Estimate, Selection, count_selection, estimate_run, human_tokens
from desktop_app.agents.profiles import (
    BASELINES,
    PATTERNS,
    AgentProfile,
    ProfileError,
    load_profiles,
    resolve_api_key,
)
from desktop_app.api.projects import Project
from desktop_app.api.samples import EpisodeFilter, splits
from desktop_app.runs.engine import Plan, RunRequest
from desktop_app.runs.protocols import PROTOCOLS
from desktop_app.runs.selection import DEFAULT_STATUSES, with_default_statuses
from desktop_app.ui.eval.browse_options import BrowseOptionsBox
from desktop_app.ui.eval.live_options import LiveOptionsBox
from desktop_app.ui.fit import fit_combo, open_at, scrolled
from desktop_app.ui.tasks import run_in_background

# protocols whose options say how a recorded screen is shown to the agent (the capability probes)
OBSERVED_PROTOCOLS = tuple(name for name, p in PROTOCOLS.items()
                           if any(f.name == "observation" for f in fields(p.options_type)))
REPAIRING_PROTOCOLS = tuple(name for name, p in PROTOCOLS.items() if getattr(p, "repairs", False))
BROWSE = "browse"  # page variants (VAF): its own options box
LIVE = "live"  # recorded tasks in a browser: its own options box, offered when the samples hold recorded tasks
NO_RECORDED = ("The selected samples hold no recorded task: record one with File > Record a task…, accept it, "
               "and select it")
OBSERVATION_CHOICES = (("tree", "the accessibility tree as text"), ("list", "the list of elements"),
                       ("marks", "the screenshot with numbered marks"), ("image", "the screenshot"))

PATTERN_HELP = {
    "direct": "the task and the screenshot",
    "cot": "two calls: list the screen's elements, then decide (2 requests per sample)",
    "action_annotation": "the screen's annotated actions offered as numbered choices",
    "goal_tagged": "the task between marker tokens; everything else is page content",
}
STATUS_CHOICES = (
    ("default", "Default: the filter's statuses, else " + ", ".join(DEFAULT_STATUSES)),
    ("accepted", "Accepted only"),
    ("reviewed", "Accepted and edited"),
)
DEBOUNCE_MS = 150


class RunDialog(QDialog):
    """estimateChanged(): the sample count and estimate were updated (estimate(), selection())."""

    estimateChanged = Signal()

    def __init__(self, project: Project, current_filter: EpisodeFilter | None = None,
                 episode_ids: list[int] | None = None, profiles: dict[str, AgentProfile] | None = None,
                 parent=None, last: dict | None = None, browser_path: str = ""):
        super().__init__(parent)
        self.setWindowTitle("New evaluation run")
        self.project = project
        self.browser_path = browser_path  # Settings > LLM & browser: what live and browse runs launch
        self.current_filter = current_filter
        self.episode_ids = list(episode_ids or [])
        self._profiles: dict[str, AgentProfile] = {}
        self._selection: Selection | None = None
        self._plan: Plan | None = None
        self._by_status = 0  # episodes of the source left out by their review status
        self._recorded = 0  # recorded tasks in the selection (the live protocol is offered when there are some)
        self._problems: list[str] = []  # ticked agents whose API key cannot be found
        self._estimate: Estimate | None = None
        self._generation = 0
        self.counted = False  # the numbers shown belong to the current choices

        # agents
        self.agent_list = QListWidget()
        self.agent_list.itemChanged.connect(self._changed)
        self.new_agent = QPushButton("New agent…")
        self.edit_agent = QPushButton("Edit agent…")
        self.new_agent.clicked.connect(lambda: self._edit_profile(None))
        self.edit_agent.clicked.connect(self._edit_current)
        agents_box = QGroupBox("Agents")
        agents_layout = QVBoxLayout(agents_box)
        agents_layout.addWidget(self.agent_list)
        row = QHBoxLayout()
        row.addWidget(self.new_agent)
        row.addWidget(self.edit_agent)
        row.addStretch(1)
        agents_layout.addLayout(row)
        self.profile_error = QLabel()
        self.profile_error.setWordWrap(True)
        self.profile_error.hide()
        agents_layout.addWidget(self.profile_error)

        # patterns
        patterns_box = QGroupBox("Working patterns")
        patterns_layout = QVBoxLayout(patterns_box)
        self.own_pattern = QCheckBox("As set in each agent")
        self.own_pattern.setChecked(True)
        self.own_pattern.toggled.connect(self._changed)
        patterns_layout.addWidget(self.own_pattern)
        self.pattern_checks: dict[str, QCheckBox] = {}
        for pattern in PATTERNS:
            check = QCheckBox(pattern)
            check.setToolTip(PATTERN_HELP.get(pattern, ""))
            check.toggled.connect(self._changed)
            self.pattern_checks[pattern] = check
            patterns_layout.addWidget(check)
        patterns_layout.addStretch(1)

        # samples
        samples_box = QGroupBox("Samples")
        grid = QGridLayout(samples_box)
        self.source_group = QButtonGroup(self)
        self.source_buttons: dict[str, QRadioButton] = {}
        for i, (key, text) in enumerate((("filter", "The browser's current filter"),
                                         ("ids", f"The selected episodes ({len(self.episode_ids)})"),
                                         ("split", "Split:"), ("all", "All samples"))):
            button = QRadioButton(text)
            self.source_group.addButton(button, i)
            self.source_buttons[key] = button
            grid.addWidget(button, i, 0)
        self.source_buttons["filter"].setEnabled(current_filter is not None)
        self.source_buttons["ids"].setEnabled(bool(self.episode_ids))
        self.split_combo = QComboBox()
        self.split_combo.addItems(self._splits())
        self.split_combo.currentIndexChanged.connect(lambda _: (self.source_buttons["split"].setChecked(True),
                                                                self._changed()))
        grid.addWidget(self.split_combo, 2, 1)
        self.source_buttons["split"].setEnabled(self.split_combo.count() > 0)
        first = "ids" if self.episode_ids else "filter" if current_filter is not None else "all"
        self.source_buttons[first].setChecked(True)
        self.source_group.idToggled.connect(lambda _id, on: on and self._changed())
        grid.addWidget(QLabel("Review status:"), 4, 0)
        self.status_combo = QComboBox()
        for key, text in STATUS_CHOICES:
            self.status_combo.addItem(text, key)
        self.status_combo.currentIndexChanged.connect(self._changed)
        grid.addWidget(self.status_combo, 4, 1)
        grid.addWidget(QLabel("Run name (optional):"), 5, 0)
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("agent · pattern · samples")
        grid.addWidget(self.name_edit, 5, 1)

        # protocol: how each unit is asked and scored (runs/protocols); automatic = what the samples fit
        protocol_box = QGroupBox("Protocol")
        protocol_layout = QVBoxLayout(protocol_box)
        self.protocol_group = QButtonGroup(self)
        self.protocol_buttons: dict[str, QRadioButton] = {}
        for i, (key, text, tip) in enumerate(
                [("auto", "Automatic: what the samples fit", "single screens, or episodes when most selected "
                                                              "episodes have several steps")]
                + [(n, p.title, p.description) for n, p in PROTOCOLS.items()]):
            button = QRadioButton(text)
            button.setToolTip(tip)
            self.protocol_group.addButton(button, i)
            self.protocol_buttons[key] = button
            protocol_layout.addWidget(button)
        self.protocol_buttons["auto"].setChecked(True)
        self.protocol_buttons[LIVE].setEnabled(False)  # until the count finds recorded tasks in the selection
        self.protocol_group.idToggled.connect(lambda _id, on: on and self._protocol_chosen())
        self.allow_ask = QCheckBox("Offer the ASK action (a simulated user answers)")
        self.allow_ask.setChecked(True)
        self.allow_ask.setToolTip("Episodes only. Off: the 'incomplete' setting, the task without the ASK action")
        self.allow_ask.toggled.connect(self._changed)
        protocol_layout.addWidget(self.allow_ask)
        observation_row = QHBoxLayout()
        observation_row.addWidget(QLabel("Agent sees:"))
        self.observation = QComboBox()
        for mode, text in OBSERVATION_CHOICES:
            self.observation.addItem(text, mode)
        self.observation.setCurrentIndex(self.observation.findData("tree"))
        self.observation.setToolTip("Grounding and completion probes: how a recorded screen is shown to the agent; "
                                    "live runs: the screenshot and, but for image, this too")
        self.observation.currentIndexChanged.connect(self._changed)
        observation_row.addWidget(self.observation, 1)
        protocol_layout.addLayout(observation_row)
        repair_row = QHBoxLayout()
        repair_row.addWidget(QLabel("Repair wrong formats with:"))
        self.repair = QComboBox()
        self.repair.addItem("no repair", "")  # the models are added by reload_profiles
        self.repair.setToolTip("Grounding and probes: a second model rewrites answers in the wrong format; the "
                               "results show the original and the repaired rates (Sphinx)")
        repair_row.addWidget(self.repair, 1)
        protocol_layout.addLayout(repair_row)
        self.browse_options = BrowseOptionsBox()
        self.browse_options.changed.connect(self._changed)
        protocol_layout.addWidget(self.browse_options)
        self.live_options = LiveOptionsBox()
        self.live_options.changed.connect(self._changed)
        protocol_layout.addWidget(self.live_options)
        self.include_unlabelled = QCheckBox("Also ask about samples with no goal or no labelled action")
        self.include_unlabelled.setToolTip("Left out by default: they cannot be scored and only lower every rate")
        self.include_unlabelled.toggled.connect(self._changed)
        protocol_layout.addWidget(self.include_unlabelled)
        protocol_layout.addStretch(1)

        self.summary = QLabel("Counting…")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.summary.setToolTip("Requests: 1 per sample, 2 with cot; baselines send none.\n"
                                "Tokens: OpenAI's image tile rule by detail + prompt text / 4 characters;\n"
                                "a rough figure, other servers count images differently.")
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.button(QDialogButtonBox.Ok).setText("Start")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        # the choices scroll up and down (the protocol's options alone are taller than a 720 px screen leaves);
        # the estimate and Start stay in view below them
        body = QWidget()
        top = QHBoxLayout()
        top.addWidget(agents_box, 3)
        top.addWidget(patterns_box, 2)
        top.addWidget(protocol_box, 2)
        column = QVBoxLayout(body)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(top)
        column.addWidget(samples_box)
        for combo in (self.split_combo, self.status_combo, self.observation, self.repair):
            fit_combo(combo, 16)  # split names and models are the data's
        layout = QVBoxLayout(self)
        layout.addWidget(scrolled(body), 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.buttons)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._count)
        self.reload_profiles(profiles)
        if last:
            self.restore(last)
        open_at(self, 900, 580)

    # agents ---------------------------------------------------------------------------
    def reload_profiles(self, profiles: dict[str, AgentProfile] | None = None) -> None:
        checked = set(self.checked_agent_names())
        if profiles is None:
            try:
                profiles = load_profiles()
                self.profile_error.hide()
            except ProfileError as exc:
                profiles = {}
                self.profile_error.setText(str(exc))
                self.profile_error.show()
        self._profiles = {**profiles, **{k: v for k, v in BASELINES.items() if k not in profiles}}
        chosen = self.repair.currentData()
        self.repair.blockSignals(True)
        self.repair.clear()
        self.repair.addItem("no repair", "")
        for name, profile in sorted(self._profiles.items()):
            if profile.kind == "openai":
                self.repair.addItem(name, name)
        self.repair.setCurrentIndex(max(0, self.repair.findData(chosen)))
        self.repair.blockSignals(False)
        self.browse_options.set_judges(sorted(n for n, p in self._profiles.items() if p.kind == "openai"))
        self.agent_list.blockSignals(True)
        self.agent_list.clear()
        for name, profile in self._profiles.items():
            baseline = name in BASELINES and profile is BASELINES[name]
            text = f"{name}   (offline baseline)" if baseline else f"{name}   {profile.model} · {profile.convention}"
            item = QListWidgetItem(text)
            item.setData(Qt.UserRole, name)
            item.setFlags(item.flags() | Qt.ItemIsUserCheckable)
            item.setCheckState(Qt.Checked if name in checked else Qt.Unchecked)
            item.setToolTip(f"{profile.base_url or 'no network'}\npattern: {profile.pattern}")
            self.agent_list.addItem(item)
        self.agent_list.blockSignals(False)
        self._changed()

    def checked_agent_names(self) -> list[str]:
        return [self.agent_list.item(i).data(Qt.UserRole) for i in range(self.agent_list.count())
                if self.agent_list.item(i).checkState() == Qt.Checked]

    def set_agents(self, names) -> None:
        wanted = set(names)
        for i in range(self.agent_list.count()):
            item = self.agent_list.item(i)
            item.setCheckState(Qt.Checked if item.data(Qt.UserRole) in wanted else Qt.Unchecked)

    def _edit_current(self) -> None:
        item = self.agent_list.currentItem()
        name = item.data(Qt.UserRole) if item is not None else None
        profile = self._profiles.get(name)
        if profile is not None and profile.kind == "openai":
            self._edit_profile(profile)

    def _edit_profile(self, profile: AgentProfile | None) -> None:
        from desktop_app.ui.eval.profile_dialog import AgentProfileDialog

        dialog = AgentProfileDialog(profile, parent=self)
        dialog.saved.connect(lambda saved: (self.reload_profiles(), self.set_agents(
            set(self.checked_agent_names()) | {saved.name})))
        dialog.exec()
        dialog.deleteLater()

    # patterns and samples -------------------------------------------------------------
    def set_patterns(self, patterns: list[str] | None) -> None:
        """None: each agent's own pattern."""
        self.own_pattern.setChecked(patterns is None)
        for name, check in self.pattern_checks.items():
            check.setChecked(bool(patterns) and name in patterns)

    def patterns(self) -> list[str] | None:
        if self.own_pattern.isChecked():
            return None
        return [p for p, check in self.pattern_checks.items() if check.isChecked()]

    def set_source(self, source: str, split: str | None = None) -> None:
        """source: filter, ids, split or all."""
        if split is not None:
            self.split_combo.setCurrentText(split)
        self.source_buttons[source].setChecked(True)

    def set_statuses(self, key: str) -> None:
        self.status_combo.setCurrentIndex(self.status_combo.findData(key))

    def source(self) -> str:
        return next(k for k, b in self.source_buttons.items() if b.isChecked())

    def selection_filter(self) -> EpisodeFilter:
        source = self.source()
        if source == "filter" and self.current_filter is not None:
            flt = self.current_filter
        elif source == "ids":
            flt = EpisodeFilter(ids=tuple(self.episode_ids))
        elif source == "split":
            flt = EpisodeFilter(splits=(self.split_combo.currentText(),))
        else:
            flt = EpisodeFilter()
        statuses = {"accepted": ("accepted",), "reviewed": ("accepted", "edited")}.get(self.status_combo.currentData())
        return replace(flt, review_statuses=statuses) if statuses else flt

    def run_name(self) -> str:
        return self.name_edit.text().strip()

    def set_protocol(self, name: str) -> None:
        """auto, or a protocol's name."""
        self.protocol_buttons[name].setChecked(True)

    def protocol_choice(self) -> str | None:
        """The protocol chosen, or None for automatic."""
        key = next(k for k, b in self.protocol_buttons.items() if b.isChecked())
        return None if key == "auto" else key

    def protocol(self) -> str | None:
        """The protocol runs will use: the chosen one, else the one the samples fit (once counted)."""
        return self.protocol_choice() or (self._plan.suggested if self._plan else None)

    def runs(self) -> list[RunRequest]:
        flt = self.selection_filter()
        patterns = self.patterns()
        protocol = self.protocol()
        options = {"allow_ask": self.allow_ask.isChecked()} if protocol == "episode" else None
        if protocol in OBSERVED_PROTOCOLS:
            options = {"observation": self.observation.currentData()}
        if protocol in REPAIRING_PROTOCOLS and self.repair.currentData():
            options = {**(options or {}), "repair": self.repair.currentData()}
        if protocol == BROWSE:
            options = self.browse_options.options()
        if protocol == LIVE:
            options = {**(options or {}), **self.live_options.options()}
        if protocol in (LIVE, BROWSE) and self.browser_path:  # as the CLI and the recorder take it
            options = {**(options or {}), "browser": self.browser_path}
        include = self.include_unlabelled.isChecked()
        out = []
        for name in self.checked_agent_names():
            profile = self._profiles[name]
            variants = [profile] if profile.kind != "openai" or patterns is None else \
                [replace(profile, pattern=p) for p in patterns]  # baselines once: their clicks ignore the prompt
            out += [RunRequest(p, flt, protocol, options, include) for p in variants]
        return out

    # the choices kept for next time ------------------------------------------------------------
    def choices(self) -> dict:
        """What was chosen, as plain values (Settings keeps them): agents, patterns, protocol and samples."""
        return {"agents": self.checked_agent_names(), "patterns": self.patterns(),
                "protocol": self.protocol_choice() or "auto", "source": self.source(),
                "split": self.split_combo.currentText(), "statuses": self.status_combo.currentData()}

    def restore(self, last: dict) -> None:
        """Choose again what choices() gave: only what still exists (an agent deleted since, a split gone, no
        episode selected now) is left as the dialog would have it."""
        self.set_agents(n for n in last.get("agents") or [] if n in self._profiles)
        patterns = last.get("patterns")
        if patterns is None or isinstance(patterns, list):
            self.set_patterns(patterns if patterns is None else [p for p in patterns if p in self.pattern_checks])
        if last.get("protocol") in self.protocol_buttons:
            self.set_protocol(last["protocol"])
        source, split = last.get("source"), last.get("split")
        if source == "split" and self.split_combo.findText(split or "") >= 0:
            self.set_source("split", split)
        elif source in self.source_buttons and source != "split" and self.source_buttons[source].isEnabled():
            self.set_source(source)
        if self.status_combo.findData(last.get("statuses")) >= 0:
            self.set_statuses(last["statuses"])

    # the estimate -----------------------------------------------------------------------
    def selection(self) -> Selection | None:
        return self._selection

    def estimate(self) -> Estimate | None:
        return self._estimate

    def _splits(self) -> list[str]:
        return [v for v in splits(self.project) if v]

    def _protocol_chosen(self) -> None:
        """A protocol was chosen: what the agent sees starts at that protocol's own default."""
        name = self.protocol_choice()
        if name in OBSERVED_PROTOCOLS:
            self.observation.setCurrentIndex(max(0, self.observation.findData(PROTOCOLS[name].options_type().observation)))
        self._changed()

    def _changed(self, *_) -> None:
        for check in self.pattern_checks.values():
            check.setEnabled(not self.own_pattern.isChecked())
        self.counted = False
        self._update_summary()
        self._debounce.start()

    def _count(self) -> None:
        self._generation += 1
        generation = self._generation
        flt = with_default_statuses(self.selection_filter())
        project, protocol, include = self.project, self.protocol_choice(), self.include_unlabelled.isChecked()
        profiles = [self._profiles[n] for n in self.checked_agent_names()]
        requests = self.runs()
        options = self.browse_options.options() if protocol == BROWSE else {}  # trials: units per variant
        if protocol == LIVE:
            options = self.live_options.options()  # allow_web: which tasks are units

        def count():
            selection = count_selection(project, flt)
            any_status = count_selection(project, replace(flt, review_statuses=()))
            plan = api.plan_run(project, flt, protocol, include, **options)
            cached = {(r.profile.name, r.profile.pattern): api.cached_answers(project, r.profile, flt, plan.protocol,
                                                                              include, **options)
                      for r in requests if r.profile.kind == "openai"}  # a repeated run: what it will not ask
            recorded = api.recorded_tasks(project, flt)
            return (selection, plan, any_status.episodes - selection.episodes, key_problems(profiles), cached,
                    recorded)

        run_in_background(self, count, lambda found: self._counted(generation, *found),
                          lambda exc: self._count_failed(generation, exc), wait="Counting what the run will ask")

    def _counted(self, generation: int, selection: Selection, plan: Plan, by_status: int = 0,
                 problems: list[str] | None = None, cached: dict | None = None, recorded: int = 0) -> None:
        if generation != self._generation:
            return  # the choices changed while counting
        self._selection, self._plan, self._recorded = selection, plan, recorded
        self._by_status, self._problems = by_status, list(problems or [])
        asked = planned_selection(selection, plan)
        total = Estimate()
        for request in self.runs():
            p = request.profile
            total.add(estimate_run(p, asked, (cached or {}).get((p.name, p.pattern), 0)))
        self._estimate = total
        self.counted = True
        self._update_summary()
        self.estimateChanged.emit()

    def _count_failed(self, generation: int, exc: Exception) -> None:
        if generation == self._generation:
            self.summary.setText(f"Could not count the samples: {exc}")

    def _update_summary(self) -> None:
        # ASK is an episode option: enabled while episodes are chosen, or may be (not counted yet)
        self.allow_ask.setEnabled(self.protocol() in (None, "episode"))
        self.observation.setEnabled(self.protocol() in OBSERVED_PROTOCOLS)
        self.repair.setEnabled(self.protocol() in REPAIRING_PROTOCOLS)
        self.browse_options.setEnabled(self.protocol() == BROWSE)
        self.live_options.setEnabled(self.protocol() == LIVE)
        live = self.protocol_buttons[LIVE]
        live.setEnabled(self._recorded > 0 or live.isChecked())  # chosen, it stays: the count then says why 0
        live.setToolTip(PROTOCOLS[LIVE].description if self._recorded else NO_RECORDED)
        fits = PROTOCOLS[self._plan.suggested].title if self._plan else "…"
        self.protocol_buttons["auto"].setText(f"Automatic: what the samples fit ({fits})")
        runs = self.runs()
        ok = self.buttons.button(QDialogButtonBox.Ok)
        unpatterned = [n for n in self.checked_agent_names() if self._profiles[n].kind == "openai"]
        if unpatterned and self.patterns() == []:  # no run would be made for them: say so, start nothing
            self.summary.setText(f"Tick a working pattern (or “As set in each agent”) to run "
                                 f"{', '.join(unpatterned)}.")
            ok.setEnabled(False)
            return
        if not self.counted or self._selection is None:
            self.summary.setText(f"{len(runs)} run(s) · counting samples…")
            ok.setEnabled(bool(runs))
            return
        sel, est, plan = self._selection, self._estimate, self._plan
        text = f"{len(runs)} run(s) · {PROTOCOLS[plan.protocol].title} · {plan.steps} samples"
        if plan.units != plan.steps:  # units are episodes
            text += f" ({plan.units} episodes)"
        text += " each"
        if plan.protocol == LIVE:
            text += f" (up to {self.live_options.max_steps.value()} requests per task)"
        if self._by_status:
            text += (f" · {self._by_status} episode{'s' if self._by_status != 1 else ''} left out by review status "
                     "(pending or rejected)")
        if plan.excluded:
            text += f" · {plan.excluded_text}"
        if est.asked_samples and est.cached == est.asked_samples:
            text += f" · 0 requests: all {est.cached} answers are cached"
        elif est.cached:
            text += f" · {est.requests} requests ({est.cached} of {est.asked_samples} answers cached)"
        else:
            text += f" · {est.requests} requests"
        if est.requests:
            text += (f" · ≈ {human_tokens(est.prompt_tokens)} prompt tokens, "
                     f"≈ {human_tokens(est.completion_tokens)} completion tokens")
            if est.cost:
                text += f" · ≈ ${est.cost:.2f}"
        if self._problems:  # the run would fail at once: say why now
            text += "\n⚠ " + "; ".join(self._problems)
        self.summary.setText(text)
        ok.setEnabled(bool(runs) and plan.steps > 0 and sel.steps > 0)


def key_problems(profiles: list[AgentProfile]) -> list[str]:
    """Why an agent's run would fail at once (its API key cannot be found), one line each. Never the key."""
    out = []
    for profile in profiles:
        if profile.kind != "openai" or not (profile.api_key_env or profile.use_keyring):
            continue
        try:
            resolve_api_key(profile)
        except ProfileError as exc:
            out.append(str(exc))
    return out


def planned_selection(selection: Selection, plan: Plan) -> Selection:
    """The selection as the run will ask it: the steps left out removed (screen sizes scaled alike)."""
    if not selection.steps or plan.steps == selection.steps:
        return selection
    share = plan.steps / selection.steps
    return replace(selection, steps=plan.steps, sizes=tuple((w, h, round(n * share)) for w, h, n in selection.sizes))
