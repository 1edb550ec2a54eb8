"""The first schema: what ``create_all`` made with the one-row ``esquema`` table at version 1.

A database made that way (no ``alembic_version`` table, ``esquema`` at 1) is stamped with this
revision and upgraded from here, rows and all.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Integer(), nullable=False, primary_key=True)


def _torneo_id(index: bool = True) -> sa.Column:
    return sa.Column("torneo_id", sa.Integer(), sa.ForeignKey("torneo.id"), nullable=False, index=index)


def upgrade() -> None:
    sqlite = op.get_context().dialect.name == "sqlite"
    op.create_table("esquema", _id(), sa.Column("version", sa.Integer(), nullable=False))
    # cuenta <-> torneo refer to each other: SQLite takes the reference to a table still
    # missing (create_all writes it inline there); PostgreSQL gets it once torneo exists
    cuenta_torneo = [sa.ForeignKeyConstraint(["torneo_id"], ["torneo.id"], name="fk_cuenta_torneo")] if sqlite else []
    op.create_table(
        "cuenta",
        _id(),
        sa.Column("usuario", sa.String(64), nullable=False, unique=True),
        sa.Column("clave_hash", sa.String(255), nullable=False),
        sa.Column("rol", sa.String(16), nullable=False),
        sa.Column("torneo_id", sa.Integer(), nullable=True),
        *cuenta_torneo,
    )
    op.create_table(
        "sesion",
        _id(),
        sa.Column("huella", sa.String(64), nullable=False, unique=True),
        sa.Column("cuenta_id", sa.Integer(), sa.ForeignKey("cuenta.id"), nullable=False),
        sa.Column("caduca", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "torneo",
        _id(),
        sa.Column("nombre", sa.String(120), nullable=False),
        sa.Column("organizador_id", sa.Integer(), sa.ForeignKey("cuenta.id"), nullable=False),
        sa.Column("reglas", sa.JSON(), nullable=False),
        sa.Column("formato", sa.JSON(), nullable=False),
        sa.Column("creado", sa.DateTime(), nullable=False),
    )
    if not sqlite:
        op.create_foreign_key("fk_cuenta_torneo", "cuenta", "torneo", ["torneo_id"], ["id"])
    op.create_table(
        "pareja",
        _id(),
        _torneo_id(),
        sa.Column("nombre", sa.String(120), nullable=False),
        sa.Column("jugadores", sa.JSON(), nullable=False),
        sa.Column("semilla", sa.Integer(), nullable=False),
        sa.Column("grupo", sa.Integer(), nullable=True),
        sa.UniqueConstraint("torneo_id", "nombre"),
    )
    op.create_table(
        "mesa",
        _id(),
        _torneo_id(),
        sa.Column("numero", sa.Integer(), nullable=False),
        sa.Column("codigo", sa.String(16), nullable=False, unique=True),
        sa.UniqueConstraint("torneo_id", "numero"),
    )
    op.create_table(
        "ronda",
        _id(),
        _torneo_id(),
        sa.Column("numero", sa.Integer(), nullable=False),
        sa.Column("fase", sa.String(16), nullable=False),
        sa.Column("semilla", sa.Integer(), nullable=True),
        sa.UniqueConstraint("torneo_id", "numero"),
    )
    op.create_table(
        "enfrentamiento",
        _id(),
        _torneo_id(),
        sa.Column("ronda_id", sa.Integer(), sa.ForeignKey("ronda.id"), nullable=False, index=True),
        sa.Column("mesa_id", sa.Integer(), sa.ForeignKey("mesa.id"), nullable=True),
        sa.Column("pareja0_id", sa.Integer(), sa.ForeignKey("pareja.id"), nullable=False),
        sa.Column("pareja1_id", sa.Integer(), sa.ForeignKey("pareja.id"), nullable=True),
        sa.Column("ganador", sa.Integer(), nullable=True),
    )
    op.create_table(
        "token_mesa",
        _id(),
        sa.Column("huella", sa.String(64), nullable=False, unique=True),
        _torneo_id(index=False),
        sa.Column("enfrentamiento_id", sa.Integer(), sa.ForeignKey("enfrentamiento.id"), nullable=False),
    )
    op.create_table(
        "mano",
        _id(),
        _torneo_id(),
        sa.Column("enfrentamiento_id", sa.Integer(), sa.ForeignKey("enfrentamiento.id"), nullable=False, index=True),
        sa.Column("cliente_id", sa.String(64), nullable=False),
        sa.Column("numero", sa.Integer(), nullable=False),
        sa.Column("huella_cuerpo", sa.String(64), nullable=False),
        sa.Column("registro", sa.JSON(), nullable=False),
        sa.Column("marcador", sa.JSON(), nullable=False),
        sa.Column("ganados", sa.JSON(), nullable=False),
        sa.Column("juego", sa.Integer(), nullable=True),
        sa.Column("respuesta", sa.JSON(), nullable=False),
        sa.Column("foto", sa.String(64), nullable=True),
        sa.Column("anulada", sa.Boolean(), nullable=False),
        sa.Column("recibida", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("enfrentamiento_id", "cliente_id"),
        sa.UniqueConstraint("enfrentamiento_id", "numero"),
    )
    op.create_table(
        "informe",
        _id(),
        _torneo_id(),
        sa.Column("mesa_id", sa.Integer(), sa.ForeignKey("mesa.id"), nullable=False),
        sa.Column("enfrentamiento_id", sa.Integer(), sa.ForeignKey("enfrentamiento.id"), nullable=True),
        sa.Column("arbitro_id", sa.Integer(), sa.ForeignKey("cuenta.id"), nullable=False),
        sa.Column("sello", sa.String(64), nullable=False),
        sa.Column("registro", sa.JSON(), nullable=False),
        sa.Column("recibido", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "incidencia",
        _id(),
        _torneo_id(),
        sa.Column("informe_id", sa.Integer(), sa.ForeignKey("informe.id"), nullable=False),
        sa.Column("mesa_id", sa.Integer(), sa.ForeignKey("mesa.id"), nullable=False),
        sa.Column("pareja_id", sa.Integer(), sa.ForeignKey("pareja.id"), nullable=True),
        sa.Column("asiento", sa.Integer(), nullable=True),
        sa.Column("tipo", sa.String(32), nullable=False),
        sa.Column("gravedad", sa.String(32), nullable=False),
        sa.Column("articulo", sa.Text(), nullable=False),
        sa.Column("razon", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    for tabla in ("incidencia", "informe", "mano", "token_mesa", "enfrentamiento", "ronda", "mesa", "pareja"):
        op.drop_table(tabla)
    if op.get_context().dialect.name != "sqlite":
        op.drop_constraint("fk_cuenta_torneo", "cuenta", type_="foreignkey")
    for tabla in ("torneo", "sesion", "cuenta", "esquema"):
        op.drop_table(tabla)
