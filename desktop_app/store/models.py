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
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, MappedAsDataclass, mapped_column

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


class Base(MappedAsDataclass, DeclarativeBase, kw_only=True):
    """The tables' base: SQLAlchemy's declarative mapping, rows made as dataclasses (ADR 0067). A row is made as
    SQLModel made it before: by keyword, every field set at once (its default, or its factory's: a JSON column's
    empty container, a time column's now), nothing validated; a field without a default is None until set."""

    type_annotation_map = {float: Float}  # SQLAlchemy 2.1 would make them DOUBLE; the schema has FLOAT


def _id() -> Any:
    return mapped_column(primary_key=True, default=None)  # None until the row is flushed


def _json_column() -> Any:
    return mapped_column(JSON, nullable=False, default_factory=dict)


def _json_list() -> Any:
    return mapped_column(JSON, nullable=False, default_factory=list)


def _time_column(**kw: Any) -> Any:
    # the factory fills a row made in Python; the insert default, a row inserted without it (a Core insert)
    return mapped_column(UTCDateTime, nullable=False, default_factory=utcnow, insert_default=utcnow, **kw)


def _fk(target: str, ondelete: str = "CASCADE", nullable: bool = False, index: bool = True) -> Any:
    return mapped_column(Integer, ForeignKey(target, ondelete=ondelete), nullable=nullable, index=index, default=None)


def _in(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


class Screen(Base):
    __tablename__ = "screen"

    id: Mapped[int] = _id()
    sha256: Mapped[str] = mapped_column(String(64), unique=True, index=True, default=None)
    ext: Mapped[str] = mapped_column(String(8), default=None)  # file extension in the media store: png, jpg, webp
    width: Mapped[int] = mapped_column(default=None)
    height: Mapped[int] = mapped_column(default=None)
    platform: Mapped[str] = mapped_column(String(16), default="web")
    source: Mapped[str] = mapped_column(default="")  # where the image came from (path, dataset, renderer)
    meta: Mapped[dict] = _json_column()
    created_at: Mapped[datetime] = _time_column()


class Episode(Base):
    """A task: a goal and an ordered list of steps (one step for a single screen)."""

    __tablename__ = "episode"
    __table_args__ = (CheckConstraint(_in("review_status", EPISODE_REVIEW_STATUSES), name="ck_episode_review"),
                      CheckConstraint(_in("kind", EPISODE_KINDS), name="ck_episode_kind"))

    id: Mapped[int] = _id()
    key: Mapped[str] = mapped_column(unique=True, index=True, default=None)  # the id the source gave it
    kind: Mapped[str] = mapped_column(String(16), index=True, default="sample")
    goal: Mapped[str] = mapped_column(default="")
    scenario: Mapped[str] = mapped_column(index=True, default="")
    split: Mapped[str] = mapped_column(index=True, default="")
    review_status: Mapped[str] = mapped_column(String(16), index=True, default="unreviewed")
    meta: Mapped[dict] = _json_column()
    created_at: Mapped[datetime] = _time_column()
    updated_at: Mapped[datetime] = _time_column()
    updated_by: Mapped[str] = mapped_column(String(64), default="")  # who raised `version` last (edits.claim_episode)
    version: Mapped[int] = mapped_column(default=1)


class Step(Base):
    __tablename__ = "step"
    __table_args__ = (UniqueConstraint("episode_id", "index", name="uq_step_episode_index"),)

    id: Mapped[int] = _id()
    episode_id: Mapped[int] = _fk("episode.id")
    index: Mapped[int] = mapped_column(default=0)
    screen_id: Mapped[int | None] = _fk("screen.id", ondelete="RESTRICT", nullable=True)  # None: a probe's question
    instruction: Mapped[str] = mapped_column(default="")
    meta: Mapped[dict] = _json_column()


class ActionBox(Base):
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

    id: Mapped[int] = _id()
    step_id: Mapped[int] = _fk("step.id", index=False)  # covered by ix_action_box_step_label
    x1: Mapped[float | None] = mapped_column(default=None)
    y1: Mapped[float | None] = mapped_column(default=None)
    x2: Mapped[float | None] = mapped_column(default=None)
    y2: Mapped[float | None] = mapped_column(default=None)
    # the role scoring sees: gold, distracted or other
    label: Mapped[str] = mapped_column(String(16), default="other")
    # the box's class from the project's vocabulary (store/label_set.py: "button", "Car", COCO's 80), case kept;
    # "" for none. Scoring never reads it (ADR 0047).
    category: Mapped[str] = mapped_column(String(64), server_default="", default="")
    action_type: Mapped[str] = mapped_column(String(16), default="click")
    element_text: Mapped[str] = mapped_column(default="")
    type_text: Mapped[str] = mapped_column(default="")
    source: Mapped[str] = mapped_column(String(16), default="manual")
    author: Mapped[str] = mapped_column(default="")
    meta: Mapped[dict] = _json_column()
    created_at: Mapped[datetime] = _time_column()
    updated_at: Mapped[datetime] = _time_column()
    version: Mapped[int] = mapped_column(default=1)

    @property
    def has_box(self) -> bool:
        return self.x1 is not None


class ReviewItem(Base):
    """Something a model generated, waiting for (or past) human verification."""

    __tablename__ = "review_item"
    __table_args__ = (CheckConstraint(_in("status", REVIEW_STATUSES), name="ck_review_status"),)

    id: Mapped[int] = _id()
    episode_id: Mapped[int] = _fk("episode.id")
    kind: Mapped[str] = mapped_column(default="")  # e.g. distraction_screen, ambiguous_task
    generator: Mapped[str] = mapped_column(default="")  # model that produced it
    prompt: Mapped[str] = mapped_column(default="")  # prompt template name and version
    payload: Mapped[dict] = _json_column()  # prompts, raw answers, token counts, original text
    status: Mapped[str] = mapped_column(String(16), index=True, default="pending")
    reviewer: Mapped[str] = mapped_column(default="")
    reason: Mapped[str] = mapped_column(default="")
    created_at: Mapped[datetime] = _time_column()
    updated_at: Mapped[datetime] = _time_column()


class AgentProfile(Base):
    """A frozen copy of the profile a run used. Never holds an API key, only where to find one."""

    __tablename__ = "agent_profile"

    id: Mapped[int] = _id()
    name: Mapped[str] = mapped_column(default=None)
    base_url: Mapped[str] = mapped_column(default="")
    model: Mapped[str] = mapped_column(default="")
    pattern: Mapped[str] = mapped_column(default="direct")
    convention: Mapped[str] = mapped_column(default="element_json")
    api_key_ref: Mapped[str] = mapped_column(default="")  # "env:NAME" or "keyring:NAME"
    params: Mapped[dict] = _json_column()  # temperature, max tokens, image detail, extra body
    created_at: Mapped[datetime] = _time_column()


class Run(Base):
    """One evaluation: a frozen agent profile, a protocol, a sample selection, and how it went.

    Identity fields are columns (filtered and shown in every front end); `selection` and `options`
    are JSON read through typed dataclasses (runs/selection.py, the protocol's options type).
    """

    __tablename__ = "run"
    __table_args__ = (CheckConstraint(_in("status", RUN_STATES), name="ck_run_status"),)

    id: Mapped[int] = _id()
    name: Mapped[str] = mapped_column(default="")
    profile_id: Mapped[int] = _fk("agent_profile.id", ondelete="RESTRICT")
    protocol: Mapped[str] = mapped_column(String(32), default="screen")  # a key of runs.protocols.PROTOCOLS
    selection: Mapped[dict] = _json_column()  # EpisodeFilter fields + include_unlabelled
    options: Mapped[dict] = _json_column()  # the protocol's own options (e.g. allow_ask)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    failure: Mapped[str] = mapped_column(default="")  # why the last execution failed (status failed)
    # the profile's name, kind, model, pattern and convention when created
    agent: Mapped[str] = mapped_column(default="")
    kind: Mapped[str] = mapped_column(String(16), default="openai")
    model: Mapped[str] = mapped_column(default="")
    pattern: Mapped[str] = mapped_column(String(32), default="direct")
    convention: Mapped[str] = mapped_column(String(32), default="")
    samples: Mapped[int] = mapped_column(default=0)  # steps the run asks about (its selection minus those left out)
    excluded: Mapped[int] = mapped_column(default=0)  # steps left out: no goal or no labelled action
    # totals over every execution (a resumed run adds to them)
    prompt_tokens: Mapped[int] = mapped_column(default=0)
    completion_tokens: Mapped[int] = mapped_column(default=0)
    cost: Mapped[float] = mapped_column(default=0.0)
    cached: Mapped[int] = mapped_column(default=0)
    executions: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = _time_column()
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)


class Prediction(Base):
    __tablename__ = "prediction"
    __table_args__ = (
        UniqueConstraint("run_id", "step_id", name="uq_prediction_run_step"),
        CheckConstraint("verdict = '' OR " + _in("verdict", VERDICTS), name="ck_prediction_verdict"),
    )

    id: Mapped[int] = _id()
    run_id: Mapped[int] = _fk("run.id")
    step_id: Mapped[int] = _fk("step.id")
    raw_text: Mapped[str] = mapped_column(default="")
    parsed: Mapped[dict] = _json_column()
    x: Mapped[float | None] = mapped_column(default=None)  # predicted point in original image pixels
    y: Mapped[float | None] = mapped_column(default=None)
    element_text: Mapped[str] = mapped_column(default="")
    verdict: Mapped[str] = mapped_column(String(16), index=True, default="")
    matched_box_id: Mapped[int | None] = _fk("action_box.id", ondelete="SET NULL", nullable=True)
    wrong_format: Mapped[bool] = mapped_column(default=False)
    latency_ms: Mapped[float | None] = mapped_column(default=None)
    prompt_tokens: Mapped[int | None] = mapped_column(default=None)
    completion_tokens: Mapped[int | None] = mapped_column(default=None)
    error: Mapped[str] = mapped_column(default="")
    created_at: Mapped[datetime] = _time_column()
    # the answer as the envdistraction rules read it, parsed once when written (evaluation/parsed_answers.py)
    # CogAgent's / SeeClick's point read from raw_text, pixels
    answer_x: Mapped[float | None] = mapped_column(default=None)
    answer_y: Mapped[float | None] = mapped_column(default=None)
    # a text answer's normalised tokens, space-separated
    answer_tokens: Mapped[str | None] = mapped_column(default=None)
    answer_flags: Mapped[int | None] = mapped_column(default=None)  # parse version and findings; None: not parsed yet
    # the envdistraction flags an evaluation scored in Python, stored; None: not stored (evaluation/flag_cache.py)
    cached_flags: Mapped[int | None] = mapped_column(default=None)


class BrowseTrial(Base):
    """One browsing trial of a run of the `browse` protocol (VAF): an agent scrolls a page variant until
    it clicks; its steps, where the click landed and what a judge read in its thoughts."""

    __tablename__ = "browse_trial"
    __table_args__ = (UniqueConstraint("run_id", "episode_id", "trial", name="uq_browse_trial"),)

    id: Mapped[int] = _id()
    run_id: Mapped[int] = _fk("run.id")
    episode_id: Mapped[int] = _fk("episode.id")  # the variant
    trial: Mapped[int] = mapped_column(default=0)
    steps: Mapped[list] = _json_list()  # per step: scroll, answer, action
    # click | step cap | format error | error (a request failed)
    ended: Mapped[str] = mapped_column(String(16), default="")
    error: Mapped[str] = mapped_column(default="")  # why the trial could not finish (asked again on resume)
    click_x: Mapped[float | None] = mapped_column(default=None)  # page coordinates
    click_y: Mapped[float | None] = mapped_column(default=None)
    # the item the click landed in (its index in the page's original order)
    hit_item: Mapped[int | None] = mapped_column(default=None)
    target_click: Mapped[bool] = mapped_column(default=False)
    # the judge's score (0 / 1); None: not judged or the judge failed
    mention: Mapped[int | None] = mapped_column(default=None)
    judge: Mapped[dict] = _json_column()  # {"raw", "reasoning", "error"}
    prompt_tokens: Mapped[int] = mapped_column(default=0)
    completion_tokens: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = _time_column()


class AuditEntry(Base):
    """Append-only: the migration installs triggers that refuse UPDATE and DELETE."""

    __tablename__ = "audit_log"
    # a row's history (and, on a server, the check that an annotator's box change carries its audit row)
    __table_args__ = (Index("ix_audit_log_entity", "entity", "entity_id"),)

    id: Mapped[int] = _id()
    at: Mapped[datetime] = _time_column()
    actor: Mapped[str] = mapped_column(default="")
    action: Mapped[str] = mapped_column(default="")  # create, update, delete, import, review
    entity: Mapped[str] = mapped_column(default="")  # table name
    entity_id: Mapped[int | None] = mapped_column(default=None)
    changes: Mapped[dict] = _json_column()


class OcrResult(Base):
    """OCR words of an image, cached per (image, engine, settings): reopening a screen shows them at once."""

    __tablename__ = "ocr_result"
    __table_args__ = (UniqueConstraint("sha256", "engine", "settings", name="uq_ocr_image_engine_settings"),)

    id: Mapped[int] = _id()
    sha256: Mapped[str] = mapped_column(String(64), index=True, default=None)
    engine: Mapped[str] = mapped_column(String(32), default=None)
    settings: Mapped[str] = mapped_column(default="")  # canonical JSON of language and engine options
    words: Mapped[list] = _json_list()
    elements: Mapped[list] = _json_list()
    duration_ms: Mapped[float | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = _time_column()


class ResponseCache(Base):
    """Model answers keyed by everything that determines them, so reruns and re-scoring cost nothing."""

    __tablename__ = "response_cache"

    # sha256 of model, messages, image hashes, parameters
    key: Mapped[str] = mapped_column(String(64), primary_key=True, default=None)
    model: Mapped[str] = mapped_column(default="")
    response: Mapped[dict] = _json_column()  # raw text, usage, finish reason
    created_at: Mapped[datetime] = _time_column()


class TrajectoryLabel(Base):
    """One annotator's verdict on a trajectory (an episode of kind "trajectory"), and per-step labels."""

    __tablename__ = "trajectory_label"
    __table_args__ = (UniqueConstraint("episode_id", "annotator", name="uq_trajectory_label_annotator"),
                      CheckConstraint(_in("outcome", OUTCOMES), name="ck_trajectory_label_outcome"))

    id: Mapped[int] = _id()
    episode_id: Mapped[int] = _fk("episode.id")
    annotator: Mapped[str] = mapped_column(String(64), default=None)
    outcome: Mapped[str] = mapped_column(String(16), default=None)
    step_labels: Mapped[list] = _json_list()  # per step, "" unset
    comment: Mapped[str] = mapped_column(default="")
    created_at: Mapped[datetime] = _time_column()
    updated_at: Mapped[datetime] = _time_column()
    version: Mapped[int] = mapped_column(default=1)


class JudgeReview(Base):
    """A person's decision on one judge verdict that disagreed with the human reference."""

    __tablename__ = "judge_review"
    __table_args__ = (UniqueConstraint("run_id", "episode_id", name="uq_judge_review_run_episode"),
                      CheckConstraint(_in("decision", REVIEW_DECISIONS), name="ck_judge_review_decision"))

    id: Mapped[int] = _id()
    run_id: Mapped[int] = _fk("run.id")
    episode_id: Mapped[int] = _fk("episode.id")
    reviewer: Mapped[str] = mapped_column(String(64), default="")
    decision: Mapped[str] = mapped_column(String(16), default=None)
    judged: Mapped[str] = mapped_column(String(16), default="")  # the judge's verdict the decision was about
    tags: Mapped[list] = _json_list()
    note: Mapped[str] = mapped_column(default="")
    created_at: Mapped[datetime] = _time_column()
    updated_at: Mapped[datetime] = _time_column()


class ScreenCaption(Base):
    """A text description of a screen by a captioner (imported, or asked of a model by a judge run)."""

    __tablename__ = "screen_caption"
    __table_args__ = (UniqueConstraint("screen_id", "captioner", name="uq_screen_caption_captioner"),)

    id: Mapped[int] = _id()
    screen_id: Mapped[int] = _fk("screen.id")
    captioner: Mapped[str] = mapped_column(String(128), default=None)
    text: Mapped[str] = mapped_column(default="")
    source: Mapped[str] = mapped_column(String(16), default="imported")  # imported | model | edited
    created_at: Mapped[datetime] = _time_column()


class ScreenTree(Base):
    """An accessibility tree of a screen as its source dumped it (a uiautomator XML), kept verbatim so export
    writes it back unchanged. One screenshot can come with different dumps, so a tree is its screen plus
    the SHA-256 of its XML, and a step names its own (step.meta["tree"]). `flags` holds the annotators'
    corrections by node (document-order id as text), e.g. {"12": {"clickable": "true"}}."""

    __tablename__ = "screen_tree"
    __table_args__ = (UniqueConstraint("screen_id", "sha256", name="uq_screen_tree_new_screen_id_sha256"),)

    id: Mapped[int] = _id()
    screen_id: Mapped[int] = _fk("screen.id")
    sha256: Mapped[str] = mapped_column(String(64), default=None)
    kind: Mapped[str] = mapped_column(String(16), default="uiautomator")
    xml: Mapped[str] = mapped_column(default="")
    nodes: Mapped[int] = mapped_column(default=0)
    flags: Mapped[dict] = _json_column()
    created_at: Mapped[datetime] = _time_column()


class Assignment(Base):
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

    id: Mapped[int] = _id()
    episode_id: Mapped[int] = _fk("episode.id")
    annotator: Mapped[str] = mapped_column(String(64), default=None)
    state: Mapped[str] = mapped_column(String(16), index=True, default="todo")
    reason: Mapped[str] = mapped_column(default="")  # why it was skipped
    copy_id: Mapped[int | None] = _fk("episode.id", ondelete="SET NULL", nullable=True)
    assigned_by: Mapped[str] = mapped_column(String(64), default="")
    seconds: Mapped[float] = mapped_column(default=0.0)  # time spent on it, summed over visits
    created_at: Mapped[datetime] = _time_column()
    updated_at: Mapped[datetime] = _time_column()
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=None)
    version: Mapped[int] = mapped_column(default=1)


class Adjudication(Base):
    """A lead's decision on a double-annotated sample: which copy's boxes (or which boxes of each) became
    the sample's labels. The copies stay, and the audit log holds every box written."""

    __tablename__ = "adjudication"

    id: Mapped[int] = _id()
    episode_id: Mapped[int] = mapped_column(Integer, ForeignKey("episode.id", ondelete="CASCADE"), nullable=False,
                                            unique=True, default=None)
    lead: Mapped[str] = mapped_column(String(64), default="")
    choice: Mapped[dict] = _json_column()  # {"take": annotator} or {"boxes": [copy box ids]}
    created_at: Mapped[datetime] = _time_column()


class WorkReview(Base):
    """A reviewer's decision on one annotator's finished work on a sample (their assignment): accepted, or
    returned to them with a comment, pinned to a box or a point of a step's screen when the reviewer chose
    one. Only ever appended: the latest decision is where the work stands, all of them give the acceptance
    rate. On a server the reviewer is the database login that wrote the row (a trigger sets it)."""

    __tablename__ = "work_review"
    __table_args__ = (CheckConstraint(_in("decision", WORK_DECISIONS), name="ck_work_review_decision"),)

    id: Mapped[int] = _id()
    assignment_id: Mapped[int] = _fk("assignment.id")
    # whose work (the assignment's), read by the server's rules
    annotator: Mapped[str] = mapped_column(String(64), index=True, default=None)
    reviewer: Mapped[str] = mapped_column(String(64), default="")
    decision: Mapped[str] = mapped_column(String(16), default=None)
    comment: Mapped[str] = mapped_column(default="")
    # the pin: a step of the work episode, and a box on it or a point
    step_index: Mapped[int | None] = mapped_column(default=None)
    # not a foreign key: the box may be deleted while the work is fixed
    box_id: Mapped[int | None] = mapped_column(default=None)
    x: Mapped[float | None] = mapped_column(default=None)
    y: Mapped[float | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = _time_column()


class RescoreDue(Base):
    """Steps whose boxes an annotator changed on a server, waiting for the agents' answers on them to be judged
    again: an annotator may not write verdicts (ADR 0029), so the next evaluation by a lead or reviewer
    judges them first (evaluation/rescore.catch_up)."""

    __tablename__ = "rescore_due"

    step_id: Mapped[int] = mapped_column(Integer, ForeignKey("step.id", ondelete="CASCADE"), primary_key=True,
                                         default=None)
    created_at: Mapped[datetime] = _time_column()


class TeamLogin(Base):
    """The server logins this project created for its people (ADR 0029): only these may have their password
    reset by its lead, or be dropped when they leave the team. Read by the server's own functions only."""

    __tablename__ = "team_login"

    login: Mapped[str] = mapped_column(String(64), primary_key=True, default=None)
    created_at: Mapped[datetime] = _time_column()


class ProjectSetting(Base):
    """A choice made for the whole project when it was created, read by everyone who opens it (e.g. whether
    its images live in a folder or in the database: store/media_choice.py)."""

    __tablename__ = "project_setting"

    key: Mapped[str] = mapped_column(String(64), primary_key=True, default=None)
    value: Mapped[str] = mapped_column(default="")


class MediaBlob(Base):
    """An image kept inside the database (a project created with its media in the database): named by its
    SHA-256 like a file of the media folder, so every row that names a screen finds it the same way."""

    __tablename__ = "media_blob"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True, default=None)
    ext: Mapped[str] = mapped_column(String(8), default=None)
    size: Mapped[int] = mapped_column(default=None)
    data: Mapped[bytes] = mapped_column(LargeBinary, nullable=False, default=None)
    created_at: Mapped[datetime] = _time_column()
