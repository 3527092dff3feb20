"""A project's box labels: gold, distracted and other (what every protocol scores), plus labels a project
adds for its own study ("ad", "login-wall", ...), as CVAT and Label Studio let a project define its labels.

The three are always there: the papers' metrics are defined on them. A project's own label scores as "other"
(an answer on an ad is neither the goal nor the distraction the sample was made for), so runs, verdicts and
reports are unchanged by it. The list lives in the project (project_setting "labels"), so every annotator
and every machine sees the same labels; a label in use cannot be removed.
"""

from __future__ import annotations

import json
import re

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from desktop_app.store.models import LABELS, ActionBox, ProjectSetting

SETTING = "labels"
MAX_EXTRA = 6  # the keys 4-9 label with them
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,15}$")  # fits the label column (16), reads well in a file name


class LabelError(ValueError):
    pass


def labels(engine: Engine) -> tuple[str, ...]:
    """gold, distracted, other, then the project's own labels in the order they were added."""
    return (*LABELS, *_extra(engine))


def scoring_label(label: str) -> str:
    """What scoring sees: a project's own label counts as "other"."""
    return label if label in LABELS else "other"


def check_label(engine: Engine, label: str) -> None:
    if label not in labels(engine):
        raise LabelError(f"unknown label '{label}' (this project's labels: {', '.join(labels(engine))})")


def add_label(engine: Engine, name: str) -> tuple[str, ...]:
    name = name.strip().lower()
    if not _NAME.match(name):
        raise LabelError(f"label '{name}': 1-16 lowercase letters, digits, '-' or '_', starting with a letter or "
                         "digit")
    extra = _extra(engine)
    if name in LABELS or name in extra:
        raise LabelError(f"label '{name}' exists already")
    if len(extra) >= MAX_EXTRA:
        raise LabelError(f"a project has at most {MAX_EXTRA} labels of its own (keys 4-9)")
    _store(engine, [*extra, name])
    return labels(engine)


def remove_label(engine: Engine, name: str) -> tuple[str, ...]:
    if name in LABELS:
        raise LabelError(f"'{name}' is one of the labels every protocol scores; it cannot be removed")
    extra = _extra(engine)
    if name not in extra:
        raise LabelError(f"this project has no label '{name}'")
    with engine.connect() as conn:
        used = conn.execute(select(func.count()).select_from(ActionBox).where(ActionBox.label == name)).scalar_one()
    if used:
        raise LabelError(f"{used} box{'es' if used != 1 else ''} use '{name}'; relabel them first")
    _store(engine, [x for x in extra if x != name])
    return labels(engine)


def _extra(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        value = conn.execute(select(ProjectSetting.value).where(ProjectSetting.key == SETTING)).scalar()
    return list(json.loads(value)) if value else []


def _store(engine: Engine, extra: list[str]) -> None:
    table = ProjectSetting.__table__
    with engine.begin() as conn:
        conn.execute(table.delete().where(table.c.key == SETTING))
        conn.execute(table.insert().values(key=SETTING, value=json.dumps(extra)))
