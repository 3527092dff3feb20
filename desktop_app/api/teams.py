"""Annotation teams in the Python API: people and their roles, assignment, states, double annotation,
agreement, adjudication and review. On a server project who you are is the login you opened it with
(api.whoami), and the server enforces what your role may see and change (ADR 0029); these functions
also refuse early, with a message, what the server would refuse."""

from __future__ import annotations

from desktop_app.api.selection import Where, filter_of
from desktop_app.store.models import Adjudication, Assignment, Episode
from desktop_app.store.project import Project
from desktop_app.store.queries import EpisodeFilter, list_episodes
from desktop_app.store.server_roles import ROLES, Identity
from desktop_app.store.work_states import skip_note, states_of
from desktop_app.store.work_states import skip_reasons as work_skip_reasons
from desktop_app.teams import adjudication as team_adjudication
from desktop_app.teams import assignment as team_assignment
from desktop_app.teams import members as team_members
from desktop_app.teams import progress as team_progress
from desktop_app.teams import work_review
from desktop_app.teams.adjudication import Version
from desktop_app.teams.assignment import AssignReport
from desktop_app.teams.members import Added, Member, PasswordNotKept
from desktop_app.teams.progress import AnnotatorProgress
from desktop_app.teams.work_review import Acceptance, Pin, Reviewed

__all__ = ["ROLES", "Acceptance", "Added", "Member", "PasswordNotKept", "Pin", "Reviewed", "acceptance", "add_member", "adjudicate", "assign",
           "awaiting_adjudication", "awaiting_review", "change_password", "members", "progress", "queue",
           "remove_member", "reset_password", "review_work", "set_member_role", "set_state", "skip_note",
           "skip_reasons", "states",
           "team_agreement", "versions", "whoami", "work_reviews"]


# -- who you are and who is in the team -------------------------------------------------------------------
def whoami(project: Project) -> Identity:
    """Your login (or, on SQLite, your name) and your team role: owner, lead, reviewer or annotator."""
    return project.identity


def members(project: Project) -> list[Member]:
    """The project's team: the owner, then leads, reviewers and annotators."""
    return team_members.members(project)


def add_member(project: Project, login: str, role: str = "annotator", keyring: bool = False) -> Added:
    """Add a person as a login of the server with this role (lead only). A new login gets a password made
    here: it is in the result once (hand it over) and, with keyring=True, kept in this computer's keyring
    for their URL instead. An existing login keeps its password and gets the role."""
    added = team_members.add_member(project, login, role)
    if keyring and added.password:
        team_members.keep_in_keyring(project, login, added.password)
    return added


def set_member_role(project: Project, login: str, role: str) -> Member:
    return team_members.set_role(project, login, role)


def remove_member(project: Project, login: str) -> bool:
    """Take a person out of the team (lead only); their work and its history stay."""
    return team_members.remove_member(project, login)


def reset_password(project: Project, login: str, keyring: bool = False) -> str:
    """A new password for a member (lead only; not for a login that belongs to other teams too)."""
    password = team_members.reset_password(project, login)
    if keyring:
        team_members.keep_in_keyring(project, login, password)
    return password


def change_password(project: Project, keyring: bool = True) -> str:
    """A new password for your own login, kept in this computer's keyring unless keyring=False. If the keyring
    cannot keep it, PasswordNotKept carries the password (already in force): show it to the person."""
    password = team_members.change_own_password(project)
    if keyring:
        team_members.keep_in_keyring(project, project.user, password)
    return password


# -- work ---------------------------------------------------------------------------------------------------
def assign(project: Project, annotators: list[str], where: Where = None, overlap: float = 0.0,
           limit: int | None = None, seed: int = 0, lead: str | None = None) -> AssignReport:
    """Give the selected samples nobody has yet to `annotators` in turn (lead only; on a server, logins in
    the team); a share `overlap` of them is labelled by two, each blind on a private copy."""
    return team_assignment.assign(project, filter_of(where), annotators, overlap, limit, lead, seed)


def queue(project: Project, annotator: str | None = None, states: tuple[str, ...] = (), offset: int = 0,
          limit: int = 100) -> list[Episode]:
    """A person's work (default: yours): samples and their private copies, optionally in these states
    (to do, unlabelled, in progress, done, skipped, returned, accepted). Someone else's queue only for a
    lead or reviewer."""
    who = team_members.person(project, annotator)
    with project.reading() as s:
        return list(list_episodes(s, EpisodeFilter(assignee=who, work_states=tuple(states)), offset, limit))


def set_state(project: Project, episode_id: int, state: str, reason: str = "",
              annotator: str | None = None) -> Assignment:
    """Mark work on a sample (or on your copy of it): done, skipped (reason required), in_progress, todo.
    Done and skipped are final for an annotator; a lead or reviewer reopens (annotator= whose work)."""
    return team_assignment.set_state(project, episode_id, state, annotator, reason)


def states(project: Project, episode_ids: list[int], annotator: str | None = None) -> dict[int, tuple[str, str]]:
    """Per episode: (state as shown, who works on it)."""
    with project.reading() as s:
        return states_of(s, episode_ids, annotator)


def skip_reasons(project: Project, episode_ids: list[int]) -> dict[int, list[tuple[str, str]]]:
    """Per episode someone skipped: (annotator, the reason they gave), by name; the others are left out."""
    with project.reading() as s:
        return work_skip_reasons(s, episode_ids)


def progress(project: Project) -> list[AnnotatorProgress]:
    return team_progress.progress(project)


def awaiting_adjudication(project: Project) -> list[int]:
    return team_progress.awaiting_adjudication(project)


def versions(project: Project, episode_id: int) -> list[Version]:
    """Each annotator's version of a double-annotated sample (only once all are finished: blind before)."""
    found = team_adjudication.versions(project, episode_id)
    team_adjudication.blind_until_done(found)
    return found


def team_agreement(project: Project, episode_ids: list[int] | None = None, threshold: float = 0.5) -> dict:
    """Boxes matched by IoU >= threshold, then Cohen's kappa per annotator pair and label, Fleiss' kappa."""
    return team_adjudication.team_agreement(project, episode_ids, threshold)


def adjudicate(project: Project, episode_id: int, take: str | None = None, boxes: list[int] | None = None,
               lead: str | None = None) -> Adjudication:
    """Make one annotator's version (take=) or picked boxes of the versions (boxes=) the sample's labels
    (lead only)."""
    return team_adjudication.adjudicate(project, episode_id, take, boxes, lead)


# -- review (annotation -> review -> accepted) ----------------------------------------------------------------
def review_work(project: Project, episode_id: int, decision: str, comment: str = "", annotator: str | None = None,
                step: int | None = None, box: int | None = None,
                point: tuple[float, float] | None = None) -> Reviewed:
    """Accept finished work ("accept") or return it to its annotator ("return", with a comment), as a reviewer
    or the lead. `episode_id`: the annotator's copy, or the sample (annotator= when two labelled it). Pin the
    comment to a box (box=) or a point (step=, point=(x, y) in image pixels) of a step."""
    pin = None
    if box is not None or point is not None or step is not None:
        pin = Pin(step if step is not None else _step_of_box(project, box),
                  box, *(point if point is not None else (None, None)))
    return work_review.review_work(project, episode_id, decision, comment, annotator, pin)


def _step_of_box(project: Project, box_id: int | None) -> int:
    from desktop_app.store.models import ActionBox, Step

    with project.reading() as s:
        found = s.get(ActionBox, box_id) if box_id is not None else None
        step = s.get(Step, found.step_id) if found is not None else None
    if step is None:
        raise ValueError(f"no box {box_id} in your view of this project")
    return step.index


def work_reviews(project: Project, episode_id: int | None = None, annotator: str | None = None) -> list[Reviewed]:
    """Review decisions, oldest first (an annotator sees those on their own work only)."""
    return work_review.decisions(project, episode_id, annotator)


def awaiting_review(project: Project) -> list[tuple[int, str]]:
    """(work episode, annotator) of finished work not yet accepted: a reviewer's list."""
    return work_review.awaiting_review(project)


def acceptance(project: Project) -> dict[str, Acceptance]:
    """Per annotator: decisions that accepted and returned their work, and the acceptance rate."""
    return work_review.acceptance(project)
