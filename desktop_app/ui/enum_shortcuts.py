"""PySide6's enum shortcuts as real attributes: `Qt.DisplayRole`, `QStyle.State_Enabled`, `QPalette.Window`.

The code names Qt's enum members the short way (`Qt.AlignCenter`, not `Qt.AlignmentFlag.AlignCenter`), as Qt's own
documentation does. PySide6 answers such a name by searching the class's enums at every use ("forgiveness mode"):
1-5 us a name, where an attribute takes 0.09 us. The sample list's data(), asked ~8,000 times as a window
opens, spent most of its time on two such names; the canvas's and the theme's paint code name several at each
call. PySide6 adds the short names to the classes as attributes when asked before it is first imported
(`sys.pyside6_option_python_enum`, flags 0x4 and 0x8: the shortcuts of global and of scoped enums, over the
default 0x1). The members are the same objects either way (`Qt.DisplayRole is Qt.ItemDataRole.DisplayRole`).

A PySide6 already imported (by a test runner's plugin, a script) keeps the mode it was started with: everything
still works, at the slower speed. `PYSIDE6_OPTION_PYTHON_ENUM` in the environment, when set, is PySide6's to read
and wins.
"""

from __future__ import annotations

import os
import sys

# PySide6's flags: ENOPT_NEW_ENUM (its default), ENOPT_GLOBAL_SHORTCUT, ENOPT_SCOPED_SHORTCUT
WITH_SHORTCUTS = 0x1 | 0x4 | 0x8


def ask_for_shortcuts() -> bool:
    """Before PySide6's first import: ask for the short names as attributes. True if asked in time."""
    if "PySide6" in sys.modules or "shiboken6" in sys.modules or "PYSIDE6_OPTION_PYTHON_ENUM" in os.environ:
        return False
    sys.pyside6_option_python_enum = WITH_SHORTCUTS
    return True
