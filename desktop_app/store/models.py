"""The project schema. Every change to it goes through an Alembic migration.

Boxes belong to a step, not to a screen: whether a box is gold or distracted
depends on the goal, and the same screenshot can appear under different goals
(docs/decisions/0003-boxes-belong-to-steps.md).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    UniqueConstraint,
)
from sqlmodel import Field, SQLModel

from desktop_app.store.types import UTCDateTime, utcnow

LABELS = ("gold", "distracted", "other")
ACTION_TYPES = ("click", "type", "select", "scroll", "long_press", "hover", "key", "open_app", "navigate_back",
                "navigate_home", "wait", "other")
BOX_SOURCES = ("manual", "ocr", "dom", "import", "llm")
PLATFORMS = ("web", "android", "ios", "desktop")
REVIEW_STATUSES = ("pending", "accepted", "rejected", "edited")
# An episode nobody was asked to review (e.g. imported, human-made data).
EPISODE_REVIEW_STATUSES = ("unreviewed", *REVIEW_STATUSES)
# wrong_format is a separate flag on a prediction (its verdict is invalid); error = no answer was obtained
# judge runs: a trajectory's verdict (success, failure, impossible) or a step's label in short
# (reached, towards, not_sure, away: judging/parse.py), invalid for an answer that could not be read
JUDGE_VERDICTS = ("success", "failure", "impossible", "reached", "towards", "not_sure", "away")
VERDICTS = ("gold", "distracted", "other", "invalid", "error", *JUDGE_VERDICTS)
# pending: created, never executed; done_with_errors: finished, some requests failed after retries
# (resume asks them again); failed: stopped by an error (Run.failure says which); cancelled: stopped by the user
RUN_STATES = ("pending", "running", "done", "done_with_errors", "failed", "cancelled")
# sample: screens with labelled actions (what agents are run on); trajectory: what an agent did, step by
# step, to be judged as a whole (its actions are the agent's, not labels: docs/decisions/0017)
# probe: a knowledge-probe question (Sphinx); its steps are the ways it is asked and have no screen
# copy: one annotator's private version of a sample labelled twice (double annotation, teams/copies.py)
EPISODE_KINDS = ("sample", "trajectory", "probe", "variant", "copy")
# an annotator's work on a sample: todo (assigned, not opened), in_progress, done, skipped (with a reason)
ASSIGNMENT_STATES = ("todo", "in_progress", "done", "skipped")
# a person's verdict on a whole trajectory; unsure and emulator_error are kept but not used as a reference
OUTCOMES = ("success", "failure", "impossible", "unsure", "emulator_error")
# a reviewer's decision on an annotator's finished work (CVAT's validation stage): accept it, or return it to
# its annotator with a comment (teams/review.py)
WORK_DECISIONS = ("accept", "return")
# a reviewed disagreement: accept = the judge was right (the reference label is corrected),
# override = the human label stands (the judge erred; tags say how)
REVIEW_DECISIONS = ("accept", "override")


def _json_column() -> Any:
    return Field(default_factory=dict, sa_column=Column(JSON, nullable=False))


def _time_column(**kw: Any) -> Any:
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, **kw)


def _fk(target: str, ondelete: str = "CASCADE", nullable: bool = False, index: bool = True) -> Any:
    return Field(
        default=None if nullable else ...,
        sa_column=Column(Integer, ForeignKey(target, ondelete=ondelete), nullable=nullable, index=index),
    )


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Screen(SQLModel, table=True):
    __tablename__ = "screen"

    id: int | None = Field(default=None, primary_key=True)
    sha256: str = Field(max_length=64, unique=True, index=True)
    ext: str = Field(max_length=8)  # file extension in the media store: png, jpg, webp
    width: int
    height: int
    platform: str = Field(default="web", max_length=16)
    source: str = Field(default="")  # where the image came from (path, dataset, renderer)
    meta: dict = _json_column()
    created_at: datetime = _time_column()


class Episode(SQLModel, table=True):
    """A task: a goal and an ordered list of steps (one step for a single screen)."""

    __tablename__ = "episode"
    __table_args__ = (CheckConstraint(_in("review_status", EPISODE_REVIEW_STATUSES), name="ck_episode_review"),
                      CheckConstraint(_in("kind", EPISODE_KINDS), name="ck_episode_kind"))

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True, index=True)  # the id the source gave it
    kind: str = Field(default="sample", index=True, max_length=16)
    goal: str = Field(default="")
    scenario: str = Field(default="", index=True)
    split: str = Field(default="", index=True)
    review_status: str = Field(default="unreviewed", index=True, max_length=16)
    meta: dict = _json_column()
    created_at: datetime = _time_column()
    updated_at: datetime = _time_column()
    updated_by: str = Field(default="", max_length=64)  # who raised `version` last (edits.claim_episode)
    version: int = Field(default=1)


class Step(SQLModel, table=True):
    __tablename__ = "step"
    __table_args__ = (UniqueConstraint("episode_id", "index", name="uq_step_episode_index"),)

    id: int | None = Field(default=None, primary_key=True)
    episode_id: int = _fk("episode.id")
    index: int = Field(default=0)
    screen_id: int | None = _fk("screen.id", ondelete="RESTRICT", nullable=True)  # None: a probe's question
    instruction: str = Field(default="")
    meta: dict = _json_column()


class ActionBox(SQLModel, table=True):
    """An annotated action on a step's screen. Coordinates are image pixels.

    A box may have no coordinates: some sources only name the element
    ("Button <icon-cross>") or mark it out of screen.
    """

    __tablename__ = "action_box"
    __table_args__ = (
        # the role is one of LABELS (migration 0014: a check on PostgreSQL, a trigger on SQLite); the class is
        # the project's vocabulary's to check (store/label_set.py)
        CheckConstraint(_in("source", BOX_SOURCES), name="ck_box_source"),
        CheckConstraint("(x1 IS NULL) = (x2 IS NULL) AND (y1 IS NULL) = (y2 IS NULL) AND (x1 IS NULL) = (y1 IS NULL)",
                        name="ck_box_complete"),
        CheckConstraint("x1 IS NULL OR (x2 >= x1 AND y2 >= y1)", name="ck_box_ordered"),
        # (step, label) answers "episodes having a <label> action" by index alone; a
        # label-first index makes SQLite scan every box of that label per episode.
        Index("ix_action_box_step_label", "step_id", "label"),
        # ids are never reused, so undoing a delete can put the box back under its old id
        {"sqlite_autoincrement": True},
    )

    id: int | None = Field(default=None, primary_key=True)
    step_id: int = _fk("step.id", index=False)  # covered by ix_action_box_step_label
    x1: float | None = None
    y1: float | None = None
    x2: float | None = None
    y2: float | None = None
    label: str = Field(default="other", max_length=16)  # the role scoring sees: gold, distracted or other
    # the box's class from the project's vocabulary (store/label_set.py: "button", "Car", COCO's 80), case kept;
    # "" for none. Scoring never reads it (ADR 0047).
    category: str = Field(default="", max_length=64, sa_column_kwargs={"server_default": ""})
    action_type: str = Field(default="click", max_length=16)
    element_text: str = Field(default="")
    type_text: str = Field(default="")
    source: str = Field(default="manual", max_length=16)
    author: str = Field(default="")
    meta: dict = _json_column()
    created_at: datetime = _time_column()
    updated_at: datetime = _time_column()
    version: int = Field(default=1)

    @property
    def has_box(self) -> bool:
        return self.x1 is not None


class ReviewItem(SQLModel, table=True):
    """Something a model generated, waiting for (or past) human verification."""

    __tablename__ = "review_item"
    __table_args__ = (CheckConstraint(_in("status", REVIEW_STATUSES), name="ck_review_status"),)

    id: int | None = Field(default=None, primary_key=True)
    episode_id: int = _fk("episode.id")
    kind: str = Field(default="")  # e.g. distraction_screen, ambiguous_task
    generator: str = Field(default="")  # model that produced it
    prompt: str = Field(default="")  # prompt template name and version
    payload: dict = _json_column()  # prompts, raw answers, token counts, original text
    status: str = Field(default="pending", index=True, max_length=16)
    reviewer: str = Field(default="")
    reason: str = Field(default="")
    created_at: datetime = _time_column()
    updated_at: datetime = _time_column()


class AgentProfile(SQLModel, table=True):
    """A frozen copy of the profile a run used. Never holds an API key, only where to find one."""

    __tablename__ = "agent_profile"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    base_url: str = Field(default="")
    model: str = Field(default="")
    pattern: str = Field(default="direct")
    convention: str = Field(default="element_json")
    api_key_ref: str = Field(default="")  # "env:NAME" or "keyring:NAME"
    params: dict = _json_column()  # temperature, max tokens, image detail, extra body
    created_at: datetime = _time_column()


class Run(SQLModel, table=True):
    """One evaluation: a frozen agent profile, a protocol, a sample selection, and how it went.

    Identity fields are columns (filtered and shown in every front end); `selection` and `options`
    are JSON read through typed dataclasses (runs/selection.py, the protocol's options type).
    """

    __tablename__ = "run"
    __table_args__ = (CheckConstraint(_in("status", RUN_STATES), name="ck_run_status"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(default="")
    profile_id: int = _fk("agent_profile.id", ondelete="RESTRICT")
    protocol: str = Field(default="screen", max_length=32)  # a key of runs.protocols.PROTOCOLS
    selection: dict = _json_column()  # EpisodeFilter fields + include_unlabelled
    options: dict = _json_column()  # the protocol's own options (e.g. allow_ask)
    status: str = Field(default="pending", max_length=16)
    failure: str = Field(default="")  # why the last execution failed (status failed)
    agent: str = Field(default="")  # the profile's name, kind, model, pattern and convention when created
    kind: str = Field(default="openai", max_length=16)
    model: str = Field(default="")
    pattern: str = Field(default="direct", max_length=32)
    convention: str = Field(default="", max_length=32)
    samples: int = Field(default=0)  # steps the run asks about (its selection minus those left out)
    excluded: int = Field(default=0)  # steps left out: no goal or no labelled action
    # totals over every execution (a resumed run adds to them)
    prompt_tokens: int = Field(default=0)
    completion_tokens: int = Field(default=0)
    cost: float = Field(default=0.0)
    cached: int = Field(default=0)
    executions: int = Field(default=0)
    created_at: datetime = _time_column()
    started_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


class Prediction(SQLModel, table=True):
    __tablename__ = "prediction"
    __table_args__ = (
        UniqueConstraint("run_id", "step_id", name="uq_prediction_run_step"),
        CheckConstraint("verdict = '' OR " + _in("verdict", VERDICTS), name="ck_prediction_verdict"),
    )

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = _fk("run.id")
    step_id: int = _fk("step.id")
    raw_text: str = Field(default="")
    parsed: dict = _json_column()
    x: float | None = None  # predicted point in original image pixels
    y: float | None = None
    element_text: str = Field(default="")
    verdict: str = Field(default="", index=True, max_length=16)
    matched_box_id: int | None = _fk("action_box.id", ondelete="SET NULL", nullable=True)
    wrong_format: bool = Field(default=False)
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    error: str = Field(default="")
    created_at: datetime = _time_column()
    # the answer as the envdistraction rules read it, parsed once when written (evaluation/parsed_answers.py)
    answer_x: float | None = None  # CogAgent's / SeeClick's point read from raw_text, pixels
    answer_y: float | None = None
    answer_tokens: str | None = None  # a text answer's normalised tokens, space-separated
    answer_flags: int | None = None  # parse version and findings; None: not parsed yet
    # the envdistraction flags an evaluation scored in Python, stored; None: not stored (evaluation/flag_cache.py)
    cached_flags: int | None = None


class BrowseTrial(SQLModel, table=True):
    """One browsing trial of a run of the `browse` protocol (VAF): an agent scrolls a page variant until
    it clicks; its steps, where the click landed and what a judge read in its thoughts."""

    __tablename__ = "browse_trial"
    __table_args__ = (UniqueConstraint("run_id", "episode_id", "trial", name="uq_browse_trial"),)

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = _fk("run.id")
    episode_id: int = _fk("episode.id")  # the variant
    trial: int = 0
    steps: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False))  # per step: scroll, answer, action
    ended: str = Field(default="", max_length=16)  # click | step cap | format error | error (a request failed)
    error: str = Field(default="")  # why the trial could not finish (asked again on resume)
    click_x: float | None = None  # page coordinates
    click_y: float | None = None
    hit_item: int | None = None  # the item the click landed in (its index in the page's original order)
    target_click: bool = Field(default=False)
    mention: int | None = None  # the judge's score (0 / 1); None: not judged or the judge failed
    judge: dict = _json_column()  # {"raw", "reasoning", "error"}
    prompt_tokens: int = Field(default=0)
    completion_tokens: int = Field(default=0)
    created_at: datetime = _time_column()


class AuditEntry(SQLModel, table=True):
    """Append-only: the migration installs triggers that refuse UPDATE and DELETE."""

    __tablename__ = "audit_log"
    # a row's history (and, on a server, the check that an annotator's box change carries its audit row)
    __table_args__ = (Index("ix_audit_log_entity", "entity", "entity_id"),)

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = _time_column()
    actor: str = Field(default="")
    action: str = Field(default="")  # create, update, delete, import, review
    entity: str = Field(default="")  # table name
    entity_id: int | None = None
    changes: dict = _json_column()


class OcrResult(SQLModel, table=True):
    """OCR words of an image, cached per (image, engine, settings): reopening a screen shows them at once."""

    __tablename__ = "ocr_result"
    __table_args__ = (UniqueConstraint("sha256", "engine", "settings", name="uq_ocr_image_engine_settings"),)

    id: int | None = Field(default=None, primary_key=True)
    sha256: str = Field(max_length=64, index=True)
    engine: str = Field(max_length=32)
    settings: str = Field(default="")  # canonical JSON of language and engine options
    words: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    elements: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    duration_ms: float | None = None
    created_at: datetime = _time_column()


class ResponseCache(SQLModel, table=True):
    """Model answers keyed by everything that determines them, so reruns and re-scoring cost nothing."""

    __tablename__ = "response_cache"

    key: str = Field(primary_key=True, max_length=64)  # sha256 of model, messages, image hashes, parameters
    model: str = Field(default="")
    response: dict = _json_column()  # raw text, usage, finish reason
    created_at: datetime = _time_column()


class TrajectoryLabel(SQLModel, table=True):
    """One annotator's verdict on a trajectory (an episode of kind "trajectory"), and per-step labels."""

    __tablename__ = "trajectory_label"
    __table_args__ = (UniqueConstraint("episode_id", "annotator", name="uq_trajectory_label_annotator"),
                      CheckConstraint(_in("outcome", OUTCOMES), name="ck_trajectory_label_outcome"))

    id: int | None = Field(default=None, primary_key=True)
    episode_id: int = _fk("episode.id")
    annotator: str = Field(max_length=64)
    outcome: str = Field(max_length=16)
    step_labels: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False))  # per step, "" unset
    comment: str = Field(default="")
    created_at: datetime = _time_column()
    updated_at: datetime = _time_column()
    version: int = Field(default=1)


class JudgeReview(SQLModel, table=True):
    """A person's decision on one judge verdict that disagreed with the human reference."""

    __tablename__ = "judge_review"
    __table_args__ = (UniqueConstraint("run_id", "episode_id", name="uq_judge_review_run_episode"),
                      CheckConstraint(_in("decision", REVIEW_DECISIONS), name="ck_judge_review_decision"))

    id: int | None = Field(default=None, primary_key=True)
    run_id: int = _fk("run.id")
    episode_id: int = _fk("episode.id")
    reviewer: str = Field(default="", max_length=64)
    decision: str = Field(max_length=16)
    judged: str = Field(default="", max_length=16)  # the judge's verdict the decision was about
    tags: list = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    note: str = Field(default="")
    created_at: datetime = _time_column()
    updated_at: datetime = _time_column()


class ScreenCaption(SQLModel, table=True):
    """A text description of a screen by a captioner (imported, or asked of a model by a judge run)."""

    __tablename__ = "screen_caption"
    __table_args__ = (UniqueConstraint("screen_id", "captioner", name="uq_screen_caption_captioner"),)

    id: int | None = Field(default=None, primary_key=True)
    screen_id: int = _fk("screen.id")
    captioner: str = Field(max_length=128)
    text: str = Field(default="")
    source: str = Field(default="imported", max_length=16)  # imported | model | edited
    created_at: datetime = _time_column()


class ScreenTree(SQLModel, table=True):
    """An accessibility tree of a screen as its source dumped it (a uiautomator XML), kept verbatim so export
    writes it back unchanged. One screenshot can come with different dumps, so a tree is its screen plus
    the SHA-256 of its XML, and a step names its own (step.meta["tree"]). `flags` holds the annotators'
    corrections by node (document-order id as text), e.g. {"12": {"clickable": "true"}}."""

    __tablename__ = "screen_tree"
    __table_args__ = (UniqueConstraint("screen_id", "sha256", name="uq_screen_tree_new_screen_id_sha256"),)

    id: int | None = Field(default=None, primary_key=True)
    screen_id: int = _fk("screen.id")
    sha256: str = Field(max_length=64)
    kind: str = Field(default="uiautomator", max_length=16)
    xml: str = Field(default="")
    nodes: int = Field(default=0)
    flags: dict = _json_column()
    created_at: datetime = _time_column()


class Assignment(SQLModel, table=True):
    """One annotator's work on one sample: who, in what state, how long it took. A sample in the overlap of
    a double annotation has two, each with its own private copy (`copy_id`, an episode of kind "copy")
    that the annotator labels blind; other samples are labelled in place. Also made on the spot when
    someone marks an unassigned sample done or skipped, so a one-person project keeps its states here too."""

    __tablename__ = "assignment"
    __table_args__ = (UniqueConstraint("episode_id", "annotator", name="uq_assignment_episode_annotator"),
                      CheckConstraint(_in("state", ASSIGNMENT_STATES), name="ck_assignment_state"),
                      # a person's work read from the index alone (the server's row-level security asks it in
                      # every statement of an annotator: migration 0013)
                      Index("ix_assignment_work", "annotator", "state", "copy_id", "episode_id"))

    id: int | None = Field(default=None, primary_key=True)
    episode_id: int = _fk("episode.id")
    annotator: str = Field(max_length=64)
    state: str = Field(default="todo", max_length=16, index=True)
    reason: str = Field(default="")  # why it was skipped
    copy_id: int | None = _fk("episode.id", ondelete="SET NULL", nullable=True)
    assigned_by: str = Field(default="", max_length=64)
    seconds: float = Field(default=0.0)  # time spent on it, summed over visits
    created_at: datetime = _time_column()
    updated_at: datetime = _time_column()
    done_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    version: int = Field(default=1)


class Adjudication(SQLModel, table=True):
    """A lead's decision on a double-annotated sample: which copy's boxes (or which boxes of each) became
    the sample's labels. The copies stay, and the audit log holds every box written."""

    __tablename__ = "adjudication"

    id: int | None = Field(default=None, primary_key=True)
    episode_id: int = Field(sa_column=Column(Integer, ForeignKey("episode.id", ondelete="CASCADE"),
                                             nullable=False, unique=True))
    lead: str = Field(default="", max_length=64)
    choice: dict = _json_column()  # {"take": annotator} or {"boxes": [copy box ids]}
    created_at: datetime = _time_column()


class WorkReview(SQLModel, table=True):
    """A reviewer's decision on one annotator's finished work on a sample (their assignment): accepted, or
    returned to them with a comment, pinned to a box or a point of a step's screen when the reviewer chose
    one. Only ever appended: the latest decision is where the work stands, all of them give the acceptance
    rate. On a server the reviewer is the database login that wrote the row (a trigger sets it)."""

    __tablename__ = "work_review"
    __table_args__ = (CheckConstraint(_in("decision", WORK_DECISIONS), name="ck_work_review_decision"),)

    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = _fk("assignment.id")
    annotator: str = Field(max_length=64, index=True)  # whose work (the assignment's), read by the server's rules
    reviewer: str = Field(default="", max_length=64)
    decision: str = Field(max_length=16)
    comment: str = Field(default="")
    step_index: int | None = None  # the pin: a step of the work episode, and a box on it or a point
    box_id: int | None = None  # not a foreign key: the box may be deleted while the work is fixed
    x: float | None = None
    y: float | None = None
    created_at: datetime = _time_column()


class RescoreDue(SQLModel, table=True):
    """Steps whose boxes an annotator changed on a server, waiting for the agents' answers on them to be judged
    again: an annotator may not write verdicts (ADR 0029), so the next evaluation by a lead or reviewer
    judges them first (evaluation/rescore.catch_up)."""

    __tablename__ = "rescore_due"

    step_id: int = Field(sa_column=Column(Integer, ForeignKey("step.id", ondelete="CASCADE"), primary_key=True))
    created_at: datetime = _time_column()


class TeamLogin(SQLModel, table=True):
    """The server logins this project created for its people (ADR 0029): only these may have their password
    reset by its lead, or be dropped when they leave the team. Read by the server's own functions only."""

    __tablename__ = "team_login"

    login: str = Field(primary_key=True, max_length=64)
    created_at: datetime = _time_column()


class ProjectSetting(SQLModel, table=True):
    """A choice made for the whole project when it was created, read by everyone who opens it (e.g. whether
    its images live in a folder or in the database: store/media_choice.py)."""

    __tablename__ = "project_setting"

    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(default="")


class MediaBlob(SQLModel, table=True):
    """An image kept inside the database (a project created with its media in the database): named by its
    SHA-256 like a file of the media folder, so every row that names a screen finds it the same way."""

    __tablename__ = "media_blob"

    sha256: str = Field(primary_key=True, max_length=64)
    ext: str = Field(max_length=8)
    size: int
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    created_at: datetime = _time_column()
