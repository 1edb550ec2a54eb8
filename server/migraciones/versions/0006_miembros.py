"""Who may act in a tournament is a ``miembro`` row (account, tournament, role organizador or
arbitro): co-organisers become possible. Each tournament's creator and each referee account
become members. A pareja records the round it joined in (``pareja.entra_en``).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "miembro",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False),
        sa.Column("cuenta_id", sa.Integer(), sa.ForeignKey("cuenta.id"), nullable=False),
        sa.Column("rol", sa.String(16), nullable=False),
        sa.UniqueConstraint("torneo_id", "cuenta_id"),
    )
    op.add_column("pareja", sa.Column("entra_en", sa.Integer(), nullable=False, server_default="0"))
    op.create_index("ix_miembro_torneo_id", "miembro", ["torneo_id"])
    op.create_index("ix_miembro_cuenta_id", "miembro", ["cuenta_id"])
    op.execute("INSERT INTO miembro (torneo_id, cuenta_id, rol) SELECT id, organizador_id, 'organizador' FROM torneo")
    op.execute(
        "INSERT INTO miembro (torneo_id, cuenta_id, rol) SELECT torneo_id, id, 'arbitro' FROM cuenta"
        " WHERE rol = 'arbitro' AND torneo_id IS NOT NULL"
    )


def downgrade() -> None:
    op.drop_index("ix_miembro_cuenta_id", "miembro")
    op.drop_index("ix_miembro_torneo_id", "miembro")
    op.drop_table("miembro")
    with op.batch_alter_table("pareja") as b:
        b.drop_column("entra_en")
