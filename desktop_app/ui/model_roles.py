"""Python item models that answer every role a view asks of a cell in one call (ADR 0070).

A view asks a cell for several roles at once: a table's paint asks seven (font, alignment, text colour, check
state, icon, text, background) through QAbstractItemModel.multiData, whose C++ default calls the model's
data() once a role. For a model written in Python that is seven calls from C++ into Python a cell, 700 for a
screenful of the demo's sample list, and each of them first waits for the GIL whenever another thread of the
window's process runs Python (a folder's import, a run): beside such a thread the list's paint took 26 ms, 14 ms
answered here (benchmarks/list_paint.py). A cell costs one such call; what each role holds is still the
model's data(), so nothing shown changes.
"""

from __future__ import annotations


class RolesInOneCall:
    """Mixed in before the Qt model class: `class Model(RolesInOneCall, QAbstractTableModel)`."""

    def multiData(self, index, roles) -> None:  # noqa: N802 (Qt's name)
        for role_data in roles:  # what Qt's own multiData does, without a call into Python per role
            role_data.setData(self.data(index, role_data.role()))
