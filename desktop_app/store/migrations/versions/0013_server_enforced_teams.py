"""server-enforced teams (PostgreSQL only): group roles lead / reviewer / annotator, table grants, row-level
security, identity written by the server, and the functions a lead adds people with (ADR 0029)

Every rule here is the server's: a person logged in with their own login cannot get around it with psql.
Nothing runs on SQLite (one person's file). A later migration that adds a table must grant it and decide
its row-level security the same way (tests/test_team_security.py checks every table of the schema).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-29
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.server_roles import group_name

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

TABLES = ("screen", "episode", "step", "action_box", "review_item", "agent_profile", "run", "prediction",
          "browse_trial", "audit_log", "ocr_result", "response_cache", "trajectory_label", "judge_review",
          "screen_caption", "screen_tree", "assignment", "adjudication", "project_setting", "media_blob",
          "work_review", "rescore_due", "team_login")
# rows an annotator sees only when they are theirs (row-level security); the other tables they may read hold
# nothing that is one person's work (runs, settings)
SECURED = ("episode", "step", "action_box", "screen", "screen_tree", "screen_caption", "media_blob", "assignment",
           "adjudication", "audit_log", "review_item", "trajectory_label", "prediction", "work_review", "ocr_result")
BOX = "x1, y1, x2, y2, label, action_type, element_text, type_text, source, meta, updated_at, version"
AUDIT = "INSERT (at, actor, action, entity, entity_id, changes)"  # never an id: a squatted id blocks others
LABEL = ("INSERT (episode_id, annotator, outcome, step_labels, comment, created_at, updated_at, version)",
         "UPDATE (outcome, step_labels, comment, updated_at, version)")
REVIEW_ITEM = "UPDATE (status, reviewer, reason, payload, updated_at)"
# What each role may do to each table, beyond SELECT (listed tables only; a table missing from a role is not
# theirs to read at all). The lead has everything but rewriting the audit trail and the review decisions,
# and inserting an audit row under an id of their choosing.
LEAD_LIMITS = {"audit_log": ("SELECT", AUDIT), "work_review": ("SELECT", "INSERT"), "team_login": ()}
REVIEWER = {  # reviews and fixes labels; neither gives out work nor decides double annotations nor runs agents
    "screen": (), "agent_profile": (), "run": (), "browse_trial": (), "response_cache": (), "adjudication": (),
    "project_setting": (), "media_blob": (),
    "episode": ("UPDATE (goal, scenario, split, review_status, meta, version, updated_at, updated_by)",),
    "step": ("UPDATE (meta)",),
    "action_box": ("INSERT", f"UPDATE ({BOX})", "DELETE"),
    "review_item": (REVIEW_ITEM,),
    "prediction": ("UPDATE (verdict, matched_box_id, parsed)",),  # re-scoring after their own edits
    "audit_log": (AUDIT,),
    "ocr_result": ("INSERT", "DELETE"),
    "trajectory_label": LABEL,
    "judge_review": ("INSERT", "UPDATE", "DELETE"),
    "screen_caption": ("INSERT", "UPDATE"),
    "screen_tree": ("UPDATE (flags)",),
    "assignment": ("UPDATE (state, reason, done_at, updated_at, version)",),  # reopen; never who or what
    "work_review": ("INSERT (assignment_id, annotator, reviewer, decision, comment, step_index, box_id, x, y, "
                    "created_at)",),
    "rescore_due": ("INSERT", "DELETE"),
}
ANNOTATOR = {  # their own work only (row-level security), the columns listed
    "screen": (), "agent_profile": (), "run": (), "browse_trial": (), "judge_review": (), "screen_caption": (),
    "screen_tree": (), "adjudication": (), "project_setting": (), "media_blob": (), "work_review": (),
    "prediction": (), "ocr_result": (),
    "action_box": ("INSERT", f"UPDATE ({BOX})", "DELETE"),
    "episode": ("UPDATE (goal, meta, review_status, version, updated_at, updated_by)",),
    "step": ("UPDATE (meta)",),
    "assignment": ("UPDATE (state, reason, seconds, updated_at, done_at, version)",),
    "audit_log": (AUDIT,),
    "review_item": (REVIEW_ITEM,),
    "trajectory_label": LABEL,
    "rescore_due": ("INSERT (step_id, created_at)",),  # their edits' re-scoring, done by staff (no SELECT)
}
NOT_READ_BY_ANNOTATORS = ("response_cache", "team_login", "rescore_due")  # answers to screens not theirs


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _lit(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _groups() -> dict[str, str]:
    database = op.get_bind().execute(sa.text("SELECT current_database()")).scalar_one()
    return {role: group_name(database, role) for role in ("lead", "reviewer", "annotator")}


def _check_rights(bind) -> None:
    row = bind.execute(sa.text(
        "SELECT r.rolsuper, r.rolcreaterole, pg_has_role(current_user, d.datdba, 'MEMBER') FROM pg_roles r, "
        "pg_database d WHERE r.rolname = current_user AND d.datname = current_database()")).one()
    superuser, createrole, owns_database = row
    if not superuser and not (createrole and owns_database):
        from desktop_app.store.project import ProjectError

        raise ProjectError(
            "setting up the team's roles needs the database's owner with CREATEROLE: as the server's administrator, "
            "run ALTER ROLE <login> CREATEROLE and ALTER DATABASE <db> OWNER TO <login>, then open the project "
            "again with that login")


def _roles(bind, groups: dict[str, str]) -> None:
    for group in groups.values():
        exists = bind.execute(sa.text("SELECT 1 FROM pg_roles WHERE rolname = :g"), {"g": group}).first()
        if not exists:
            op.execute(f"CREATE ROLE {_q(group)} NOLOGIN")
            continue
        # left over from a dropped database of the same name: its people are not this project's team
        stale = bind.execute(sa.text(
            "SELECT m.rolname FROM pg_auth_members a JOIN pg_roles g ON g.oid = a.roleid "
            "JOIN pg_roles m ON m.oid = a.member WHERE g.rolname = :g AND m.rolname <> current_user"),
            {"g": group}).scalars().all()
        for member in stale:
            op.execute(f"REVOKE {_q(group)} FROM {_q(member)}")


def _functions(groups: dict[str, str]) -> None:
    lead, reviewer, annotator = (_lit(groups[r]) for r in ("lead", "reviewer", "annotator"))
    definer = "SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp"
    op.execute(f"""
        CREATE FUNCTION screenlab_group(kind text) RETURNS name LANGUAGE sql IMMUTABLE AS $$
          SELECT CASE kind WHEN 'lead' THEN {lead}::name WHEN 'reviewer' THEN {reviewer}::name
                           WHEN 'annotator' THEN {annotator}::name END $$""")
    # the owner: a superuser, or a member of the role that owns the tables (who created the project)
    op.execute(f"""
        CREATE FUNCTION screenlab_role() RETURNS text LANGUAGE sql STABLE {definer} AS $$
          SELECT CASE
            WHEN r.rolsuper OR pg_has_role(session_user, c.relowner, 'MEMBER') THEN 'owner'
            WHEN pg_has_role(session_user, {lead}, 'MEMBER') THEN 'lead'
            WHEN pg_has_role(session_user, {reviewer}, 'MEMBER') THEN 'reviewer'
            WHEN pg_has_role(session_user, {annotator}, 'MEMBER') THEN 'annotator'
            ELSE 'none' END
          FROM pg_roles r, pg_class c WHERE r.rolname = session_user AND c.oid = 'public.episode'::regclass $$""")
    # An annotator's work, read past row-level security (a policy on assignment that read assignment would
    # recurse, and policies chained through other tables' policies scan them whole): the episodes they label
    # (a sample in place, or their private copy), and once every version of a double-annotated sample is
    # finished, its versions and the sample itself. Each policy asks one of these once per statement
    # (a hashed set of a few hundred ids); every lookup below goes through an index (LATERAL), whatever the
    # size of the project. (session_user is a name, whose collation is "C": compared as it is, the
    # assignment index, in the database's collation, would not apply and every call would scan the table.)
    me = 'session_user::text COLLATE "default"'
    shared = "('trajectory', 'probe', 'variant')"
    functions = {
        "screenlab_readable_work": f"""
          SELECT coalesce(a.copy_id, a.episode_id) FROM public.assignment a WHERE a.annotator = {me}
          UNION
          SELECT v.id FROM public.assignment a
            CROSS JOIN LATERAL (SELECT o.copy_id FROM public.assignment o
                                 WHERE o.episode_id = a.episode_id AND o.copy_id IS NOT NULL
                                UNION ALL SELECT a.episode_id) AS v(id)
           WHERE a.annotator = {me} AND a.copy_id IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM public.assignment b WHERE b.episode_id = a.episode_id
                               AND b.copy_id IS NOT NULL AND b.state NOT IN ('done', 'skipped'))""",
        # what they may still change: their work not yet finished (done or skipped is final for them; a
        # lead or reviewer reopens it)
        "screenlab_open_work": f"""
          SELECT coalesce(copy_id, episode_id) FROM public.assignment
           WHERE annotator = {me} AND state IN ('todo', 'in_progress')""",
        # trajectories, probes and page variants are the whole team's to read (labels of them are per person)
        "screenlab_readable_episodes": f"""
          SELECT unnest(screenlab_readable_work()) UNION ALL SELECT id FROM public.episode WHERE kind IN {shared}""",
        "screenlab_readable_steps": """
          SELECT s.id FROM unnest(screenlab_readable_work()) AS w(e)
            CROSS JOIN LATERAL (SELECT id FROM public.step WHERE episode_id = w.e) s""",
        "screenlab_open_steps": """
          SELECT s.id FROM unnest(screenlab_open_work()) AS w(e)
            CROSS JOIN LATERAL (SELECT id FROM public.step WHERE episode_id = w.e) s""",
        "screenlab_readable_screens": """
          SELECT s.screen_id FROM unnest(screenlab_readable_episodes()) AS w(e)
            CROSS JOIN LATERAL (SELECT screen_id FROM public.step WHERE episode_id = w.e
                                AND screen_id IS NOT NULL) s""",
        "screenlab_readable_media": """
          SELECT c.sha256::text FROM unnest(screenlab_readable_screens()) AS r(id)
            CROSS JOIN LATERAL (SELECT sha256 FROM public.screen WHERE id = r.id) c""",
    }
    # Each returns an array a policy compares with `= ANY ((SELECT f())::integer[])`: asked once per statement (an
    # initPlan), and usable by an index, so an annotator's list is read by id, not by scanning every episode.
    # (A person's assignments are read from ix_assignment_work alone: migration 0012.) PL/pgSQL keeps each
    # query's plan for the session; an SQL function would plan its body again at every call.
    for name, body in functions.items():
        result = "text[]" if name == "screenlab_readable_media" else "integer[]"
        op.execute(f"CREATE FUNCTION {name}() RETURNS {result} LANGUAGE plpgsql STABLE {definer} "
                   f"AS $$ BEGIN RETURN coalesce((SELECT array_agg(x) FROM ({body}) AS q(x)), '{{}}'); END $$")


def _membership_functions(groups: dict[str, str]) -> None:
    """Adding people, changing their role, removing them and resetting a password: run with the owner's
    rights (CREATEROLE) for a caller who is the project's lead. A new login's password arrives as a
    SCRAM-SHA-256 verifier computed by the client (libpq's PQencryptPasswordConn): the server, its logs and
    this function never see the password itself."""
    definer = "SECURITY DEFINER SET search_path = pg_catalog, public, pg_temp"
    ours = f"ARRAY[{', '.join(_lit(g) for g in groups.values())}]::name[]"
    op.execute(f"""
        CREATE FUNCTION screenlab_check_lead() RETURNS void LANGUAGE plpgsql STABLE {definer} AS $$
        BEGIN
          IF screenlab_role() NOT IN ('owner', 'lead') THEN
            RAISE EXCEPTION 'only the team''s lead manages its people (you are %)', session_user
              USING ERRCODE = 'insufficient_privilege';
          END IF;
        END $$""")
    # a login in no role and owning nothing on the server (no database, no object, no granted right)
    op.execute(f"""
        CREATE FUNCTION screenlab_owns_nothing(login text) RETURNS boolean LANGUAGE sql STABLE {definer} AS $$
          SELECT NOT EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.member
                              WHERE r.rolname = login)
             AND NOT EXISTS (SELECT 1 FROM pg_shdepend d JOIN pg_roles r ON r.oid = d.refobjid
                              WHERE r.rolname = login AND d.refclassid = 'pg_authid'::regclass)
             AND NOT EXISTS (SELECT 1 FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba
                              WHERE r.rolname = login) $$""")
    op.execute(f"""
        CREATE FUNCTION screenlab_check_person(login text) RETURNS void LANGUAGE plpgsql STABLE {definer} AS $$
        DECLARE r pg_roles%ROWTYPE;
        BEGIN
          SELECT * INTO r FROM pg_roles WHERE rolname = login;
          IF NOT FOUND THEN RETURN; END IF;
          IF r.rolsuper OR NOT r.rolcanlogin OR r.rolname = ANY({ours}) OR r.rolcreaterole OR r.rolcreatedb
             OR r.rolreplication OR r.rolbypassrls
             OR pg_has_role(login, (SELECT relowner FROM pg_class WHERE oid = 'public.episode'::regclass), 'MEMBER') THEN
            RAISE EXCEPTION '"%" is the project''s owner, an administrator or not a person''s login', login
              USING ERRCODE = 'insufficient_privilege';
          END IF;
        END $$""")
    op.execute(f"""
        CREATE FUNCTION screenlab_add_member(login text, kind text, verifier text) RETURNS boolean
        LANGUAGE plpgsql VOLATILE {definer} AS $$
        DECLARE created boolean := false; g name;
        BEGIN
          PERFORM screenlab_check_lead();
          IF kind IS NULL OR kind NOT IN ('lead', 'reviewer', 'annotator') THEN
            RAISE EXCEPTION 'unknown role "%" (lead, reviewer or annotator)', kind USING ERRCODE = 'invalid_parameter_value';
          END IF;
          IF login IS NULL OR login !~ '^[a-z_][a-z0-9_.-]{{0,62}}$' THEN
            RAISE EXCEPTION 'a login is 1-63 lower-case letters, digits, _ . or - (starting with a letter or _), not "%"', login
              USING ERRCODE = 'invalid_parameter_value';
          END IF;
          PERFORM screenlab_check_person(login);
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = login) THEN
            IF verifier IS NULL OR verifier !~ '^SCRAM-SHA-256\\$' THEN
              RAISE EXCEPTION 'a new login needs a SCRAM-SHA-256 password verifier' USING ERRCODE = 'invalid_parameter_value';
            END IF;
            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', login, verifier);
            INSERT INTO public.team_login (login, created_at) VALUES (login, now());
            created := true;
          END IF;
          FOREACH g IN ARRAY {ours} LOOP  -- one role per person in a project
            IF g <> screenlab_group(kind) AND pg_has_role(login, g, 'MEMBER') THEN
              EXECUTE format('REVOKE %I FROM %I', g, login);
            END IF;
          END LOOP;
          EXECUTE format('GRANT %I TO %I', screenlab_group(kind), login);
          RETURN created;
        END $$""")
    op.execute(f"""
        CREATE FUNCTION screenlab_remove_member(login text) RETURNS boolean LANGUAGE plpgsql VOLATILE {definer} AS $$
        DECLARE was boolean := false; g name;
        BEGIN
          PERFORM screenlab_check_lead();
          PERFORM screenlab_check_person(login);
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = login) THEN RETURN false; END IF;
          FOREACH g IN ARRAY {ours} LOOP
            IF pg_has_role(login, g, 'MEMBER') THEN
              EXECUTE format('REVOKE %I FROM %I', g, login);
              was := true;
            END IF;
          END LOOP;
          -- a login this project made for the person, now in no team and owning nothing, goes with them: left
          -- behind, whoever knows its password could be let into another project under that name
          IF EXISTS (SELECT 1 FROM public.team_login t WHERE t.login = screenlab_remove_member.login)
             AND screenlab_owns_nothing(login) THEN
            BEGIN
              EXECUTE format('DROP ROLE %I', login);
              DELETE FROM public.team_login t WHERE t.login = screenlab_remove_member.login;
            EXCEPTION WHEN dependent_objects_still_exist OR object_in_use THEN
              NULL;  -- it has rights somewhere after all: it stays, with no access to this project
            END;
          END IF;
          RETURN was;
        END $$""")
    # A login that belongs to anything else on the server (another project's team) keeps its password:
    # this project's lead must not be able to take over someone's access to other projects.
    op.execute(f"""
        CREATE FUNCTION screenlab_reset_password(login text, verifier text) RETURNS void
        LANGUAGE plpgsql VOLATILE {definer} AS $$
        DECLARE r pg_roles%ROWTYPE;
        BEGIN
          PERFORM screenlab_check_lead();
          PERFORM screenlab_check_person(login);
          SELECT * INTO r FROM pg_roles WHERE rolname = login;
          IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                                       WHERE m.member = r.oid AND g.rolname = ANY({ours})) THEN
            RAISE EXCEPTION '"%" is not in this project''s team', login USING ERRCODE = 'invalid_parameter_value';
          END IF;
          -- only a login this project made, in no other team, owning and granted nothing on the server: a lead
          -- must not take over anyone's access beyond this project
          IF NOT EXISTS (SELECT 1 FROM public.team_login t WHERE t.login = r.rolname)
             OR EXISTS (SELECT 1 FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid
                         WHERE m.member = r.oid AND NOT g.rolname = ANY({ours}))
             OR EXISTS (SELECT 1 FROM pg_shdepend d WHERE d.refobjid = r.oid AND d.refclassid = 'pg_authid'::regclass)
             OR EXISTS (SELECT 1 FROM pg_database d WHERE d.datdba = r.oid) THEN
            RAISE EXCEPTION '"%" has rights beyond this project (a login this project did not make, another team, or something it owns): only they or the server''s administrator can change their password', login
              USING ERRCODE = 'insufficient_privilege';
          END IF;
          IF verifier IS NULL OR verifier !~ '^SCRAM-SHA-256\\$' THEN
            RAISE EXCEPTION 'a password must arrive as a SCRAM-SHA-256 verifier' USING ERRCODE = 'invalid_parameter_value';
          END IF;
          EXECUTE format('ALTER ROLE %I PASSWORD %L', login, verifier);
        END $$""")
    for fn in ("screenlab_add_member(text, text, text)", "screenlab_remove_member(text)",
               "screenlab_reset_password(text, text)", "screenlab_check_lead()", "screenlab_check_person(text)",
               "screenlab_owns_nothing(text)"):
        op.execute(f"REVOKE EXECUTE ON FUNCTION {fn} FROM PUBLIC")
        op.execute(f"GRANT EXECUTE ON FUNCTION {fn} TO {_q(groups['lead'])}")


def _identity_triggers(groups: dict[str, str]) -> None:
    """Who did it is the login the server authenticated, whatever the client sent; and the rules that a row's
    own check cannot make (work finished since the writer's snapshot, a box change without its audit row)."""
    # an annotator writing (a superuser or the owner never is one; USAGE: a member who acts with the role)
    annotator = f"current_setting('is_superuser') = 'off' AND pg_has_role(session_user, {_lit(groups['annotator'])}, 'USAGE')"
    staff_but_lead = f"current_setting('is_superuser') = 'off' AND pg_has_role(session_user, {_lit(groups['reviewer'])}, 'USAGE')"
    me = "left(session_user, 64)"
    triggers = {
        # table: (when, what the trigger does)
        "audit_log": ("BEFORE INSERT", "NEW.actor := session_user; NEW.at := now();"),
        "episode": ("BEFORE UPDATE", f"NEW.updated_by := {me};"),
        # who gave the work out never changes; done_at is the server's clock when it became done
        "assignment": ("BEFORE INSERT OR UPDATE", f"""
            IF TG_OP = 'INSERT' THEN NEW.assigned_by := {me}; ELSE NEW.assigned_by := OLD.assigned_by; END IF;
            IF NEW.state <> 'done' THEN NEW.done_at := NULL;
            ELSIF TG_OP = 'INSERT' OR OLD.state <> 'done' THEN NEW.done_at := now();
            ELSE NEW.done_at := OLD.done_at; END IF;"""),
        "adjudication": ("BEFORE INSERT OR UPDATE", f"NEW.lead := {me};"),
        "work_review": ("BEFORE INSERT", f"NEW.reviewer := {me};"),
        "judge_review": ("BEFORE INSERT OR UPDATE", f"NEW.reviewer := {me};"),
        "review_item": ("BEFORE UPDATE", "NEW.reviewer := session_user;"),
        # a lead keeps a box's author (adjudication writes the annotator's boxes, an import the file's); an id
        # is one the sequence handed out (undo brings a box back under its old id; a future one would squat it)
        "action_box": ("BEFORE INSERT", f"""
            IF ({annotator}) OR ({staff_but_lead}) THEN NEW.author := {me}; END IF;
            IF current_setting('is_superuser') = 'off' AND NEW.id > coalesce(
                 pg_sequence_last_value('public.action_box_id_seq'::regclass), 0) THEN
              RAISE EXCEPTION 'box id % was never handed out', NEW.id USING ERRCODE = 'insufficient_privilege';
            END IF;"""),
    }
    for table, (when, body) in triggers.items():
        op.execute(f"CREATE FUNCTION screenlab_stamp_{table}() RETURNS trigger LANGUAGE plpgsql AS $$ "
                   f"BEGIN {body} RETURN NEW; END $$")
        op.execute(f"CREATE TRIGGER {table}_stamp_who {when} ON {table} FOR EACH ROW "
                   f"EXECUTE FUNCTION screenlab_stamp_{table}()")
    # work is given to people the server knows: a typo cannot make a new annotator
    op.execute("""
        CREATE FUNCTION screenlab_check_assignee() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = NEW.annotator AND rolcanlogin) THEN
            RAISE EXCEPTION 'no login named "%" on this server: add the person to the team first', NEW.annotator
              USING ERRCODE = 'foreign_key_violation';
          END IF;
          RETURN NEW;
        END $$""")
    op.execute("CREATE TRIGGER assignment_known_person BEFORE INSERT OR UPDATE OF annotator ON assignment "
               "FOR EACH ROW EXECUTE FUNCTION screenlab_check_assignee()")
    # Row-level security judges a write by the writer's snapshot: a transaction opened before the work was
    # marked done (REPEATABLE READ) would still see it open. This reads the person's assignment row as it is
    # now, locked for the rest of the transaction (a newer version than the snapshot's is a serialization
    # error), and refuses unless it is still to do or in progress.
    op.execute(f"""
        CREATE FUNCTION screenlab_guard_open_work() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE work integer; row_ record;
        BEGIN
          IF NOT ({annotator}) THEN RETURN coalesce(NEW, OLD); END IF;
          row_ := coalesce(NEW, OLD);
          IF TG_TABLE_NAME = 'action_box' THEN
            SELECT episode_id INTO work FROM public.step WHERE id = row_.step_id;
          ELSIF TG_TABLE_NAME = 'episode' THEN work := row_.id;
          ELSE work := row_.episode_id;
          END IF;
          PERFORM 1 FROM public.assignment
           WHERE annotator = session_user::text COLLATE "default" AND coalesce(copy_id, episode_id) = work
             AND state IN ('todo', 'in_progress') FOR SHARE;
          IF NOT FOUND THEN
            RAISE EXCEPTION 'this work is not open for you (finished, or not yours)' USING ERRCODE = 'insufficient_privilege';
          END IF;
          RETURN coalesce(NEW, OLD);
        END $$""")
    for table, events in (("action_box", "INSERT OR UPDATE OR DELETE"), ("episode", "UPDATE"), ("step", "UPDATE"),
                          ("review_item", "UPDATE")):
        op.execute(f"CREATE TRIGGER {table}_open_work BEFORE {events} ON {table} FOR EACH ROW "
                   f"EXECUTE FUNCTION screenlab_guard_open_work()")
    # an annotator's box change is in the audit trail: at commit, each changed box has its audit row from
    # this transaction (stamped with this login and this transaction's start, above)
    op.execute(f"""
        CREATE FUNCTION screenlab_check_audited() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE box integer := coalesce(NEW.id, OLD.id);
        BEGIN
          IF ({annotator}) AND NOT EXISTS (
               SELECT 1 FROM public.audit_log WHERE entity = 'action_box' AND entity_id = box
                  AND actor = session_user::text COLLATE "default" AND at = now()) THEN
            RAISE EXCEPTION 'box % was changed without its audit row', box USING ERRCODE = 'insufficient_privilege';
          END IF;
          RETURN NULL;
        END $$""")
    op.execute("CREATE CONSTRAINT TRIGGER action_box_audited AFTER INSERT OR UPDATE OR DELETE ON action_box "
               "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION screenlab_check_audited()")


def _grants(bind, groups: dict[str, str]) -> None:
    lead, reviewer, annotator = (_q(groups[r]) for r in ("lead", "reviewer", "annotator"))
    everyone = f"{lead}, {reviewer}, {annotator}"
    database = bind.execute(sa.text("SELECT current_database()")).scalar_one()
    op.execute(f"REVOKE CONNECT, TEMPORARY ON DATABASE {_q(database)} FROM PUBLIC")
    op.execute(f"GRANT CONNECT ON DATABASE {_q(database)} TO {everyone}")
    op.execute(f"GRANT USAGE ON SCHEMA public TO {everyone}")
    op.execute(f"GRANT SELECT ON alembic_version TO {everyone}")
    op.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {lead}")
    for table in TABLES:
        if table in LEAD_LIMITS:
            for grant in LEAD_LIMITS[table]:
                op.execute(f"GRANT {grant} ON {table} TO {lead}")
        else:
            op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {lead}")
        reads = {reviewer: table != "team_login",
                 annotator: table in ANNOTATOR and table not in NOT_READ_BY_ANNOTATORS}
        for group, rights in ((reviewer, REVIEWER), (annotator, ANNOTATOR)):
            if reads[group]:
                op.execute(f"GRANT SELECT ON {table} TO {group}")
            for grant in rights.get(table, ()):
                op.execute(f"GRANT {grant} ON {table} TO {group}")
            # only the sequences of the tables they add rows to (nextval on any other is a way to exhaust it)
            if any(g.startswith("INSERT") for g in rights.get(table, ())) and table not in NO_SEQUENCE:
                op.execute(f"GRANT USAGE, SELECT ON SEQUENCE {table}_id_seq TO {group}")
    op.execute("GRANT EXECUTE ON FUNCTION screenlab_role(), screenlab_group(text) TO PUBLIC")


NO_SEQUENCE = ("rescore_due", "team_login")  # keyed by a step or a name, not by a serial id


def _policies(groups: dict[str, str]) -> None:
    lead, reviewer, annotator = (_q(groups[r]) for r in ("lead", "reviewer", "annotator"))
    for table in SECURED:
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        # staff read and write every row; the table grants say which writes each of them has
        op.execute(f"CREATE POLICY staff ON {table} TO {lead}, {reviewer} USING (true) WITH CHECK (true)")
    def any_of(function: str, of: str = "integer") -> str:
        # the cast makes it one array value (`= ANY (subquery)` would compare with each row of a subquery)
        return f"= ANY ((SELECT {function}())::{of}[])"

    work, episodes, steps = any_of("screenlab_readable_work"), any_of("screenlab_readable_episodes"), \
        any_of("screenlab_readable_steps")
    screens, open_work, open_steps = any_of("screenlab_readable_screens"), any_of("screenlab_open_work"), \
        any_of("screenlab_open_steps")
    rules = [
        # trajectories, probes and page variants are the whole team's to read (labels of them are per person)
        ("episode", "read", "SELECT", f"kind IN ('trajectory', 'probe', 'variant') OR id {work}", None),
        ("episode", "write", "UPDATE", f"id {open_work}", f"id {open_work}"),
        ("step", "read", "SELECT", f"episode_id {episodes}", None),
        ("step", "write", "UPDATE", f"episode_id {open_work}", f"episode_id {open_work}"),
        ("action_box", "read", "SELECT", f"step_id {steps}", None),
        ("action_box", "add", "INSERT", None, f"step_id {open_steps}"),
        ("action_box", "change", "UPDATE", f"step_id {open_steps}", f"step_id {open_steps}"),
        ("action_box", "remove", "DELETE", f"step_id {open_steps}", None),
        ("screen", "read", "SELECT", f"id {screens}", None),
        ("screen_tree", "read", "SELECT", f"screen_id {screens}", None),
        ("screen_caption", "read", "SELECT", f"screen_id {screens}", None),
        ("media_blob", "read", "SELECT", "sha256 " + any_of("screenlab_readable_media", "text"), None),
        ("assignment", "read", "SELECT", f"annotator = session_user OR episode_id {work}", None),
        ("assignment", "write", "UPDATE", "annotator = session_user AND state IN ('todo', 'in_progress')",
         "annotator = session_user"),
        ("adjudication", "read", "SELECT", f"episode_id {work}", None),
        ("audit_log", "read", "SELECT", "actor = session_user", None),
        ("audit_log", "append", "INSERT", None, "true"),
        ("review_item", "read", "SELECT", f"episode_id {episodes}", None),
        ("review_item", "write", "UPDATE", f"episode_id {open_work}", f"episode_id {open_work}"),
        ("trajectory_label", "own", "ALL", "annotator = session_user", "annotator = session_user"),
        ("prediction", "read", "SELECT", f"step_id {steps}", None),
        ("ocr_result", "read", "SELECT", "sha256 " + any_of("screenlab_readable_media", "text"), None),
        ("work_review", "read", "SELECT", "annotator = session_user", None),
    ]
    for table, name, command, using, check in rules:
        sql = f"CREATE POLICY annotator_{name} ON {table} FOR {command} TO {annotator}"
        if using:
            sql += f" USING ({using})"
        if check:
            sql += f" WITH CHECK ({check})"
        op.execute(sql)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    _check_rights(bind)
    groups = _groups()
    _roles(bind, groups)
    _functions(groups)
    _membership_functions(groups)
    _identity_triggers(groups)
    _grants(bind, groups)
    _policies(groups)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    groups = _groups()
    for table in SECURED:
        for name in bind.execute(sa.text("SELECT policyname FROM pg_policies WHERE tablename = :t"),
                                 {"t": table}).scalars().all():
            op.execute(f"DROP POLICY {_q(name)} ON {table}")
        op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    op.execute("DROP TRIGGER assignment_known_person ON assignment")
    op.execute("DROP FUNCTION screenlab_check_assignee()")
    op.execute("DROP TRIGGER action_box_audited ON action_box")
    op.execute("DROP FUNCTION screenlab_check_audited()")
    for table in ("action_box", "episode", "step", "review_item"):
        op.execute(f"DROP TRIGGER {table}_open_work ON {table}")
    op.execute("DROP FUNCTION screenlab_guard_open_work()")
    for table in ("audit_log", "episode", "assignment", "adjudication", "work_review", "judge_review", "review_item",
                  "action_box"):
        op.execute(f"DROP TRIGGER {table}_stamp_who ON {table}")
        op.execute(f"DROP FUNCTION screenlab_stamp_{table}()")
    for fn in ("screenlab_add_member(text, text, text)", "screenlab_remove_member(text)",
               "screenlab_reset_password(text, text)", "screenlab_check_person(text)", "screenlab_check_lead()",
               "screenlab_owns_nothing(text)", "screenlab_readable_media()", "screenlab_readable_screens()", "screenlab_open_steps()",
               "screenlab_readable_steps()", "screenlab_readable_episodes()", "screenlab_open_work()",
               "screenlab_readable_work()", "screenlab_role()", "screenlab_group(text)"):
        op.execute(f"DROP FUNCTION {fn}")
    database = bind.execute(sa.text("SELECT current_database()")).scalar_one()
    op.execute(f"GRANT CONNECT, TEMPORARY ON DATABASE {_q(database)} TO PUBLIC")
    for group in groups.values():
        op.execute(f"DROP OWNED BY {_q(group)}")
        op.execute(f"DROP ROLE {_q(group)}")
