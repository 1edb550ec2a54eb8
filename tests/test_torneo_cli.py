"""`mus torneo`: its help lists every action, `servir` too, and the organiser's password is
asked twice: two that differ create nothing and say why in one line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from musmesa.cli import main
from server.db import motor, url_por_defecto
from server.modelos import torneo as db

CLAVE = "una-clave-bien-larga-1"


def test_the_help_lists_servir(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as salida:
        main(["torneo", "--help"])
    assert salida.value.code == 0
    ayuda = capsys.readouterr().out
    for accion in ("servir", "organizador", "crear", "copia", "restaurar"):
        assert f"\n    {accion}" in ayuda, accion
    assert "«mus servir»" in " ".join(ayuda.split())  # argparse wraps the lines


def test_torneo_servir_is_still_mus_servir(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["torneo", "servir", "--help"])
    assert "--puerto" in capsys.readouterr().out


@pytest.fixture
def tecleado(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What the person types at each password prompt, in order."""
    respuestas: list[str] = []

    def getpass(prompt: str = "") -> str:
        return respuestas.pop(0)

    monkeypatch.setattr("getpass.getpass", getpass)
    yield respuestas
    assert not respuestas, "a typed password was never asked for"


def _cuentas(datos: Path) -> list[str]:
    engine = motor(url_por_defecto(str(datos)))
    try:
        with sessionmaker(engine)() as s:
            return list(s.scalars(select(db.Cuenta.usuario)))
    finally:
        engine.dispose()


def test_the_password_is_asked_twice(tmp_path: Path, tecleado: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    datos = tmp_path / "datos"
    tecleado += [CLAVE, CLAVE]
    assert main(["torneo", "organizador", "ana", "--datos", str(datos)]) == 0
    assert "Organizador ana creado." in capsys.readouterr().out
    assert _cuentas(datos) == ["ana"]


def test_two_passwords_that_differ_create_nothing(
    tmp_path: Path, tecleado: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    datos = tmp_path / "datos"
    tecleado += [CLAVE, CLAVE + "x"]
    assert main(["torneo", "organizador", "ana", "--datos", str(datos)]) == 2
    err = capsys.readouterr().err
    assert err == "mus torneo: las dos contraseñas no coinciden; no se ha creado la cuenta\n"
    assert not datos.exists() or _cuentas(datos) == []
