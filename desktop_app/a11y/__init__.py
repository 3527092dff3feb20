"""Accessibility trees of screens (Android uiautomator dumps): reading, writing, finding, observing."""
