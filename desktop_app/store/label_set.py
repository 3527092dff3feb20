"""A box's role and its class (ADR 0047).

The role is what every protocol scores: gold, distracted or other (ActionBox.label, fixed by the schema). The
class is what the box is in a dataset's words ("button", "icon", "Car", COCO's 80 categories), from the
project's vocabulary (ActionBox.category, "" for none), as CVAT's and Label Studio's label lists. Scoring
never reads the class, so adding, removing or setting classes changes no verdict.

The vocabulary lives in the project (project_setting "classes", in the order the classes were added), so every
annotator and every machine sees the same list; it has no size limit, names keep their case ("Car" and "car"
are two classes: nothing is renamed behind the user), and a class in use cannot be removed.
"""

from __future__ import annotations

import json

from sqlalchemy import func, select
from sqlalchemy.engine import Engine

from desktop_app.store.models import LABELS, ActionBox, ProjectSetting

SETTING = "classes"
MAX_NAME = 64  # ActionBox.category
ROLES = LABELS


class LabelError(ValueError):
    pass


def classes(engine: Engine) -> tuple[str, ...]:
    """The project's classes in the order they were added."""
    with engine.connect() as conn:
        value = conn.execute(select(ProjectSetting.value).where(ProjectSetting.key == SETTING)).scalar()
    return tuple(json.loads(value)) if value else ()


def export_names(engine: Engine | None) -> tuple[str, ...]:
    """The category list a file format writes: the roles, then the classes (a box's category in the file is
    `category_of` it). With no project (a bare export), the roles alone."""
    return (*ROLES, *(classes(engine) if engine is not None else ()))


def category_of(label: str, category: str) -> str:
    """The name a labelling tool's file gives a box: its class when it has one, else its role."""
    return category or label


def role_of(name: str) -> str | None:
    """The role a file's category name means, when it names one (any case: "Gold" is our gold); None for a
    class."""
    low = name.strip().lower()
    return low if low in ROLES else None


def clean_name(name: str) -> str:
    """A class name as stored: trimmed, 1-64 characters, no control characters; LabelError says why not."""
    text = str(name).strip()
    if not text or len(text) > MAX_NAME or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise LabelError(f"class {text!r}: 1 to {MAX_NAME} characters, no control characters (line breaks, tabs, "
                         "escapes)")
    if role_of(text):
        raise LabelError(f"'{text}' is a role (gold, distracted, other), set with keys 1-3, not a class")
    return text


def check_class(engine: Engine, name: str) -> None:
    if name and name not in classes(engine):
        have = ", ".join(classes(engine)) or "none yet"
        raise LabelError(f"unknown class '{name}' (this project's classes: {have}; add it with: screenlab labels "
                         f"PROJECT --add '{name}')")


def add_classes(engine: Engine, names: list[str]) -> tuple[str, ...]:
    """Adds these classes (all or none: a bad or repeated name refuses them all)."""
    have = list(classes(engine))
    new: list[str] = []
    for raw in names:
        name = clean_name(raw)
        if name in have or name in new:
            raise LabelError(f"class '{name}' exists already")
        new.append(name)
    if new:
        _store(engine, [*have, *new])
    return classes(engine)


def add_class(engine: Engine, name: str) -> tuple[str, ...]:
    return add_classes(engine, [name])


def remove_class(engine: Engine, name: str) -> tuple[str, ...]:
    have = list(classes(engine))
    if name not in have:
        raise LabelError(f"this project has no class '{name}'")
    with engine.connect() as conn:
        used = conn.execute(select(func.count()).select_from(ActionBox).where(ActionBox.category == name)
                            ).scalar_one()
    if used:
        raise LabelError(f"{used} box{'es have' if used != 1 else ' has'} the class '{name}'; change them first")
    _store(engine, [x for x in have if x != name])
    return classes(engine)


def class_counts(engine: Engine) -> dict[str, int]:
    """How many boxes have each class of the vocabulary, in its order (0 for an unused one); one GROUP BY."""
    with engine.connect() as conn:
        found = dict(conn.execute(select(ActionBox.category, func.count()).where(ActionBox.category != "")
                                  .group_by(ActionBox.category)).all())
    return {name: found.get(name, 0) for name in classes(engine)}


def classes_in_use(conn) -> list[str]:
    """The classes boxes have, sorted (a connection or a session): what a selection by class can find."""
    return sorted(conn.execute(select(ActionBox.category).distinct().where(ActionBox.category != "")).scalars())


def _store(engine: Engine, names: list[str]) -> None:
    table = ProjectSetting.__table__
    with engine.begin() as conn:
        conn.execute(table.delete().where(table.c.key == SETTING))
        conn.execute(table.insert().values(key=SETTING, value=json.dumps(names, ensure_ascii=False)))
