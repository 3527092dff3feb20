"""The team's rules are the server's: an annotator logged in with their own password, talking SQL straight to
PostgreSQL through psycopg (no ScreenLab in between), cannot read their partner's blind work, write what is
not theirs, change anyone else's state, adjudicate, edit work they finished, rewrite the audit trail or pass
for someone else. Each attack is tried one by one and checked as the owner afterwards; the same attacks with
row-level security switched off succeed, so this test can fail."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg
import pytest
from sqlalchemy import select

from desktop_app.agents.profiles import BASELINES
from desktop_app.formats.transfer import import_path
from desktop_app.runs.engine import create_run, execute
from desktop_app.store import edits
from desktop_app.store.models import OcrResult, Screen
from desktop_app.teams import assignment

from conftest import make_image
from team_server import step_of

pytestmark = pytest.mark.parametrize("backend", ["postgresql"])  # the team fixture on the server only

SECURED = ("episode", "step", "action_box", "screen", "screen_tree", "screen_caption", "media_blob", "assignment",
           "adjudication", "audit_log", "review_item", "trajectory_label", "prediction", "work_review", "ocr_result")


@dataclass
class Scene:
    """Ids the attacks aim at, seen from `me` (the attacker) and `partner` (the other annotator)."""

    me: str
    partner: str
    double: int  # the sample both label blind
    my_copy: int
    partner_copy: int
    my_copy_step: int
    partner_copy_step: int
    original_step: int
    lead_box: int  # the lead's box on the double-annotated original
    my_done_box: int  # on my copy, which I finished
    partner_box: int  # on the partner's copy, still being labelled
    my_sample: int  # labelled in place by me, in progress
    unassigned: int
    my_box: int  # on my sample



def build(team, tmp_path, me: str, partner: str) -> Scene:
    for i in range(4):
        make_image(tmp_path / "shots" / f"s{i}.png", size=(300, 200), color=(i * 60, 20, 20))
    lena = team.open("lena")
    import_path(lena, tmp_path / "shots", "images")
    with lena.reading() as s:
        from desktop_app.store.queries import EpisodeFilter, episode_ids

        double, mine, theirs, unassigned = episode_ids(s, EpisodeFilter())
    (lead_box,) = edits.create_boxes(lena, step_of(lena, double).id,
                                     [{"x1": 5, "y1": 5, "x2": 50, "y2": 30, "label": "gold"}])
    assignment.assign(lena, [double], [me, partner], overlap=1.0)
    assignment.assign(lena, [mine], [me])
    assignment.assign(lena, [theirs], [partner])
    me_p, partner_p = team.open(me), team.open(partner)
    copies = {}
    for who, project in ((me, me_p), (partner, partner_p)):
        with project.reading() as s:
            from desktop_app.store.models import Assignment

            copies[who] = s.execute(select(Assignment.copy_id).where(Assignment.annotator == who,
                                                                     Assignment.copy_id.is_not(None))).scalar_one()
    (done_box,) = edits.create_boxes(me_p, step_of(me_p, copies[me]).id,
                                     [{"x1": 10, "y1": 10, "x2": 90, "y2": 40, "label": "gold",
                                       "element_text": f"{me}'s reading"}])
    assignment.set_state(me_p, copies[me], "done")
    (partner_box,) = edits.create_boxes(partner_p, step_of(partner_p, copies[partner]).id,
                                        [{"x1": 12, "y1": 10, "x2": 92, "y2": 42, "label": "distracted",
                                          "element_text": f"{partner}'s secret reading"}])
    assignment.note_work(partner_p, copies[partner], 30.0, edited=True)
    (my_box,) = edits.create_boxes(me_p, step_of(me_p, mine).id,
                                   [{"x1": 1, "y1": 1, "x2": 20, "y2": 20, "label": "other"}])
    # an agent's answers on every sample (the centre of the screen), and a cached OCR reading of every screen
    execute(lena, create_run(lena, BASELINES["center"], include_unlabelled=True))  # the samples have no goal
    with lena.transaction() as s:
        for screen in s.execute(select(Screen)).scalars():
            s.add(OcrResult(sha256=screen.sha256, engine="rapidocr", settings="{}",
                            words=[{"text": f"words on screen {screen.id}"}], elements=[]))
    return Scene(me, partner, double, copies[me], copies[partner], step_of(lena, copies[me]).id,
                 step_of(lena, copies[partner]).id, step_of(lena, double).id, lead_box.id, done_box.id, partner_box.id,
                 mine, unassigned, my_box.id)


def _try(conn, sql: str, params: tuple = ()) -> list | int | None:
    """Rows read, or rows changed; None when the server refused."""
    try:
        cur = conn.execute(sql, params)
    except psycopg.Error:
        return None
    return cur.fetchall() if cur.description else cur.rowcount


def _owner_one(owner, sql: str, params: tuple = ()):
    return owner.execute(sql, params).fetchone()


def attacks(attacker, owner, scene: Scene) -> dict[str, bool]:
    """Each attack: True when it got something it must not (checked as the owner where it wrote)."""
    got = {}
    me, partner = scene.me, scene.partner
    # -- reading the partner's blind work before every version is done
    rows = _try(attacker, "SELECT id, element_text FROM action_box WHERE step_id = %s", (scene.partner_copy_step,))
    got["read the partner's copy boxes"] = bool(rows)
    rows = _try(attacker, "SELECT element_text FROM action_box WHERE element_text LIKE %s", (f"{partner}'s%",))
    got["read the partner's texts"] = bool(rows)
    rows = _try(attacker, "SELECT goal, key FROM episode WHERE id = %s", (scene.partner_copy,))
    got["read the partner's copy"] = bool(rows)
    rows = _try(attacker, "SELECT state, seconds FROM assignment WHERE annotator = %s", (partner,))
    got["read the partner's states"] = bool(rows)
    rows = _try(attacker, "SELECT changes FROM audit_log WHERE actor = %s OR changes::text LIKE %s",
                (partner, f"%{partner}'s secret%"))
    got["read the partner's audit rows"] = bool(rows)
    rows = _try(attacker, "SELECT id FROM episode WHERE id = %s", (scene.unassigned,))
    got["read a sample not assigned to me"] = bool(rows)
    # -- writing the original of the double-annotated sample
    _try(attacker, "INSERT INTO action_box (step_id, x1, y1, x2, y2, label, action_type, element_text, type_text, "
                   "source, author, meta, created_at, updated_at, version) VALUES (%s, 1, 1, 9, 9, 'gold', 'click', "
                   "'', '', 'manual', %s, '{}', now(), now(), 1)", (scene.original_step, me))
    _try(attacker, "UPDATE action_box SET label = 'other' WHERE id = %s", (scene.lead_box,))
    _try(attacker, "UPDATE action_box SET category = 'hijacked' WHERE id = %s", (scene.lead_box,))
    _try(attacker, "UPDATE episode SET goal = 'hijacked', version = version + 1 WHERE id = %s", (scene.double,))
    got["write to the original"] = (
        _owner_one(owner, "SELECT count(*) FROM action_box WHERE step_id = %s", (scene.original_step,))[0] != 1
        or _owner_one(owner, "SELECT label, category FROM action_box WHERE id = %s", (scene.lead_box,)) != ("gold", "")
        or _owner_one(owner, "SELECT goal FROM episode WHERE id = %s", (scene.double,))[0] == "hijacked")
    # -- the partner's state and assignment
    before = _owner_one(owner, "SELECT state, annotator FROM assignment WHERE copy_id = %s", (scene.partner_copy,))
    _try(attacker, "UPDATE assignment SET state = 'done', done_at = now() WHERE annotator = %s", (partner,))
    _try(attacker, "UPDATE assignment SET annotator = %s WHERE copy_id = %s", (me, scene.partner_copy))
    _try(attacker, "INSERT INTO assignment (episode_id, annotator, state, reason, assigned_by, seconds, created_at, "
                   "updated_at, version) VALUES (%s, %s, 'todo', '', %s, 0, now(), now(), 1)",
         (scene.unassigned, me, me))
    got["change another's state"] = (
        _owner_one(owner, "SELECT state, annotator FROM assignment WHERE copy_id = %s",
                   (scene.partner_copy,)) != before
        or _owner_one(owner, "SELECT count(*) FROM assignment WHERE episode_id = %s", (scene.unassigned,))[0] != 0)
    # -- adjudicating
    _try(attacker, "INSERT INTO adjudication (episode_id, lead, choice, created_at) VALUES (%s, %s, %s, now())",
         (scene.double, me, f'{{"take": "{me}"}}'))
    got["adjudicate"] = _owner_one(owner, "SELECT count(*) FROM adjudication")[0] != 0
    # -- editing work I marked done, or reopening it myself
    _try(attacker, "UPDATE action_box SET label = 'other' WHERE id = %s", (scene.my_done_box,))
    _try(attacker, "UPDATE action_box SET category = 'hijacked' WHERE id = %s", (scene.my_done_box,))
    _try(attacker, "DELETE FROM action_box WHERE id = %s", (scene.my_done_box,))
    _try(attacker, "INSERT INTO action_box (step_id, x1, y1, x2, y2, label, action_type, element_text, type_text, "
                   "source, author, meta, created_at, updated_at, version) VALUES (%s, 1, 1, 9, 9, 'gold', 'click', "
                   "'', '', 'manual', %s, '{}', now(), now(), 1)", (scene.my_copy_step, me))
    _try(attacker, "UPDATE assignment SET state = 'in_progress' WHERE copy_id = %s", (scene.my_copy,))
    got["edit a done copy"] = (
        _owner_one(owner, "SELECT label, category FROM action_box WHERE id = %s", (scene.my_done_box,)) != ("gold", "")
        or _owner_one(owner, "SELECT count(*) FROM action_box WHERE step_id = %s", (scene.my_copy_step,))[0] != 1
        or _owner_one(owner, "SELECT state FROM assignment WHERE copy_id = %s", (scene.my_copy,))[0] != "done")
    # -- the audit trail
    trail = "SELECT count(*), md5(string_agg(id || actor || action || changes::text, ',' ORDER BY id)) FROM audit_log"
    before = _owner_one(owner, trail)
    _try(attacker, "DELETE FROM audit_log WHERE actor = %s", (me,))
    _try(attacker, "UPDATE audit_log SET actor = %s WHERE actor = %s", (partner, me))
    _try(attacker, "TRUNCATE audit_log")
    got["delete or change an audit row"] = _owner_one(owner, trail) != before
    # -- another identity: a forged actor, author or editor, or switching role
    _try(attacker, "INSERT INTO audit_log (at, actor, action, entity, entity_id, changes) "
                   "VALUES ('2000-01-01', %s, 'forged', 'action_box', NULL, '{}')", (partner,))
    _try(attacker, "INSERT INTO action_box (step_id, x1, y1, x2, y2, label, action_type, element_text, type_text, "
                   "source, author, meta, created_at, updated_at, version) VALUES (%s, 2, 2, 8, 8, 'other', 'click', "
                   "'forged', '', 'manual', %s, '{}', now(), now(), 1)",
         (_owner_one(owner, "SELECT id FROM step WHERE episode_id = %s", (scene.my_sample,))[0], partner))
    _try(attacker, "UPDATE episode SET version = version + 1, updated_by = %s WHERE id = %s", (partner, scene.my_sample))
    _try(attacker, "UPDATE episode SET updated_by = %s WHERE id = %s", (partner, scene.my_sample))
    switched = _try(attacker, f'SET ROLE "{partner}"') is not None or \
        _try(attacker, f'SET SESSION AUTHORIZATION "{partner}"') is not None or \
        _try(attacker, "SET ROLE \"lena\"") is not None
    got["claim another identity"] = (
        switched
        or _owner_one(owner, "SELECT count(*) FROM audit_log WHERE action = 'forged' AND actor <> %s", (me,))[0] != 0
        or _owner_one(owner, "SELECT count(*) FROM action_box WHERE element_text = 'forged' AND author <> %s",
                      (me,))[0] != 0
        or _owner_one(owner, "SELECT updated_by FROM episode WHERE id = %s", (scene.my_sample,))[0] != me)
    # -- the agents' verdicts: the scorer's, never an annotator's (not even on her own screens)
    verdicts = "SELECT md5(string_agg(id || verdict || parsed::text, ',' ORDER BY id)) FROM prediction"
    before = _owner_one(owner, verdicts)
    _try(attacker, "UPDATE prediction SET verdict = 'distracted', parsed = '{}'")
    _try(attacker, "DELETE FROM prediction")
    got["write the agents' verdicts"] = _owner_one(owner, verdicts) != before
    # -- caches: what screens not hers hold (OCR words, model answers)
    mine = {r[0] for r in owner.execute("SELECT screen_id FROM step WHERE episode_id IN (%s, %s)",
                                        (scene.my_copy, scene.my_sample))}
    rows = _try(attacker, "SELECT words::text FROM ocr_result") or []
    foreign = [w for (w,) in rows if not any(f'screen {i}"' in w for i in mine)]
    cached = _try(attacker, "SELECT count(*) FROM response_cache")
    got["read cached readings of screens not mine"] = bool(foreign) or cached is not None
    # -- ids never handed out (a squatted id makes everyone else's next write fail)
    last = _owner_one(owner, "SELECT last_value FROM action_box_id_seq")[0]
    _try(attacker, "INSERT INTO action_box (id, step_id, x1, y1, x2, y2, label, action_type, element_text, type_text, "
                   "source, author, meta, created_at, updated_at, version) VALUES (%s, %s, 1, 1, 9, 9, 'gold', 'click', "
                   "'', '', 'manual', %s, '{}', now(), now(), 1)",
         (last + 50, _owner_one(owner, "SELECT id FROM step WHERE episode_id = %s", (scene.my_sample,))[0], me))
    top = _owner_one(owner, "SELECT last_value FROM audit_log_id_seq")[0]
    _try(attacker, "INSERT INTO audit_log (id, at, actor, action, entity, changes) VALUES (%s, now(), '', 'x', 'y', "
                   "'{}')", (top + 50,))
    got["take an id never handed out"] = (
        _owner_one(owner, "SELECT count(*) FROM action_box WHERE id > %s", (last,))[0] != 0
        or _owner_one(owner, "SELECT count(*) FROM audit_log WHERE id > %s", (top,))[0] != 0)
    # -- a change of her own open work without its audit row
    trail_before = _owner_one(owner, trail)
    _try(attacker, "UPDATE action_box SET label = 'gold' WHERE id = %s", (scene.my_box,))
    got["change a box without its audit row"] = (
        _owner_one(owner, "SELECT label FROM action_box WHERE id = %s", (scene.my_box,))[0] != "other"
        or _owner_one(owner, trail) != trail_before)
    # -- a transaction opened while her work was open, writing after she marked it done (REPEATABLE READ)
    with psycopg.connect(attacker.info.dsn, password=attacker.info.password, autocommit=True) as stale:
        stale.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        stale.execute("SELECT count(*) FROM action_box")  # the snapshot: her sample in progress
        attacker.execute("UPDATE assignment SET state = 'done' WHERE episode_id = %s AND annotator = %s",
                         (scene.my_sample, me))
        # as the app writes it: the audit row, then the box (the audit check alone would not stop this)
        wrote = _try(stale, "INSERT INTO audit_log (at, actor, action, entity, entity_id, changes) VALUES "
                            "(now(), '', 'update', 'action_box', %s, '{}')", (scene.my_box,)) is not None and \
            _try(stale, "UPDATE action_box SET x1 = 5 WHERE id = %s", (scene.my_box,)) is not None and \
            _try(stale, "COMMIT") is not None
        if not wrote:
            _try(stale, "ROLLBACK")
    got["write finished work from an older snapshot"] = (
        _owner_one(owner, "SELECT x1 FROM action_box WHERE id = %s", (scene.my_box,))[0] != 1)
    # -- what only a lead may do: people and work
    added = _try(attacker, "SELECT screenlab_add_member('eve', 'lead', 'SCRAM-SHA-256$4096:x')")
    reset = _try(attacker, "SELECT screenlab_reset_password(%s, 'SCRAM-SHA-256$4096:x')", (partner,))
    made = _try(attacker, "CREATE TABLE mine (x int)") is not None or _try(attacker, "CREATE TEMP TABLE t (x int)") \
        is not None
    got["manage people or make objects"] = added is not None or reset is not None or made
    return got


@pytest.fixture(params=[("ana", "ben"), ("ben", "ana")], ids=["as ana", "as ben"])
def scene(request, team, tmp_path):
    me, partner = request.param
    return build(team, tmp_path, me, partner)


def test_every_attack_of_an_annotator_is_refused_by_the_server(team, scene):
    with team.connect(scene.me) as attacker, team.connect("owner") as owner:
        # the attacker is who they logged in as, and sees their own work
        assert attacker.execute("SELECT session_user, screenlab_role()").fetchone() == (scene.me, "annotator")
        assert {r[0] for r in attacker.execute("SELECT id FROM episode WHERE kind IN ('sample', 'copy')")} == \
            {scene.my_copy, scene.my_sample}
        got = attacks(attacker, owner, scene)
    assert [name for name, succeeded in got.items() if succeeded] == []
    assert len(got) == 18


def test_the_same_attacks_succeed_with_row_level_security_off(team, scene):
    """Proof the attack test can fail: with the policies switched off (as the owner), and the triggers that
    check an annotator's write against their open work, the reads and the writes they stopped get through."""
    with team.connect("owner") as owner:
        for table in SECURED:
            owner.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
        for table in ("action_box", "episode", "step", "review_item"):
            owner.execute(f"ALTER TABLE {table} DISABLE TRIGGER {table}_open_work")
        with team.connect(scene.me) as attacker:
            got = attacks(attacker, owner, scene)
    assert {name for name, succeeded in got.items() if succeeded} >= {
        "read the partner's copy boxes", "read the partner's texts", "read the partner's copy",
        "read the partner's states", "read the partner's audit rows", "read a sample not assigned to me",
        "write to the original", "change another's state", "edit a done copy", "read cached readings of screens not mine",
        "write finished work from an older snapshot"}


def test_once_every_version_is_done_the_partners_see_each_other(team, scene):
    """Blind until all versions are finished, then open: the agreement and the lead's view are no secret."""
    partner = team.open(scene.partner)
    assignment.set_state(partner, scene.partner_copy, "done")
    with team.connect(scene.me) as attacker:
        rows = attacker.execute("SELECT element_text FROM action_box WHERE step_id = %s",
                                (scene.partner_copy_step,)).fetchall()
        states = attacker.execute("SELECT state FROM assignment WHERE annotator = %s AND copy_id IS NOT NULL",
                                  (scene.partner,)).fetchall()
        # still nothing of theirs that is not part of the double annotation
        other = attacker.execute("SELECT count(*) FROM episode WHERE id = %s", (scene.unassigned,)).fetchone()
    assert rows == [(f"{scene.partner}'s secret reading",)]
    assert states == [("done",)]
    assert other == (0,)


def test_a_reviewer_reviews_and_reopens_but_neither_assigns_nor_adjudicates(team, tmp_path):
    scene = build(team, tmp_path, "ana", "ben")
    with team.connect("rita") as rita, team.connect("owner") as owner:
        assert rita.execute("SELECT screenlab_role()").fetchone() == ("reviewer",)
        # sees everyone's work
        assert rita.execute("SELECT count(*) FROM action_box WHERE step_id = %s",
                            (scene.partner_copy_step,)).fetchone() == (1,)
        # reopens finished work
        assert _try(rita, "UPDATE assignment SET state = 'in_progress' WHERE copy_id = %s", (scene.my_copy,)) == 1
        # neither gives out work nor decides a double annotation, nor manages people
        assert _try(rita, "INSERT INTO assignment (episode_id, annotator, state, reason, assigned_by, seconds, "
                          "created_at, updated_at, version) VALUES (%s, 'ana', 'todo', '', 'rita', 0, now(), now(), 1)",
                    (scene.unassigned,)) is None
        assert _try(rita, "INSERT INTO adjudication (episode_id, lead, choice, created_at) VALUES (%s, 'rita', '{}', "
                          "now())", (scene.double,)) is None
        assert _try(rita, "SELECT screenlab_add_member('eve', 'lead', 'SCRAM-SHA-256$4096:x')") is None
        assert _try(rita, "DELETE FROM audit_log") is None
        assert _owner_one(owner, "SELECT count(*) FROM adjudication") == (0,)
        # nor moves work between people or samples, nor rewrites who gave it out
        work = "SELECT md5(string_agg(id || annotator || episode_id || coalesce(copy_id, 0) || assigned_by, ',' " \
               "ORDER BY id)) FROM assignment"
        before = _owner_one(owner, work)
        for sql in ("UPDATE assignment SET annotator = 'ana' WHERE annotator = 'ben'",
                    f"UPDATE assignment SET episode_id = {scene.unassigned} WHERE annotator = 'ana'",
                    f"UPDATE assignment SET copy_id = {scene.partner_copy} WHERE copy_id = {scene.my_copy}",
                    "UPDATE assignment SET assigned_by = 'someone'"):
            assert _try(rita, sql) is None, sql
        assert _owner_one(owner, work) == before
        # her decisions stay as she made them; a sample stays a sample; what she writes is hers
        assert _try(rita, "INSERT INTO work_review (assignment_id, annotator, reviewer, decision, comment, created_at) "
                          "SELECT id, annotator, 'lena', 'accept', '', now() FROM assignment WHERE copy_id = %s",
                    (scene.my_copy,)) == 1
        assert _owner_one(owner, "SELECT reviewer FROM work_review") == ("rita",)
        assert _try(rita, "UPDATE work_review SET decision = 'return'") is None
        assert _try(rita, "DELETE FROM work_review") is None
        assert _try(rita, f"UPDATE episode SET kind = 'variant' WHERE id = {scene.double}") is None
        assert _try(rita, f"DELETE FROM episode WHERE id = {scene.unassigned}") is None
        rita.execute("INSERT INTO audit_log (at, actor, action, entity, entity_id, changes) SELECT now(), '', "
                     "'create', 'action_box', max(id) + 1, '{}' FROM action_box")
        assert _try(rita, "INSERT INTO action_box (step_id, x1, y1, x2, y2, label, action_type, element_text, "
                          "type_text, source, author, meta, created_at, updated_at, version) VALUES (%s, 1, 1, 9, 9, "
                          "'gold', 'click', '', '', 'manual', 'ben', '{}', now(), now(), 1)",
                    (scene.original_step,)) == 1
        assert _owner_one(owner, "SELECT author FROM action_box ORDER BY id DESC LIMIT 1") == ("rita",)
        assert _try(rita, "UPDATE review_item SET reviewer = 'lena'") is not None  # no row: nothing to forge


def test_a_login_outside_the_team_cannot_even_connect(team, tmp_path):
    """Someone with a login on the same server but not in this project's team is refused at the door."""
    with team.connect("owner") as owner:
        owner.execute("DROP ROLE IF EXISTS stranger")
        owner.execute("CREATE ROLE stranger LOGIN PASSWORD 'outside'")
        team.passwords["stranger"] = "outside"
        with pytest.raises(psycopg.OperationalError, match="permission denied for database"):
            team.connect("stranger")
        owner.execute("DROP ROLE stranger")


def _migration_0013():
    import importlib.util
    from pathlib import Path

    import desktop_app.store.migrations as migrations

    path = Path(migrations.__file__).parent / "versions" / "0013_server_enforced_teams.py"
    spec = importlib.util.spec_from_file_location("migration_0013", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_table_is_granted_and_decided_for_row_level_security(team):
    """A later migration that adds a table must decide who reads it and whether annotators see it whole: this
    lists every table of the schema at head against migration 0013's decisions, as the server holds them."""
    from desktop_app.store.server_roles import group_name

    decided = _migration_0013()
    with team.connect("owner") as owner:
        database = owner.execute("SELECT current_database()").fetchone()[0]
        tables = {r[0] for r in owner.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
        assert tables - {"alembic_version"} == set(decided.TABLES), "a new table: decide its grants (migration 0013)"
        readers = {}
        for table in sorted(tables):
            readers[table] = {role for role in ("lead", "reviewer", "annotator") if owner.execute(
                "SELECT has_table_privilege(%s, %s, 'SELECT')", (group_name(database, role), table)).fetchone()[0]}
        secured = {r[0] for r in owner.execute("SELECT relname FROM pg_class WHERE relrowsecurity")}
    for table, roles in readers.items():
        expected = {"lead", "reviewer"} | ({"annotator"} if table in decided.ANNOTATOR else set())
        if table in decided.NOT_READ_BY_ANNOTATORS:
            expected -= {"annotator"}
        if table == "team_login":
            expected = set()  # the owner's functions read it
        if table == "alembic_version":
            expected = {"lead", "reviewer", "annotator"}
        assert roles == expected, table
    assert secured == set(SECURED) == set(decided.SECURED)


def test_a_lead_takes_over_no_login_beyond_the_project_and_a_leaver_login_goes(team, tmp_path):
    """A lead resets passwords only of logins this project made for its people and that reach nothing else
    on the server; a person this project made a login for loses it when taken out of the team."""
    from desktop_app import api
    from desktop_app.store.project import NotAllowed

    lena = team.open("lena")
    with team.connect("owner") as owner:
        owner.execute("DROP DATABASE IF EXISTS payroll")
        owner.execute("DROP ROLE IF EXISTS carol")
        owner.execute("CREATE ROLE carol LOGIN PASSWORD 'carols own'")
        owner.execute("CREATE DATABASE payroll OWNER carol")
        try:
            api.add_member(lena, "carol", "annotator")  # an existing login: her password stays hers
            with pytest.raises(NotAllowed, match="rights beyond this project"):
                api.reset_password(lena, "carol")
            api.remove_member(lena, "carol")
            assert owner.execute("SELECT count(*) FROM pg_roles WHERE rolname = 'carol'").fetchone() == (1,)
        finally:
            owner.execute("DROP DATABASE payroll")
            owner.execute("DROP ROLE carol")
        owner.execute("DROP ROLE IF EXISTS dora")
        made = api.add_member(lena, "dora", "annotator")
        assert made.created and api.reset_password(lena, "dora")
        assert api.remove_member(lena, "dora")
        # the login this project made for her is gone: nobody can be let in elsewhere under her name with it
        assert owner.execute("SELECT count(*) FROM pg_roles WHERE rolname = 'dora'").fetchone() == (0,)
