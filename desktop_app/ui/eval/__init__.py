"""Evaluation in the GUI: agent profiles, starting and watching runs, predictions on the canvas,
and the metrics dashboard. Each module holds one widget; the main window wires them together.

    profile_dialog.AgentProfileDialog   create / edit an agent profile, test its connection
    run_dialog.RunDialog                choose agents, patterns and samples; request/token estimate
    runs_panel.RunsPanel, RunController the runs list; runs executed off the UI thread
    prediction_layer.PredictionLayer    every visible run's answer for the current step, on the canvas
    prediction_panel.PredictionPanel    the same answers as text (parsed action, raw answer)
    dashboard.DashboardWidget           grouped bars with Wilson intervals, a table, exports
"""
