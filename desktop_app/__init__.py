"""ScreenLab: label screens, synthesize distracting screens, evaluate GUI agents."""

__version__ = "0.1.0"
