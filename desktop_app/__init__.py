"""ScreenLab: label screens, synthesize distracting screens, evaluate GUI agents."""

from desktop_app.privacy import switch_off_telemetry

__version__ = "0.1.0"

# here, not in each entry point: every door (the window, the CLI, the Python API, the OCR worker started with
# "spawn") imports this package before it can load ONNX Runtime (desktop_app/privacy.py)
switch_off_telemetry()
