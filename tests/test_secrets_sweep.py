"""Issue 20, finding 8: an API key never lands in anything ScreenLab writes or prints.

Three keys of realistic shapes (an OpenAI-style and a Groq-style key in environment variables, a key without
a known prefix in the keyring) go through synthesis, two agent runs, a judge run, exports, a report,
`eval --per-sample` and crash logs, against a server that echoes the key back, as a hostile or careless
one does (in a 401 message, in a gateway's 400 passing that on, inside a 200 answer). Then
every file under the project, the export / report folders and the config, data and log folders, every
SQLite database there as a `.dump`, and everything printed is searched for each key, whole or in part.
The scenario and the sweep are tests/secrets_sweep.py's (benchmarks/reliability.py prints the same figures).
"""

from __future__ import annotations

from sqlalchemy import select

from desktop_app.store import models as m
from desktop_app.store.project import Project

from secrets_sweep import KEYS, leak_sweep


def test_no_key_in_any_file_database_log_or_output(tmp_path, tmp_path_factory):
    vault = tmp_path_factory.mktemp("os-keyring") / "entries.json"  # the "OS keyring": not searched
    sweep = leak_sweep(tmp_path, vault)
    print(f"searched {sweep.files} files, {sweep.outputs} outputs, {sweep.size:,} bytes for {len(KEYS)} keys")
    assert sweep.files > 50 and not sweep.found, "keys found:\n" + "\n".join(sweep.found)
    assert len(sweep.crash_logs) == 2 and all("RuntimeError: " in log.read_text() for log in sweep.crash_logs)
    assert "Incorrect API key provided: ***" in sweep.fresh_stderr

    # what a user still sees: the failures named, the answers and the synthesized page kept, the key taken out
    with Project.open(sweep.project) as p, p.reading() as s:
        errors = s.execute(select(m.Prediction.error).where(m.Prediction.error != "")).scalars().all()
        answers = s.execute(select(m.Prediction.raw_text).where(m.Prediction.raw_text != "")).scalars().all()
        goal = s.execute(select(m.Episode.goal).where(m.Episode.goal.startswith("Find a queen-size"))).scalar_one()
    assert any(e.startswith("HTTP 401: Error code: 401 - Incorrect API key provided: ***") for e in errors)
    assert any(e.startswith("HTTP 400") and e.endswith("Incorrect API key provided: ***.") for e in errors)
    assert any(a.endswith("forwarded with authorization: Bearer ***") for a in answers)
    assert goal == "Find a queen-size duvet cover under $120. (key ***)"


def test_a_pasted_key_and_a_key_no_profile_names_are_nowhere(tmp_path):
    """Issue 34: the same search after `agents add --api-key-env <a key>`, a run whose server echoes a key no
    profile names, eval, export and a crash (tests/secrets_sweep.pasted_key_sweep; the benchmark prints it)."""
    from secrets_sweep import pasted_key_sweep

    sweep = pasted_key_sweep(tmp_path)
    assert sweep.cases[0].endswith("refused as a key") and sweep.files > 5
    assert not sweep.found, "keys found:\n" + "\n".join(sweep.found)
