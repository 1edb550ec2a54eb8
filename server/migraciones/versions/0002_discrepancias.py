"""A hand may carry the tanteo its table had counted when the server's differs (``discrepancia``),
and an incident may come from such a hand instead of a referee's report (``origen``, ``mano_id``).
The one-row ``esquema`` table is replaced by Alembic's own version table.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_table("esquema")
    op.add_column("mano", sa.Column("discrepancia", sa.JSON(), nullable=True))
    with op.batch_alter_table("incidencia") as b:
        b.alter_column("informe_id", existing_type=sa.Integer(), nullable=True)
        # every incident before this revision came from a referee's report
        b.add_column(sa.Column("origen", sa.String(16), nullable=False, server_default="arbitro"))
        b.add_column(sa.Column("mano_id", sa.Integer(), nullable=True))
        b.create_foreign_key("fk_incidencia_mano", "mano", ["mano_id"], ["id"])


def downgrade() -> None:
    op.execute("DELETE FROM incidencia WHERE origen <> 'arbitro'")
    with op.batch_alter_table("incidencia") as b:
        b.drop_constraint("fk_incidencia_mano", type_="foreignkey")
        b.drop_column("mano_id")
        b.drop_column("origen")
        b.alter_column("informe_id", existing_type=sa.Integer(), nullable=False)
    op.drop_column("mano", "discrepancia")
    op.create_table(
        "esquema",
        sa.Column("id", sa.Integer(), nullable=False, primary_key=True),
        sa.Column("version", sa.Integer(), nullable=False),
    )
    op.execute("INSERT INTO esquema (id, version) VALUES (1, 1)")
