"""The tables' join codes are kept only as their SHA-256 (``mesa.huella``): a code is made from
the server's key, outside the database. Codes made before (``version`` 0) keep joining by their
hash but cannot be shown again; the organiser makes a new one.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import hashlib

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("mesa") as b:
        b.add_column(sa.Column("huella", sa.String(64), nullable=True))
        b.add_column(sa.Column("version", sa.Integer(), nullable=False, server_default="0"))
    conn = op.get_bind()
    for id_, codigo in conn.execute(sa.text("SELECT id, codigo FROM mesa")).all():
        conn.execute(
            sa.text("UPDATE mesa SET huella = :h WHERE id = :i"),
            {"h": hashlib.sha256(codigo.encode()).hexdigest(), "i": id_},
        )
    with op.batch_alter_table("mesa") as b:
        b.alter_column("huella", existing_type=sa.String(64), nullable=False)
        b.create_unique_constraint("uq_mesa_huella", ["huella"])
        b.drop_column("codigo")  # its unique constraint goes with it


def downgrade() -> None:
    # the codes themselves cannot come back from their hashes: every table gets a new random one
    import secrets

    with op.batch_alter_table("mesa") as b:
        b.add_column(sa.Column("codigo", sa.String(16), nullable=True))
    conn = op.get_bind()
    for (id_,) in conn.execute(sa.text("SELECT id FROM mesa")).all():
        codigo = "".join(secrets.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(10))
        conn.execute(sa.text("UPDATE mesa SET codigo = :c WHERE id = :i"), {"c": codigo, "i": id_})
    with op.batch_alter_table("mesa") as b:
        b.alter_column("codigo", existing_type=sa.String(16), nullable=False)
        b.create_unique_constraint("mesa_codigo_key", ["codigo"])
        b.drop_constraint("uq_mesa_huella", type_="unique")
        b.drop_column("version")
        b.drop_column("huella")
