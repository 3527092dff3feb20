"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

import sqlalchemy as sa
from alembic import op

from desktop_app.store.types import UTCDateTime

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


# The audit log is append-only: the database itself refuses to rewrite history.
_APPEND_ONLY = {
    "sqlite": [
        "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log "
        "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
        "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log "
        "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END",
    ],
    "postgresql": [
        "CREATE FUNCTION audit_log_append_only() RETURNS trigger AS $$ "
        "BEGIN RAISE EXCEPTION 'audit_log is append-only'; END; $$ LANGUAGE plpgsql",
        "CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log "
        "FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()",
    ],
}


def upgrade() -> None:
    op.create_table('agent_profile',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('base_url', sa.String(), nullable=False),
    sa.Column('model', sa.String(), nullable=False),
    sa.Column('pattern', sa.String(), nullable=False),
    sa.Column('convention', sa.String(), nullable=False),
    sa.Column('api_key_ref', sa.String(), nullable=False),
    sa.Column('params', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('audit_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('at', UTCDateTime(), nullable=False),
    sa.Column('actor', sa.String(), nullable=False),
    sa.Column('action', sa.String(), nullable=False),
    sa.Column('entity', sa.String(), nullable=False),
    sa.Column('entity_id', sa.Integer(), nullable=True),
    sa.Column('changes', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    op.create_table('episode',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(), nullable=False),
    sa.Column('goal', sa.String(), nullable=False),
    sa.Column('scenario', sa.String(), nullable=False),
    sa.Column('split', sa.String(), nullable=False),
    sa.Column('review_status', sa.String(length=16), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.CheckConstraint("review_status IN ('unreviewed', 'pending', 'accepted', 'rejected', 'edited')", name='ck_episode_review'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_episode_key'), ['key'], unique=True)
        batch_op.create_index(batch_op.f('ix_episode_review_status'), ['review_status'], unique=False)
        batch_op.create_index(batch_op.f('ix_episode_scenario'), ['scenario'], unique=False)
        batch_op.create_index(batch_op.f('ix_episode_split'), ['split'], unique=False)

    op.create_table('screen',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('ext', sa.String(length=8), nullable=False),
    sa.Column('width', sa.Integer(), nullable=False),
    sa.Column('height', sa.Integer(), nullable=False),
    sa.Column('platform', sa.String(length=16), nullable=False),
    sa.Column('source', sa.String(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('screen', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_screen_sha256'), ['sha256'], unique=True)

    op.create_table('review_item',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('episode_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('generator', sa.String(), nullable=False),
    sa.Column('prompt', sa.String(), nullable=False),
    sa.Column('payload', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('reviewer', sa.String(), nullable=False),
    sa.Column('reason', sa.String(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.CheckConstraint("status IN ('pending', 'accepted', 'rejected', 'edited')", name='ck_review_status'),
    sa.ForeignKeyConstraint(['episode_id'], ['episode.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('review_item', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_review_item_episode_id'), ['episode_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_review_item_status'), ['status'], unique=False)

    op.create_table('run',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('profile_id', sa.Integer(), nullable=False),
    sa.Column('selection', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('started_at', UTCDateTime(), nullable=True),
    sa.Column('finished_at', UTCDateTime(), nullable=True),
    sa.ForeignKeyConstraint(['profile_id'], ['agent_profile.id'], ondelete='RESTRICT'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_run_profile_id'), ['profile_id'], unique=False)

    op.create_table('step',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('episode_id', sa.Integer(), nullable=False),
    sa.Column('index', sa.Integer(), nullable=False),
    sa.Column('screen_id', sa.Integer(), nullable=False),
    sa.Column('instruction', sa.String(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['episode_id'], ['episode.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['screen_id'], ['screen.id'], ondelete='RESTRICT'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('episode_id', 'index', name='uq_step_episode_index')
    )
    with op.batch_alter_table('step', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_step_episode_id'), ['episode_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_step_screen_id'), ['screen_id'], unique=False)

    op.create_table('action_box',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('step_id', sa.Integer(), nullable=False),
    sa.Column('x1', sa.Float(), nullable=True),
    sa.Column('y1', sa.Float(), nullable=True),
    sa.Column('x2', sa.Float(), nullable=True),
    sa.Column('y2', sa.Float(), nullable=True),
    sa.Column('label', sa.String(length=16), nullable=False),
    sa.Column('action_type', sa.String(length=16), nullable=False),
    sa.Column('element_text', sa.String(), nullable=False),
    sa.Column('type_text', sa.String(), nullable=False),
    sa.Column('source', sa.String(length=16), nullable=False),
    sa.Column('author', sa.String(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.Column('updated_at', UTCDateTime(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.CheckConstraint("label IN ('gold', 'distracted', 'other')", name='ck_box_label'),
    sa.CheckConstraint("source IN ('manual', 'ocr', 'dom', 'import', 'llm')", name='ck_box_source'),
    sa.CheckConstraint('(x1 IS NULL) = (x2 IS NULL) AND (y1 IS NULL) = (y2 IS NULL) AND (x1 IS NULL) = (y1 IS NULL)', name='ck_box_complete'),
    sa.CheckConstraint('x1 IS NULL OR (x2 >= x1 AND y2 >= y1)', name='ck_box_ordered'),
    sa.ForeignKeyConstraint(['step_id'], ['step.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sqlite_autoincrement=True,
    )
    with op.batch_alter_table('action_box', schema=None) as batch_op:
        batch_op.create_index('ix_action_box_step_label', ['step_id', 'label'], unique=False)

    op.create_table('prediction',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('step_id', sa.Integer(), nullable=False),
    sa.Column('raw_text', sa.String(), nullable=False),
    sa.Column('parsed', sa.JSON(), nullable=False),
    sa.Column('x', sa.Float(), nullable=True),
    sa.Column('y', sa.Float(), nullable=True),
    sa.Column('element_text', sa.String(), nullable=False),
    sa.Column('verdict', sa.String(length=16), nullable=False),
    sa.Column('matched_box_id', sa.Integer(), nullable=True),
    sa.Column('wrong_format', sa.Boolean(), nullable=False),
    sa.Column('latency_ms', sa.Float(), nullable=True),
    sa.Column('prompt_tokens', sa.Integer(), nullable=True),
    sa.Column('completion_tokens', sa.Integer(), nullable=True),
    sa.Column('error', sa.String(), nullable=False),
    sa.Column('created_at', UTCDateTime(), nullable=False),
    sa.CheckConstraint("verdict = '' OR verdict IN ('gold', 'distracted', 'other', 'invalid', 'error')", name='ck_prediction_verdict'),
    sa.ForeignKeyConstraint(['matched_box_id'], ['action_box.id'], ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['step_id'], ['step.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_id', 'step_id', name='uq_prediction_run_step')
    )
    with op.batch_alter_table('prediction', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_prediction_matched_box_id'), ['matched_box_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_prediction_run_id'), ['run_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_prediction_step_id'), ['step_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_prediction_verdict'), ['verdict'], unique=False)

    for statement in _APPEND_ONLY.get(op.get_bind().dialect.name, []):
        op.execute(statement)


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_update")
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_delete")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS audit_log_no_change ON audit_log")
        op.execute("DROP FUNCTION IF EXISTS audit_log_append_only()")
    with op.batch_alter_table('prediction', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_prediction_verdict'))
        batch_op.drop_index(batch_op.f('ix_prediction_step_id'))
        batch_op.drop_index(batch_op.f('ix_prediction_run_id'))
        batch_op.drop_index(batch_op.f('ix_prediction_matched_box_id'))

    op.drop_table('prediction')
    with op.batch_alter_table('action_box', schema=None) as batch_op:
        batch_op.drop_index('ix_action_box_step_label')

    op.drop_table('action_box')
    with op.batch_alter_table('step', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_step_screen_id'))
        batch_op.drop_index(batch_op.f('ix_step_episode_id'))

    op.drop_table('step')
    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_run_profile_id'))

    op.drop_table('run')
    with op.batch_alter_table('review_item', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_review_item_status'))
        batch_op.drop_index(batch_op.f('ix_review_item_episode_id'))

    op.drop_table('review_item')
    with op.batch_alter_table('screen', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_screen_sha256'))

    op.drop_table('screen')
    with op.batch_alter_table('episode', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_episode_split'))
        batch_op.drop_index(batch_op.f('ix_episode_scenario'))
        batch_op.drop_index(batch_op.f('ix_episode_review_status'))
        batch_op.drop_index(batch_op.f('ix_episode_key'))

    op.drop_table('episode')
    op.drop_table('audit_log')
    op.drop_table('agent_profile')
