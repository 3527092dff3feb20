"""The window (PySide6). Importing any of it first makes PySide6's import hook cheaper (pyside_import_hook.py):
the window's modules are most of a launch's imports, and each one passes through that hook."""

from desktop_app.ui.pyside_import_hook import use_cheaper_source_check

use_cheaper_source_check()
