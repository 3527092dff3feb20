"""The window (PySide6). Importing any of it first asks PySide6 for its enums' short names as attributes
(enum_shortcuts.py), then makes PySide6's import hook cheaper (pyside_import_hook.py): the window's modules are
most of a launch's imports, and each one passes through that hook."""

from desktop_app.ui.enum_shortcuts import ask_for_shortcuts

ask_for_shortcuts()

from desktop_app.ui.pyside_import_hook import use_cheaper_source_check  # noqa: E402  (imports PySide6)

use_cheaper_source_check()
