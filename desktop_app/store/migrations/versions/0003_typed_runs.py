"""typed runs: protocol, agent fields and totals as columns, status checked

Run state used to live in an untyped `run.meta` JSON read with .get() all over the code.
This moves every field to a column (or to `options`, read through the protocol's dataclass),
maps the old statuses onto the checked set, and drops `meta`.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""

import json

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None

RUN_STATES = ("pending", "running", "done", "done_with_errors", "failed", "cancelled")
# "created" was the old default; a run left "running" by a crash can only be resumed, like a cancelled one
OLD_STATUS = {"created": "pending", "running": "cancelled"}


def _json(value):
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return {}
    return value or {}


def upgrade() -> None:
    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.add_column(sa.Column('protocol', sa.String(length=32), nullable=False, server_default='screen'))
        batch_op.add_column(sa.Column('options', sa.JSON(), nullable=False, server_default='{}'))
        batch_op.add_column(sa.Column('failure', sa.String(), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('agent', sa.String(), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('kind', sa.String(length=16), nullable=False, server_default='openai'))
        batch_op.add_column(sa.Column('model', sa.String(), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('pattern', sa.String(length=32), nullable=False, server_default='direct'))
        batch_op.add_column(sa.Column('convention', sa.String(length=32), nullable=False, server_default=''))
        batch_op.add_column(sa.Column('samples', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('excluded', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('prompt_tokens', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('completion_tokens', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('cost', sa.Float(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('cached', sa.Integer(), nullable=False, server_default='0'))
        batch_op.add_column(sa.Column('executions', sa.Integer(), nullable=False, server_default='0'))

    conn = op.get_bind()
    run = sa.table('run', sa.column('id', sa.Integer), sa.column('meta', sa.JSON), sa.column('status', sa.String),
                   sa.column('options', sa.JSON),
                   *(sa.column(c) for c in ('protocol', 'failure', 'agent', 'kind', 'model', 'pattern',
                                            'convention', 'samples', 'prompt_tokens', 'completion_tokens', 'cost',
                                            'cached', 'executions')))
    predictions = sa.table('prediction', sa.column('run_id', sa.Integer))
    # a run's sample count was not stored: its predictions are the best figure left (exact for finished runs)
    answered = dict(conn.execute(sa.select(predictions.c.run_id, sa.func.count())
                                 .group_by(predictions.c.run_id)).all())
    for row in conn.execute(sa.select(run.c.id, run.c.meta, run.c.status)).all():
        meta = _json(row.meta)
        navi = meta.get("mode") == "navi"
        status = OLD_STATUS.get(row.status, row.status)
        conn.execute(run.update().where(run.c.id == row.id).values(
            protocol="episode" if navi else "screen",
            options={"allow_ask": bool(meta.get("allow_ask"))} if navi else {},
            failure=str(meta.get("last_error") or "")[:2000],
            agent=str(meta.get("agent") or ""), kind=str(meta.get("kind") or "openai"),
            model=str(meta.get("model") or ""), pattern=str(meta.get("pattern") or "direct"),
            convention=str(meta.get("convention") or ""),
            prompt_tokens=int(meta.get("prompt_tokens") or 0),
            completion_tokens=int(meta.get("completion_tokens") or 0), cost=float(meta.get("cost") or 0.0),
            cached=int(meta.get("cached") or 0), executions=int(meta.get("executions") or 0),
            samples=int(answered.get(row.id, 0)),
            status=status if status in RUN_STATES else "pending"))

    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.drop_column('meta')
        batch_op.alter_column('status', existing_type=sa.String(length=16), server_default=None)
        for name in ('protocol', 'options', 'failure', 'agent', 'kind', 'model', 'pattern', 'convention',
                     'samples', 'excluded', 'prompt_tokens', 'completion_tokens', 'cost', 'cached', 'executions'):
            batch_op.alter_column(name, server_default=None)
        batch_op.create_check_constraint(
            'ck_run_status', "status IN (" + ", ".join(repr(s) for s in RUN_STATES) + ")")


def downgrade() -> None:
    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.drop_constraint('ck_run_status', type_='check')
        batch_op.add_column(sa.Column('meta', sa.JSON(), nullable=False, server_default='{}'))
    conn = op.get_bind()
    cols = ('protocol', 'options', 'failure', 'agent', 'kind', 'model', 'pattern', 'convention',
            'samples', 'excluded', 'prompt_tokens', 'completion_tokens', 'cost', 'cached', 'executions')
    run = sa.table('run', sa.column('id'), sa.column('meta', sa.JSON), sa.column('options', sa.JSON),
                   *(sa.column(c) for c in cols if c != 'options'))
    for row in conn.execute(sa.select(run)).all():
        options = _json(row.options)
        meta = {"agent": row.agent, "kind": row.kind, "model": row.model, "pattern": row.pattern,
                "convention": row.convention, "mode": "navi" if row.protocol == "episode" else "steps",
                "allow_ask": bool(options.get("allow_ask")), "prompt_tokens": row.prompt_tokens,
                "completion_tokens": row.completion_tokens, "cost": row.cost, "cached": row.cached,
                "executions": row.executions}
        if row.failure:
            meta["last_error"] = row.failure
        conn.execute(run.update().where(run.c.id == row.id).values(meta=meta))
    with op.batch_alter_table('run', schema=None) as batch_op:
        for name in cols:
            batch_op.drop_column(name)
