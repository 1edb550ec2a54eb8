"""An existing account joins a tournament only by accepting an invitation (``invitacion``), and
each tournament counts the changes of what its public page shows (``torneo.version``, the key
of the page's cache and of its ETag).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invitacion",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False),
        sa.Column("usuario", sa.String(64), nullable=False),
        sa.Column("cuenta_id", sa.Integer(), sa.ForeignKey("cuenta.id"), nullable=True),
        sa.Column("rol", sa.String(16), nullable=False),
        sa.Column("por", sa.String(64), nullable=False),
        sa.Column("cuando", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("torneo_id", "usuario"),
    )
    op.create_index("ix_invitacion_torneo_id", "invitacion", ["torneo_id"])
    op.create_index("ix_invitacion_cuenta_id", "invitacion", ["cuenta_id"])
    op.add_column("torneo", sa.Column("version", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("torneo") as b:
        b.drop_column("version")
    op.drop_index("ix_invitacion_cuenta_id", "invitacion")
    op.drop_index("ix_invitacion_torneo_id", "invitacion")
    op.drop_table("invitacion")
