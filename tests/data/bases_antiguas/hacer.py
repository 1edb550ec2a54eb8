"""Make the databases of tests/test_server_migraciones.py as the server made them before its
two migration chains became one (commit 44423cd: the tournament's chain at 0008 in
``alembic_version``, the phone pages' at 0001 in ``alembic_version_web``), dumped as SQL:

- ``servir.*.sql``: what `mus servir` left (it ran both chains): a tournament, a partida of two
  confirmed hands and a draft of the third;
- ``torneo.*.sql``: what `mus torneo` left (the tournament's chain only): the same tournament.

Run with that commit's code on the path (its ``server.modelos.torneo.motor`` and ``server.main``, which ran
both chains), on a machine with PostgreSQL:

    PYTHONPATH=/path/to/checkout-at-44423cd python tests/data/bases_antiguas/hacer.py
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg
from sqlalchemy.orm import Session

from server.main import crear_app
from server.modelos.torneo import motor
from server.servicios import auth
from server.servicios import torneos as servicio
from server.simulacion import postgres_temporal
from tests.cliente_web import ClienteWeb
from torneo import formato as fm

AQUI = Path(__file__).resolve().parent
JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]
MANOS = [  # tests/test_web_partidas.py's first two
    (["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"], {"pares": {"quiero": 5}}),
    (["1o 1c 4e 5b", "6o 6c 7e 7c", "10o 11c 12e 2b", "4o 5o 6e 7o"], {"grande": {"no_quiero": 1, "gana": 1}}),
]


def torneo(url: str) -> None:
    engine = motor(url)
    with Session(engine) as s, s.begin():
        org = auth.crear_cuenta(s, "org", "secreto-largo-1", "organizador")
        parejas = [servicio.NuevaPareja(f"P{i}", (f"A{i}", f"B{i}")) for i in range(4)]
        t = servicio.crear_torneo(s, org, "Club", "segovia", fm.Formato(juegos=None), parejas, 2)
        servicio.iniciar_ronda(s, t)
    engine.dispose()


def partida(url: str) -> None:
    app = crear_app(url)
    c = ClienteWeb(app)
    r = c.post("/api/partidas", json={"jugadores": JUGADORES, "reglas": "segovia"})
    clave = r.json()["clave"]
    for n, (cartas, lances) in enumerate(MANOS, 1):
        body = {"id_mano": f"mano-antigua-{n}", "n": n, "cartas": cartas, "lances": lances}
        assert c.post(f"/api/partidas/{clave}/manos", json=body).status_code == 201
    b = c.get(f"/api/partidas/{clave}/borrador").json()
    datos = b["datos"] | {"cartas": ["10c 10e 11o 11b", None, None, None], "asiento": 1, "paso": "cartas"}
    assert c.put(f"/api/partidas/{clave}/borrador", json={"datos": datos, "version": b["version"]}).status_code == 200
    app.state.servidor.engine.dispose()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for nombre, pasos in (("torneo", [torneo]), ("servir", [torneo, partida])):
            fichero = Path(tmp) / f"{nombre}.sqlite3"
            for paso in pasos:
                paso(f"sqlite:///{fichero}")
            with sqlite3.connect(fichero) as conn:
                (AQUI / f"{nombre}.sqlite.sql").write_text("\n".join(conn.iterdump()) + "\n", encoding="utf-8")
    with postgres_temporal(fsync=False) as base:
        for nombre, pasos in (("torneo", [torneo]), ("servir", [torneo, partida])):
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {nombre}")
            url = base.rsplit("/", 1)[0] + f"/{nombre}"
            for paso in pasos:
                paso(url)
            volcado = subprocess.run(
                ["pg_dump", "--no-owner", "--no-privileges", "--inserts", "--dbname", url],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            # without psql's meta-commands (\restrict: a random key each dump), so it loads as SQL
            volcado = "".join(line for line in volcado.splitlines(keepends=True) if not line.startswith("\\"))
            (AQUI / f"{nombre}.postgresql.sql").write_text(volcado, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
