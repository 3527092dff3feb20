"""The whole Python API in one namespace: desktop_app/api/__init__.py loads it on first use (ADR 0057).

Its names are `desktop_app.api`'s (`api.evaluate`, `api.open_project`, ...); see that package's docstring for
how they are used.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from desktop_app.a11y.observe import MODES as OBSERVATION_MODES
from desktop_app.a11y.observe import marks_png, observation_text
from desktop_app.a11y.stored import load_tree
from desktop_app.agents.profiles import AgentProfile, ProfileError, get_profile
from desktop_app.api.boxes import *  # noqa: F403  (boxes, attributes, labels: desktop_app/api/boxes.py)
from desktop_app.api.boxes import __all__ as _boxes_all
from desktop_app.api.guide import guide_path
from desktop_app.api.projects import *  # noqa: F403  (opening, server URLs: desktop_app/api/projects.py)
from desktop_app.api.projects import __all__ as _projects_all
from desktop_app.api.recording import *  # noqa: F403  (recording tasks, replaying them: desktop_app/api/recording.py)
from desktop_app.api.recording import __all__ as _recording_all
from desktop_app.api.results import *  # noqa: F403  (runs and their metrics: desktop_app/api/results.py)
from desktop_app.api.results import __all__ as _results_all
from desktop_app.api.review import *  # noqa: F403  (verifying samples: desktop_app/api/review.py)
from desktop_app.api.review import __all__ as _review_all
from desktop_app.api.samples import *  # noqa: F403  (the list, episodes, screens: desktop_app/api/samples.py)
from desktop_app.api.samples import __all__ as _samples_all
from desktop_app.api.selection import Where
from desktop_app.api.selection import filter_of as _filter
from desktop_app.api.teams import *  # noqa: F403  (people, work, review: desktop_app/api/teams.py)
from desktop_app.api.teams import __all__ as _teams_all
from desktop_app.api.trees import *  # noqa: F403  (a screen's accessibility tree: desktop_app/api/trees.py)
from desktop_app.api.trees import __all__ as _trees_all
from desktop_app.api.user_data import *  # noqa: F403  (the user's folders, removing them: desktop_app/api/user_data.py)
from desktop_app.api.user_data import __all__ as _user_data_all
from desktop_app.capability.profile import PROBE as PROBE_PROTOCOL
from desktop_app.capability.profile import PROTOCOLS as PROFILE_PROTOCOLS
from desktop_app.capability.profile import ProfileRow, profiles
from desktop_app.capability.reference import ReferenceCheck
from desktop_app.capability.reference import check_references as _check_references
from desktop_app.capability.reference import check_task as _check_task
from desktop_app.capability.reference import set_completion as _set_completion
from desktop_app.capability.reference import set_evaluators as _set_evaluators
from desktop_app.formats.folder_open import FolderReport
from desktop_app.formats.folder_open import open_folder as _open_folder
from desktop_app.formats.ingest import ImportOptions, ImportReport
from desktop_app.formats.records import FormatError
from desktop_app.formats.spec import ExportReport
from desktop_app.formats.transfer import export_path, import_path
from desktop_app.judging.agreement import agreement_report
from desktop_app.judging.agreement import disagreements as _disagreements
from desktop_app.judging.export import export_csv as _export_csv
from desktop_app.judging.export import export_evals as _export_evals
from desktop_app.judging.export import export_passed as _export_passed
from desktop_app.judging.export import export_steps as _export_steps
from desktop_app.judging.labels import Label, labels_of, reviews_of, set_label
from desktop_app.judging.labels import review_verdict as _review_verdict
from desktop_app.judging.trajectories import Trajectory, list_trajectories, load_trajectory
from desktop_app.judging.trajectories import trajectories_from_episodes as _from_episodes
from desktop_app.judging.trajectories import trajectories_from_run as _from_run
from desktop_app.judging.verdict_files import judges_in
from desktop_app.judging.verdicts import verdicts_of
from desktop_app.prelabel import ModelProposal, PrelabelReport
from desktop_app.prelabel import apply_run as _apply_prelabels
from desktop_app.prelabel import proposals_for_step as _proposals_for_step
from desktop_app.probes import Probe
from desktop_app.probes import add_probe as _add_probe
from desktop_app.probes import edit_probe as _edit_probe
from desktop_app.probes import probe_id as _probe_id
from desktop_app.probes import probes as _probes
from desktop_app.probes import verify_probe as _verify_probe
from desktop_app.runs import engine
from desktop_app.runs.engine import Plan
from desktop_app.runs.evaluate import DEFAULT_RULES, list_runs
from desktop_app.runs.evaluate import evaluate as _evaluate
from desktop_app.runs.imported_verdicts import ImportedVerdicts, import_verdicts
from desktop_app.runs.report import write_report as _write_report
from desktop_app.runs.run_transfer import RunTransfer
from desktop_app.runs.run_transfer import export_run as _export_run
from desktop_app.runs.run_transfer import import_run as _import_run
from desktop_app.runs.state import RunProgress
from desktop_app.store.models import Run
from desktop_app.store.project import Project
from desktop_app.store.project_check import ProjectCheck
from desktop_app.store.project_check import check_project as _check_project
from desktop_app.store.queries import EpisodeFilter, no_match
from desktop_app.store.queries import episode_ids as _episode_ids
from desktop_app.store.trees import step_screen
from desktop_app.synth.grounding_instructions import Extracted, Written
from desktop_app.synth.grounding_instructions import extract as _extract_grounding
from desktop_app.synth.grounding_instructions import provenance as _grounding_provenance
from desktop_app.synth.grounding_instructions import verify as _verify_grounding
from desktop_app.synth.grounding_instructions import write_instructions as _write_instructions
from desktop_app.synth.grounding_instructions import written_instruction as _written_instruction
from desktop_app.synth.llm import LlmEndpoint
from desktop_app.synth.verify import sample_problems as _sample_problems
from desktop_app.synth.verify import verify_sample as _verify_sample
from desktop_app.vaf.metrics import click_points as _click_points
from desktop_app.vaf.metrics import run_metrics as _vaf_run_metrics
from desktop_app.vaf.metrics import trials_of as _trials_of
from desktop_app.vaf.pages import PageSpec
from desktop_app.vaf.pages import demo_pages as _demo_pages
from desktop_app.vaf.pages import spec_for as _spec_for
from desktop_app.vaf.render import pick_target as _pick_target
from desktop_app.vaf.settings import Setting
from desktop_app.vaf.settings import load_table as _load_table
from desktop_app.vaf.settings import paper_table as _paper_table
from desktop_app.vaf.settings import save_table as _save_table
from desktop_app.vaf.study import StudyReport, Variant
from desktop_app.vaf.study import generate_study as _generate_study
from desktop_app.vaf.study import studies as _studies
from desktop_app.vaf.study import variant_id as _variant_id
from desktop_app.vaf.study import variants as _variants
from desktop_app.vaf.study import verify_variant as _verify_variant

__all__ = ["AgentProfile", "FormatError", "Plan", "ProfileError", "RunProgress", "agent",
           "cached_answers", "create_run", "execute_run", "export_data", "import_data", "open_folder",
           "plan_run", "run", "where", "write_report", "export_run", "import_run",
           "agreement", "disagreements", "export_evals", "export_judge_csv", "export_passed", "export_steps",
           "import_judge_verdicts", "judge_runs", "judges_in_file", "judge_verdicts", "label_trajectory", "review_verdict", "reviews",
           "trajectories", "trajectories_from_episodes", "trajectories_from_run", "trajectory",
           "trajectory_labels",
           # the functions defined below, each a public name too (the guide's API reference lists __all__'s)
           "add_probe", "capability_profiles", "check_project", "check_references", "check_task_evaluators",
           "edit_probe", "empty_selection", "extract_grounding_tasks", "generate_variants", "grounding_provenance",
           "grounding_written", "model_proposals", "observation", "pick_vaf_target", "prelabel", "probes",
           "sample_problems", "save_vaf_settings", "selects_nothing", "set_completion_label", "set_task_evaluators",
           "vaf_clicks", "vaf_demo_pages", "vaf_page", "vaf_results", "vaf_settings", "vaf_studies", "vaf_trials",
           "vaf_variants", "verify_grounding_task", "verify_probe", "verify_sample", "verify_variant",
           "write_grounding_instructions",
           *_teams_all, *_boxes_all, "guide_path"]
__all__ += [*_projects_all, *_samples_all, *_review_all, *_user_data_all, *_recording_all, *_trees_all, *_results_all]  # (ProjectError, open_project, init_project among them)



# -- projects and data ------------------------------------------------------------
def import_data(project: Project, path: str | Path, format: str | None = None, images: str | Path | None = None,
                bbox_format: str | None = None, shapes: str = "refuse", add_labels: bool = False,
                **options) -> ImportReport:
    """All or nothing: a bad record raises FormatError naming file, line and field; the project is unchanged.
    format None: the format the file or folder holds (FormatError when that is not clear).
    Images that cannot be read raise BadImagesError naming every one; skip_bad_images=True imports the rest
    and lists the skipped in report.bad_images_skipped.
    `bbox_format`: the box layout, for the formats that read one (FORMATS[format].options): a key of
    formats.box_layout.LAYOUTS ("xywh", "xyxy", "xyxy-normalised"); None: the format's own rule.
    `options`: other ImportOptions fields (split, max_pixels, skip_bad_images, clip_boxes: cut boxes reaching past
    their picture's edge at the edge, listed in report.boxes_clipped).
    `shapes`: what a shape that is not a rectangle becomes (LabelMe, Label Studio, CVAT): "refuse" (FormatError
    naming the option), "bbox" (its bounding box) or "skip"; report.shapes_as_boxes / shapes_skipped count them.
    `add_labels`: add the labels the file names that the project lacks (report.labels_added); without it the
    FormatError names every one of them, with how many boxes each."""
    return import_path(project, Path(path), format,
                       ImportOptions(images_dir=Path(images) if images else None, bbox_format=bbox_format,
                                     shapes=shapes, add_labels=add_labels, **options))


def open_folder(folder: str | Path, project: Project | str | Path | None = None,
                progress: Callable[[FolderReport], None] | None = None) -> FolderReport:
    """A folder of screenshots into a project, the first at once and the rest in batches, each its own
    transaction (edits made meanwhile are kept); pictures that cannot be read are skipped and named in the
    report, pictures the project holds already are not imported again (so calling it again imports only what
    is new). `project`: an open Project, a location, or None for the folder's own project in the user data
    folder (the one the window opens for it; report.project says where). `progress(report)` after each batch."""
    return _open_folder(folder, project, progress)


def check_project(project: Project, repair: bool = False) -> ProjectCheck:
    """The database's own integrity check, the counts, and the image files no screen names (what a killed
    import leaves); repair=True removes those, under the media lock (store/project_check.py)."""
    return _check_project(project, repair=repair)


def export_data(project: Project, out: str | Path, format: str, where: Where = None) -> ExportReport:
    return export_path(project, Path(out), format, _filter(where))


def where(**fields) -> EpisodeFilter:
    """A sample selection: scenarios=, review_statuses=, splits=, has_label= (a role), classes= (a box of one of
    these classes), text=, ids= (lists are fine)."""
    return _filter(fields)


# -- agents and runs ----------------------------------------------------------------
def agent(name: str | None = None, **fields) -> AgentProfile:
    """A saved profile by name (or a baseline: random, center, ocr-match), optionally changed
    (api.agent("gpt4o", pattern="cot")); or a new one from fields (name=, base_url=, model=,
    convention=, api_key_env=, ...). Keys are never given here: api_key_env names a variable."""
    if name is not None and not fields:
        return get_profile(name)
    if name is not None:
        try:
            return replace(get_profile(name), **fields)
        except ProfileError:
            pass
    profile = AgentProfile(name=name or fields.pop("name", ""), **fields)
    profile.validate()
    return profile


def plan_run(project: Project, where: Where = None, protocol: str | None = None,
             include_unlabelled: bool = False, **options) -> Plan:
    """What a run would ask before anything is sent: the protocol, samples, and what is left out and why."""
    return engine.plan_run(project, _filter(where), protocol, include_unlabelled, options or None)


def empty_selection(project: Project, where: Where, plan: Plan) -> str:
    """"" when `plan` (plan_run's, for `where`) asks something; else why not, in words (create_run refuses it)."""
    return engine.empty_reason(project, _filter(where), plan)


def selects_nothing(project: Project, where: Where = None) -> str:
    """"" when `where` selects a sample; else what it missed, naming the scenarios there are."""
    with project.reading() as session:
        return no_match(session, _filter(where))


def cached_answers(project: Project, agent: AgentProfile | str, where: Where = None, protocol: str | None = None,
                   include_unlabelled: bool = False, **options) -> int:
    """How many of the samples plan_run counts this agent would answer from the response cache (a repeated
    run asks only the others). Sends nothing."""
    profile = get_profile(agent) if isinstance(agent, str) else agent
    return engine.cached_answers(project, profile, _filter(where), protocol, include_unlabelled, options or None)


def create_run(project: Project, agent: AgentProfile | str, where: Where = None, protocol: str | None = None,
               name: str = "", include_unlabelled: bool = False, plan: Plan | None = None, **options) -> int:
    """A pending run; `protocol` None: the one the samples fit. `options`: the protocol's
    (episode: allow_ask=False for the 'incomplete' setting). `plan`: plan_run's answer for the same
    selection, when you have it (the samples are then not loaded again)."""
    profile = get_profile(agent) if isinstance(agent, str) else agent
    return engine.create_run(project, profile, _filter(where), name, protocol, options or None, include_unlabelled,
                             plan)


def execute_run(project: Project, run_id: int, on_progress: Callable[[RunProgress], None] | None = None,
                cancel: threading.Event | None = None, concurrency: int | None = None, use_cache: bool = True,
                agent: AgentProfile | None = None) -> RunProgress:
    """Execute or resume a run (only unanswered samples are asked). Blocks; set `cancel` from another
    thread to stop (the run is then 'cancelled' and resumable). On an error the run is marked 'failed'
    with the reason, and the error is raised."""
    return engine.execute(project, run_id, profile=agent, progress=on_progress, cancel=cancel,
                          concurrency=concurrency, use_cache=use_cache)


def run(project: Project, agent: AgentProfile | str, where: Where = None, protocol: str | None = None,
        **kw) -> tuple[int, RunProgress]:
    """create_run + execute_run."""
    run_kw = {k: kw.pop(k) for k in ("on_progress", "cancel", "concurrency", "use_cache") if k in kw}
    run_id = create_run(project, agent, where, protocol, **kw)
    return run_id, execute_run(project, run_id, **run_kw)


def write_report(project: Project, out: str | Path, runs: list[int] | None = None, plots: bool = True,
                 rules: tuple[str, ...] = DEFAULT_RULES, palette: str = "colorblind",
                 text_metric: str = "auto", on_progress: Callable[[str, int, int], None] | None = None) -> list[Path]:
    """What `screenlab report` writes (summary.md, tables, plots) into `out`; returns the files. on_progress(what,
    done, total) before each part, as the window's Runs > Write report shows it."""
    return _write_report(project, runs, out, plots=plots, palette=palette, rules=tuple(rules),
                         text_metric=text_metric, on_progress=on_progress)


# -- trajectories and judges (Agent-Eval-Refine) ------------------------------------------
def trajectories(project: Project, policy: str = "", text: str = "", unlabelled_by: str | None = None) -> list:
    """Trajectory rows (id, key, intent, policy, steps, labels by annotator); unlabelled_by="" keeps
    those nobody labelled, a name those that annotator has not."""
    return list_trajectories(project, policy, text, unlabelled_by)


def trajectory(project: Project, episode_id: int) -> Trajectory:
    """One trajectory: intent, policy, response, platform and its steps (screen, action, points)."""
    return load_trajectory(project, episode_id)


def label_trajectory(project: Project, episode_id: int, annotator: str, outcome: str,
                     step_labels: list[str] | None = None, comment: str = "") -> Label:
    """Store one annotator's outcome (success, failure, impossible, unsure, emulator_error) and step labels."""
    return set_label(project, episode_id, annotator, outcome, step_labels, comment)


def trajectory_labels(project: Project, episode_ids: list[int] | None = None) -> dict:
    return labels_of(project, episode_ids)


def trajectories_from_episodes(project: Project, where: Where = None, policy: str = "demonstration") -> list[int]:
    """Labelled episodes' gold paths as trajectories (human demonstrations)."""
    with project.reading() as s:
        ids = _episode_ids(s, _filter(where))
    return _from_episodes(project, ids, policy)


def trajectories_from_run(project: Project, run_id: int) -> list[int]:
    """An agent run's answers, episode by episode, as trajectories to judge."""
    return _from_run(project, run_id)


def export_run(project: Project, run_id: int, out: str | Path) -> RunTransfer:
    """A run as a folder another project can import (runs/run_transfer.py): its row, its answers, and the
    episodes it wrote itself (a live run's trajectories)."""
    return _export_run(project, run_id, Path(out))


def import_run(project: Project, folder: str | Path, name: str = "") -> RunTransfer:
    """A run folder (export_run) as a new run here; the samples it answered must be here already. All or nothing."""
    return _import_run(project, Path(folder), name)


def judge_runs(project: Project) -> list[Run]:
    return [r for r in list_runs(project) if r.protocol == "judge"]


def import_judge_verdicts(project: Project, path: Path | str, name: str = "", user: str = "") -> ImportedVerdicts:
    """Another judge's verdicts (the authors' rm_results.json, or evals lines of one user_uid) as a
    finished judge run, measured in the agreement like ours. All or nothing."""
    return import_verdicts(project, Path(path), name, user)


def export_evals(project: Project, out: Path | str, run_id: int | None = None) -> int:
    """The human labels (run_id None) or a judge run's verdicts as the authors' evals lines; how many."""
    return _export_evals(project, Path(out), run_id)


def export_judge_csv(project: Project, out: Path | str, run_ids: list[int] | None = None) -> int:
    """One row per trajectory: reference, each annotator's label, each judge run's verdict (default: all runs)."""
    ids = run_ids if run_ids is not None else [r.id for r in judge_runs(project)]
    return _export_csv(project, Path(out), ids)


def export_passed(project: Project, out: Path | str, run_id: int) -> ExportReport:
    """The trajectories a judge run called successful, as a UnifiedTrajectory folder (filtered BC data)."""
    return _export_passed(project, Path(out), run_id)


def export_steps(project: Project, out: Path | str, run_id: int | None = None, annotator: str = "",
                 min_reward: float = 0.5, rewards: dict[str, float] | None = None) -> tuple[int, int]:
    """The state-action pairs whose step reward is >= min_reward (a per-step judge run's labels, or an
    annotator's); returns (kept, labelled)."""
    return _export_steps(project, Path(out), run_id, annotator, min_reward, rewards)


def judges_in_file(path: Path | str) -> list[str]:
    """The judges (evals user_uids) a verdict file holds, to choose one for import_judge_verdicts."""
    return judges_in(Path(path))


def judge_verdicts(project: Project, run_id: int) -> dict:
    """Per trajectory, the judge run's verdict (status, thoughts, raw text, parse failure, error)."""
    return verdicts_of(project, run_id)


def agreement(project: Project, run_ids: list[int] | None = None) -> dict:
    """Judges against the human labels (accuracy, confusion, precision, recall, F1, false-negative rate,
    kappa, per-policy rates, Kendall tau) and annotators against each other; default: every judge run."""
    ids = run_ids if run_ids is not None else [r.id for r in judge_runs(project)]
    return agreement_report(project, ids)


def disagreements(project: Project, run_id: int) -> list:
    return _disagreements(project, run_id)


def reviews(project: Project, run_ids: list[int] | None = None) -> dict:
    """(run id, trajectory id) -> the review of that verdict (decision, tags, note, reviewer)."""
    return reviews_of(project, run_ids)


def review_verdict(project: Project, run_id: int, episode_id: int, reviewer: str, decision: str,
                   tags: tuple[str, ...] = (), note: str = ""):
    """accept: the judge was right (the reference label is corrected, audited); override: the human stands."""
    return _review_verdict(project, run_id, episode_id, reviewer, decision, tags, note)


# -- accessibility trees (recorded app screens, the Sphinx benchmark) --------------------------------
def check_references(project: Project, where: Where = None) -> list[ReferenceCheck]:
    """Each recorded task's reference trajectory against its own evaluators (which pass, which fail)."""
    return _check_references(project, _filter(where))


def check_task_evaluators(project: Project, episode_id: int, evaluators: list | None = None) -> ReferenceCheck:
    """One recorded task's reference trajectory against its evaluators (or against `evaluators`, the JSON an
    editor is about to save): which pass, which fail, or the problem that stops the check."""
    return _check_task(project, episode_id, evaluators)


def set_task_evaluators(project: Project, episode_id: int, evaluators: list, actor: str | None = None) -> ReferenceCheck:
    """Replace a recorded task's evaluators (a bad one refused with its path); returns the reference's check."""
    return _set_evaluators(project, episode_id, evaluators, actor)


def set_completion_label(project: Project, step_id: int, label: str, actor: str | None = None) -> None:
    """Override a step's completion label: continue or stop."""
    _set_completion(project, step_id, label, actor)


def observation(project: Project, step_id: int, mode: str) -> tuple[str, bytes | None]:
    """What an agent is shown of a step's screen: (text, None) in the text modes, ("", PNG) for marks,
    ("", the screenshot) for image. KeyError when the screen has no tree and the mode needs one."""
    if mode not in OBSERVATION_MODES:
        raise ValueError(f"unknown observation mode {mode!r} (one of {', '.join(OBSERVATION_MODES)})")
    stored = load_tree(project, step_id)
    if stored is None and mode != "image":
        raise KeyError(f"step {step_id}'s screen has no accessibility tree")
    if mode in ("tree", "list"):
        return observation_text(stored.tree, mode), None
    screen = step_screen(project, step_id)
    if screen is None:
        raise KeyError(f"step {step_id} is a question with no screen (a knowledge probe)")
    image = project.media.read(screen.sha256, screen.ext)
    return "", marks_png(image, stored.tree) if mode == "marks" else image


def capability_profiles(project: Project, run_ids: list[int] | None = None) -> list[ProfileRow]:
    """One row per agent and observation mode: the five capability axes (with intervals), SR and ACP,
    from the newest grounding, completion and replay runs (capability/profile.py)."""
    wanted = [r.id for r in list_runs(project, run_ids) if r.protocol in (*PROFILE_PROTOCOLS, PROBE_PROTOCOL)]
    return profiles(_evaluate(project, wanted))


# -- grounding tasks from recorded tasks, instructions by an LLM, verified by people ----------------
def extract_grounding_tasks(project: Project) -> Extracted:
    """One pending grounding task per distinct element action of the recorded tasks."""
    return _extract_grounding(project)


def write_grounding_instructions(project: Project, endpoint: LlmEndpoint, temperature: float = 0.75,
                                 limit: int | None = None, progress=None, cancel=None) -> Written:
    """The LLM writes the instruction of every grounding task that has none (the paper: temperature 0.75)."""
    return _write_instructions(project, endpoint, temperature, limit, progress, cancel)


def verify_sample(project: Project, sample: int | str, decision: str, reason: str = "",
                  reviewer: str | None = None, anyway: bool = False) -> str:
    """accept / reject a generated sample (a distracting screen, an ambiguous task) by id or key, as the
    verification queue does; returns the status stored (edited when anyone changed it since it was
    generated). An ambiguous task with problems (sample_problems) is accepted only with anyway=True."""
    return _verify_sample(project, sample, decision, reason, reviewer, anyway)


def sample_problems(project: Project, sample: int | str) -> list[str]:
    """What accepting this sample would be warned about: an ambiguous task's empty checklist, a removed
    detail no question asks for."""
    return _sample_problems(project, sample)


def verify_grounding_task(project: Project, task: int | str, decision: str, reason: str = "",
                          instruction: str | None = None, reviewer: str | None = None) -> str:
    """accept / reject a grounding task by id or key (an instruction given replaces the text); returns the
    status stored (edited when the text or the box changed since the model wrote it)."""
    return _verify_grounding(project, task, decision, reason, instruction, reviewer)


def grounding_written(project: Project, task: int) -> str | None:
    """What the model wrote for this grounding task (None when it was imported, not written)."""
    return _written_instruction(project, task)


def grounding_provenance(project: Project) -> dict:
    """written, kept, removed, revised, boxes fixed: the paper's 478 -> 457 (21 / 37 / 74) counts."""
    return _grounding_provenance(project)


# -- knowledge probes written and verified by people --------------------------------------------------
def probes(project: Project) -> list[Probe]:
    """Every knowledge probe: question, options A-D, answer key, level (goal / app), apps, status."""
    return _probes(project)


def add_probe(project: Project, question: str, options: dict[str, str], answer: str, level: str,
              apps: list[str] = (), category: str = "", author: str = "") -> int:
    """A new probe (pending verification); returns its id."""
    return _add_probe(project, question, options, answer, level, apps, category, author)


def edit_probe(project: Project, probe: int | str, question: str, options: dict[str, str], answer: str,
               level: str, apps: list[str] = (), category: str = "", actor: str | None = None) -> None:
    _edit_probe(project, _probe_id(project, probe), question, options, answer, level, list(apps), category, actor)


def verify_probe(project: Project, probe: int | str, decision: str, reason: str = "",
                 reviewer: str | None = None) -> str:
    """accept / reject a probe by id or key; returns the status stored (edited when changed after adding)."""
    return _verify_probe(project, _probe_id(project, probe), decision, reason, reviewer)


# -- page variants and browsing trials (VAF) ----------------------------------------------------------
def vaf_demo_pages() -> list[PageSpec]:
    """Our demo pages (a laptop shop, a headphones listing, two hotel lists, a news front page)."""
    return _demo_pages()


def vaf_page(source: str | Path, target: str = "", name: str = "", **words) -> PageSpec:
    """A study's page: "demo:<name>", or a saved HTML file or folder with the target's CSS selector.
    words: target_name (for the judge), items (selector of all items), category, page_type, item_singular,
    item_plural, fields, clickable (the browsing prompt's words), slots (position selectors)."""
    return _spec_for(str(source), target, name, **words)


def vaf_settings(path: str | Path | None = None) -> list[Setting]:
    """The variant table: the paper's 48 settings, or a table saved as JSON (save_vaf_settings)."""
    return _load_table(Path(path)) if path else _paper_table()


def save_vaf_settings(settings: list[Setting], path: str | Path) -> None:
    _save_table(settings, Path(path))


def pick_vaf_target(source: str | Path, x: float, y: float, browser: str = "") -> dict | None:
    """The item under a point of the page (page pixels at 1280 wide): {"selector", "text", "box", "items"}."""
    from desktop_app.render.renderer import Renderer

    with Renderer(browser_path=browser) as renderer:
        return _pick_target(renderer, str(source), x, y)


def generate_variants(project: Project, page: PageSpec, settings: list[Setting] | None = None,
                      progress: Callable[[int, int, str], None] | None = None,
                      cancel: threading.Event | None = None, browser: str = "") -> StudyReport:
    """Render the original and every setting in a real browser (offline), store them as variants waiting
    for verification; variants already in the project are kept as they are."""
    from desktop_app.render.renderer import Renderer

    with Renderer(browser_path=browser) as renderer:
        return _generate_study(project, renderer, page, settings if settings is not None else _paper_table(),
                               progress, cancel)


def vaf_variants(project: Project, study: str | None = None) -> list[Variant]:
    return _variants(project, study)


def vaf_studies(project: Project) -> dict[str, dict[str, int]]:
    """Per study (page), its variants by review status."""
    return _studies(project)


def verify_variant(project: Project, variant: int | str, decision: str, reason: str = "",
                   reviewer: str | None = None) -> str:
    """accept / reject a variant by id or key (reject needs a reason)."""
    return _verify_variant(project, variant, decision, reason, reviewer)


def vaf_results(project: Project, run_ids: list[int]) -> dict[int, dict]:
    """Per browse run: TCR / TMR per variant with Wilson intervals and deltas against the original. TMR under
    both denominators (ADR 0042): "tmr" is TMR (readable replies), an unreadable judge reply left out of n;
    "tmr_paper" is TMR (all trials, paper), an unreadable reply counted as not mentioned; "judge_failed"
    counts the unreadable replies (per variant and per run)."""
    return {r: _vaf_run_metrics(project, r) for r in run_ids}


def vaf_clicks(project: Project, run_ids: list[int], variant: int | str) -> list[dict]:
    """Where the trials' clicks landed on a variant's page (x, y, the item hit, on the target)."""
    return _click_points(project, run_ids, _variant_id(project, variant))


def vaf_trials(project: Project, run_id: int, variant: int | str) -> list[dict]:
    """A run's trials on one variant, each with its steps (scroll, raw answer, action, thought)."""
    return _trials_of(project, run_id, _variant_id(project, variant))


# -- pre-labelling with your own model (desktop_app/prelabel.py) -------------------------------------------
def model_proposals(project: Project, step_id: int, run_ids: list[int]) -> list[ModelProposal]:
    """The runs' answers on a step as boxes around what they point at: the window's suggestions."""
    return _proposals_for_step(project, step_id, list(run_ids))


def prelabel(project: Project, run_id: int, where: Where = None, label: str = "gold",
             actor: str | None = None) -> PrelabelReport:
    """Accept a run's answers as boxes (source "llm") on the selected steps that have none yet."""
    return _apply_prelabels(project, run_id, _filter(where), label, actor)


