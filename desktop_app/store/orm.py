"""The session every project opens, and `select`: SQLAlchemy's, with the one convenience the code relies on.

`Session.exec(statement)` runs a statement and hands back, for a select of one thing (a table's rows or one
column), those things themselves (`scalars()`); for a select of several, rows; for anything else, the result as
it comes. This is what SQLModel's session did, which the project used before its tables became plain SQLAlchemy
(ADR 0067): the code keeps its reads as they were.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session as _Session

__all__ = ["Session", "select"]


class Session(_Session):
    def exec(self, statement: Any, **kw: Any) -> Any:
        result = self.execute(statement, **kw)
        if isinstance(statement, Select) and len(statement.column_descriptions) == 1:
            return result.scalars()
        return result
