"""Evaluation runs: one engine, a registry of protocols (docs/decisions/0011-run-engine.md, 0016).

    engine.py      create a run, execute it (worker pool, one writer, cancel, resume, failure)
    context.py     what a protocol gets to act with: ask the agent, parse, write a prediction
    selection.py   which samples a run takes, and which it leaves out and why
    work.py        a step as a run sees it (screen, goal, annotated actions)
    state.py       run states and live progress
    protocols/     screen (single screens, EnvDistraction), episode (multi-step with ASK, Navi-plus)
"""
