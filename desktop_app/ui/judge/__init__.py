"""Trajectory judges in the window (Agent-Eval-Refine): labelling agents' trajectories and how far model
judges agree with the human labels.

    trajectory_view.py   TrajectoryView: the labelling queue, keyboard first
    label_panel.py       its right side: my label, others' labels and judges' verdicts, reviews
    filmstrip_frames.py  frames decoded off the UI thread, drawn with the action on them
    agreement_view.py    AgreementView: judges against the humans, annotators against each other
    pages.py             both as pages of the main window (Trajectories menu)
"""

__all__ = ["AgreementView", "TrajectoryView"]


def __getattr__(name: str):
    """The views on first use: the main window imports pages.py at start, and builds them only when shown
    (ADR 0057)."""
    if name == "AgreementView":
        from desktop_app.ui.judge.agreement_view import AgreementView

        return AgreementView
    if name == "TrajectoryView":
        from desktop_app.ui.judge.trajectory_view import TrajectoryView

        return TrajectoryView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
