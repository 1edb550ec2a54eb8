"""The app's data survive damage: a damaged data page, a data folder that cannot be written,
the backups, and the demo on a folder that already holds a partida. No window."""

from __future__ import annotations

import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from app import launcher
from mesa.mano import EntradaMano
from mesa.partida import ControlPartida
from mesa.storage import COPIA_CADA_MANOS, COPIA_NAME, DB_NAME, Almacen, StorageError, abrir_o_memoria

JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]
MANOS = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
N_MANOS = 24  # enough hand records for the manos table to span several leaf pages


def jugar(carpeta: Path, n: int = N_MANOS) -> ControlPartida:
    ctl = ControlPartida(Almacen.abrir(carpeta))
    ctl.nueva("general", JUGADORES, mano=0)
    for _ in range(n):
        e: EntradaMano = ctl.entrada()
        e.poner_cartas(MANOS)
        ctl.confirmar(e)
    return ctl


def _hojas_de_manos(db: Path) -> list[int]:
    """The leaf pages of the manos table, read from its root page (an interior b-tree page:
    4-byte child page numbers at the cells the pointer array names, then the right child)."""
    conn = sqlite3.connect(db)
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='manos'").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = db.read_bytes()
    page = data[(root - 1) * size : root * size]
    assert page[0] == 0x05, "manos should span several pages"
    cells = int.from_bytes(page[3:5], "big")
    hijos = []
    for k in range(cells):
        ptr = int.from_bytes(page[12 + 2 * k : 14 + 2 * k], "big")
        hijos.append(int.from_bytes(page[ptr : ptr + 4], "big"))
    hijos.append(int.from_bytes(page[8:12], "big"))
    return hijos


def _danar_pagina(db: Path, pagina: int) -> None:
    """Write garbage over one data page of a real database file (the header is left alone)."""
    size = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    assert pagina > 1
    with db.open("r+b") as f:
        f.seek((pagina - 1) * size)
        f.write(bytes((i * 37 + 11) % 256 for i in range(size)))


def partida_danada(tmp_path: Path, con_copia: bool) -> tuple[Path, int]:
    carpeta = tmp_path / "datos"
    ctl = jugar(carpeta)
    ctl.almacen.cerrar()  # a clean close: the WAL is checkpointed into the file
    if not con_copia:
        (carpeta / COPIA_NAME).unlink(missing_ok=True)
    db = carpeta / DB_NAME
    _danar_pagina(db, _hojas_de_manos(db)[1])
    with pytest.raises(sqlite3.DatabaseError, match="malformed"):  # the damage is real
        sqlite3.connect(db).execute("SELECT registro FROM manos").fetchall()
    return carpeta, ctl.partida_id or 0


def test_damaged_data_page_is_recovered_and_set_aside(tmp_path: Path) -> None:
    carpeta, pid = partida_danada(tmp_path, con_copia=False)
    original = (carpeta / DB_NAME).read_bytes()
    s = abrir_o_memoria(carpeta)
    assert s.guarda and s.aviso is not None
    msg = s.aviso.texto()
    assert "dañado" in msg and "guardado aparte" in msg
    aparte = [p for p in carpeta.iterdir() if ".danado-" in p.name and p.suffix == ".sqlite3"]
    assert len(aparte) == 1 and aparte[0].name in msg
    assert aparte[0].read_bytes() == original  # kept as it was, never deleted
    manos = s.manos(pid)
    assert 0 < len(manos) < N_MANOS and f"{len(manos)} manos de 1 partida." in msg  # ngettext: one partida
    assert s.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    ctl = ControlPartida(s)  # the partida resumes with what was recovered, and goes on
    assert ctl.reanudar() and ctl.partida_id == pid
    e = ctl.entrada()
    e.poner_cartas(MANOS)
    ctl.confirmar(e)
    assert s.aviso.texto("en").startswith("The data file was damaged")
    s.cerrar()
    again = Almacen.abrir(carpeta)  # the rebuilt file is sound: no second recovery
    assert again.aviso is None and len(again.manos(pid)) == len(manos) + 1


def test_damaged_page_is_filled_in_from_the_backup(tmp_path: Path) -> None:
    carpeta, pid = partida_danada(tmp_path, con_copia=True)
    s = Almacen.abrir(carpeta)
    assert "copia de seguridad" in s.aviso.texto()
    manos = s.manos(pid)
    # The backup was taken at the last multiple of COPIA_CADA_MANOS: with the readable rows
    # of the damaged file, every hand is back, in order.
    assert [m["n"] for m in manos] == list(range(1, N_MANOS + 1))
    assert all(m["registro"]["manos"] == MANOS for m in manos)


def test_damaged_header_is_set_aside_and_a_fresh_file_opens(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"esto no es SQLite" * 200)
    s = abrir_o_memoria(tmp_path)
    assert s.guarda and "dañado" in s.aviso.texto()
    assert s.nueva_partida("general", JUGADORES, 0)
    assert any(".danado-" in p.name for p in tmp_path.iterdir())


def test_backup_every_n_hands_and_at_the_end_checkpoint_after_each(tmp_path: Path) -> None:
    carpeta = tmp_path / "datos"
    ctl = jugar(carpeta, n=COPIA_CADA_MANOS - 1)
    copia = carpeta / COPIA_NAME

    def en_copia() -> int:
        return sqlite3.connect(copia).execute("SELECT count(*) FROM manos").fetchone()[0]

    assert en_copia() == 0  # the one made on opening the new folder
    # Checkpointed after each confirmed hand: the hands are in the main file, not only in WAL.
    plain = sqlite3.connect(f"{(carpeta / DB_NAME).as_uri()}?mode=ro&immutable=1", uri=True)
    assert plain.execute("SELECT count(*) FROM manos").fetchone()[0] == COPIA_CADA_MANOS - 1
    e = ctl.entrada()
    e.poner_cartas(MANOS)
    ctl.confirmar(e)
    assert en_copia() == COPIA_CADA_MANOS
    ctl.almacen.guardar_mano(ctl.partida_id, {"manos": MANOS, "mano": 0}, {}, terminada=True, ganador=0)
    assert en_copia() == COPIA_CADA_MANOS + 1  # the end of the partida


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_the_players_data_are_the_owners_only(tmp_path: Path) -> None:
    """The database, its WAL, the backup and an export hold the players' names and hands:
    readable by the owner only, whatever the umask."""
    old = os.umask(0)
    try:
        carpeta = tmp_path / "datos"
        ctl = jugar(carpeta, n=COPIA_CADA_MANOS)  # a backup on opening, one after the fifth hand
        export = ctl.almacen.escribir_export(ctl.partida_id or 0, tmp_path / "export")
    finally:
        os.umask(old)
    files = [carpeta / DB_NAME, carpeta / f"{DB_NAME}-wal", carpeta / COPIA_NAME, *export]
    assert all(f.is_file() for f in files)
    assert {str(f.name): _mode(f) for f in files} == {str(f.name): 0o600 for f in files}
    copia = sqlite3.connect(carpeta / COPIA_NAME)  # the backup is a whole database
    assert copia.execute("SELECT count(*) FROM manos").fetchone()[0] == COPIA_CADA_MANOS
    assert not [p.name for p in carpeta.iterdir() if p.name.endswith(".parcial")]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_recovered_database_is_the_owners_only(tmp_path: Path) -> None:
    carpeta, pid = partida_danada(tmp_path, con_copia=True)
    (carpeta / DB_NAME).chmod(0o644)
    s = Almacen.abrir(carpeta)
    assert s.aviso is not None and len(s.manos(pid)) == N_MANOS
    assert _mode(carpeta / DB_NAME) == 0o600


def sin_escritura(monkeypatch: pytest.MonkeyPatch, carpeta: Path) -> None:
    """``carpeta`` as a read-only mount shows it to SQLite: every read-write open of its
    database fails with SQLite's own message. (chmod does not stop root, who runs this in
    containers; test_read_only_folder_for_a_normal_user does it for real.)"""
    real = sqlite3.connect

    def connect(database: object, *args: object, **kwargs: object) -> sqlite3.Connection:
        if str(database) == str(carpeta / DB_NAME) and not kwargs.get("uri"):
            raise sqlite3.OperationalError("unable to open database file")
        return real(database, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", connect)


def test_unwritable_folder_keeps_saved_partidas_readable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    carpeta = tmp_path / "datos"
    ctl = jugar(carpeta, n=3)
    tantos = ctl.partida.tantos
    ctl.almacen.cerrar()
    sin_escritura(monkeypatch, carpeta)
    s = abrir_o_memoria(carpeta)
    assert not s.guarda
    msg = s.problema.texto()
    assert "unable to open" not in msg and "No se guarda nada" in msg and str(carpeta) in msg
    assert "no se puede abrir ni crear" in msg
    resumed = ControlPartida(s)
    assert resumed.reanudar() and resumed.partida.tantos == tantos  # the saved one, shown
    e = resumed.entrada()
    e.poner_cartas(MANOS)
    resumed.confirmar(e)  # and the score goes on, in memory
    assert len(s.manos(resumed.partida_id)) == 4
    assert s.problema.texto("en").startswith("Nothing is being saved")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root ignores chmod")
def test_read_only_folder_for_a_normal_user(tmp_path: Path) -> None:
    carpeta = tmp_path / "datos"
    ctl = jugar(carpeta, n=2)
    ctl.almacen.cerrar()
    (carpeta / DB_NAME).chmod(0o444)
    carpeta.chmod(0o555)
    try:
        s = abrir_o_memoria(carpeta)
        assert not s.guarda and "No se guarda nada" in s.problema.texto()
        assert len(s.manos(ctl.partida_id)) == 2
    finally:
        carpeta.chmod(0o755)


LEER_MONTADA = """
import sys
from mesa.storage import abrir_o_memoria
s = abrir_o_memoria(sys.argv[1])
print(s.guarda, len(s.manos(1)), len(s.correcciones(1)), s.problema.texto() if s.problema else "")
"""


def _montar_solo_lectura_funciona() -> bool:
    if os.name != "posix" or os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    return probe.returncode == 0


@pytest.mark.skipif(not _montar_solo_lectura_funciona(), reason="needs root and unshare -m")
@pytest.mark.parametrize("cierre", ["limpio", "matado"])
def test_read_only_mount_for_real(tmp_path: Path, cierre: str) -> None:
    """A read-only bind mount stops root too. Killed, the hands still in the WAL count."""
    carpeta, montada = tmp_path / "datos", tmp_path / "montada"
    ctl = jugar(carpeta, n=3)
    if cierre == "limpio":
        ctl.almacen.cerrar()
    else:  # as after a kill: a correction only in the WAL, its -shm beside it
        ctl.almacen.conn.execute("PRAGMA wal_autocheckpoint=0")
        ctl.almacen.guardar_correccion(ctl.partida_id, 0, "1o", "2o")
        assert (carpeta / (DB_NAME + "-wal")).stat().st_size > 0
    montada.mkdir()
    script = (
        f"mount --bind {carpeta} {montada} && mount -o remount,ro,bind {montada} && "
        f"{sys.executable} -c '{LEER_MONTADA}' {montada}"
    )
    out = subprocess.run(
        ["unshare", "-m", "sh", "-c", script],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        timeout=60,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    guarda, manos, correcciones, msg = out.stdout.strip().split(" ", 3)
    assert guarda == "False" and manos == "3"
    assert correcciones == ("0" if cierre == "limpio" else "1")
    assert msg.startswith("No se guarda nada: la carpeta de datos es de solo lectura")


def test_a_path_that_is_a_file_is_explained(tmp_path: Path) -> None:
    blocker = tmp_path / "fichero"
    blocker.write_text("no soy una carpeta")
    with pytest.raises(StorageError, match="no es una carpeta"):
        Almacen.abrir(blocker)
    s = abrir_o_memoria(blocker / "datos")
    assert not s.guarda and s.partidas() == []


def test_demo_runs_on_a_copy_of_the_given_folder(tmp_path: Path) -> None:
    carpeta = tmp_path / "datos"
    ctl = jugar(carpeta, n=2)
    before = (carpeta / DB_NAME).read_bytes()
    copia = Path(launcher.copia_para_demo(carpeta))
    assert copia != carpeta and copia.is_dir()
    demo = Almacen.abrir(copia)
    assert demo.partida_abierta()["id"] == ctl.partida_id and len(demo.manos(ctl.partida_id)) == 2
    demo.nueva_partida("general", JUGADORES, 0)
    assert (carpeta / DB_NAME).read_bytes() == before  # the player's data untouched
    assert Path(launcher.copia_para_demo(None)).is_dir()
