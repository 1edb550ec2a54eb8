"""App logic without a window: storage, hand entry, partida control, reading, trainer,
referee log, frame sources and the `mus app` command's argument errors."""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from app.camera import Fotogramas, FuenteError, Video, cargar_imagen
from common.files import default_data_dir
from mesa.arbitro import SesionArbitro, verificar
from mesa.lectura import manos
from mesa.mano import EntradaError, EntradaMano, row_of
from mesa.partida import ControlPartida
from mesa.senas import Entrenador
from mesa.storage import Almacen, StorageError, abrir_o_memoria
from scoring.outcomes import FinJuego, Terminacion
from scoring.tanteo import tantear
from vision.detections import CardDetections
from vision.draw import annotate

JUGADORES = ["Ana", "Bea", "Carlos", "Dani"]
# The hand-record example's hands: both parejas hold pares and juego, so every lance can be bet.
MANOS = ["12o 12c 11e 1b", "3o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"]
# Only seat 1 (pareja 1) holds pares; nobody has juego (punto is played).
SOLO_P1_PARES = ["1o 4c 5e 6b", "7o 7c 2e 4b", "1c 5c 6e 10b", "2o 4e 5b 6o"]


@pytest.fixture
def almacen(tmp_path: Path) -> Almacen:
    s = Almacen.abrir(tmp_path / "datos")
    yield s
    s.cerrar()


@pytest.fixture
def ctl(almacen: Almacen) -> ControlPartida:
    c = ControlPartida(almacen)
    c.nueva("general", JUGADORES, mano=0)
    return c


def _entrada(ctl: ControlPartida, manos: list[str] = MANOS) -> EntradaMano:
    e = ctl.entrada()
    e.poner_cartas(manos)
    return e


# -- storage ---------------------------------------------------------------------------------


def test_storage_uses_wal_and_env_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MUSMESA_DATA", str(tmp_path / "env"))
    assert default_data_dir() == tmp_path / "env"
    s = Almacen.abrir()
    assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert (tmp_path / "env" / "musmesa.sqlite3").exists()
    s.cerrar()


def test_unusable_folder_gives_clear_error_and_memory_fallback(tmp_path: Path) -> None:
    blocker = tmp_path / "fichero"
    blocker.write_text("no soy una carpeta")
    with pytest.raises(StorageError, match="No se puede guardar"):
        Almacen.abrir(blocker / "datos")
    s = abrir_o_memoria(blocker / "datos")
    assert not s.guarda and "No se guarda nada" in s.problema.texto()
    pid = s.nueva_partida("general", JUGADORES, 0)  # the app still keeps score
    assert s.partida(pid)["jugadores"] == JUGADORES


def test_full_disk_loses_nothing_already_stored(ctl: ControlPartida) -> None:
    ctl.confirmar(_entrada(ctl))
    db = ctl.almacen.conn
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count={pages}")  # SQLITE_FULL once the pages are used up
    with pytest.raises(StorageError, match="disco está lleno"):
        for _ in range(500):
            ctl.almacen.guardar_correccion(ctl.partida_id, 0, "1o", "x" * 300)
    stored = len(ctl.almacen.manos(ctl.partida_id))
    with pytest.raises(StorageError, match="disco está lleno"):
        for _ in range(20):  # the hands' own page fills after a few more
            before, mano = ctl.partida.tantos, ctl.partida.mano
            ctl.confirmar(_entrada(ctl, ["5o 6o 7c 4e", "12e 11c 10o 2b", "1c 6c 7e 5b", "12b 10c 4o 3b"]))
            stored += 1
    assert (ctl.partida.tantos, ctl.partida.mano) == (before, mano)  # memory untouched
    assert len(ctl.almacen.manos(ctl.partida_id)) == stored
    fresh = ControlPartida(Almacen.abrir(ctl.almacen.carpeta))
    assert fresh.reanudar() and fresh.partida.tantos == before


def test_read_only_database_gives_clear_error_and_keeps_state(ctl: ControlPartida) -> None:
    ctl.confirmar(_entrada(ctl))
    before = ctl.partida.tantos
    ctl.almacen.conn.execute("PRAGMA query_only=1")  # SQLITE_READONLY, as on a read-only mount
    with pytest.raises(StorageError, match="solo lectura"):
        ctl.confirmar(_entrada(ctl))
    assert ctl.partida.tantos == before and len(ctl.almacen.manos(ctl.partida_id)) == 1


def test_export_json_is_tanteo_input_and_csv_has_rows(ctl: ControlPartida, tmp_path: Path) -> None:
    ctl.confirmar(_entrada(ctl))
    pj, pc = ctl.almacen.escribir_export(ctl.partida_id, tmp_path / "exp")
    records = json.loads(pj.read_text(encoding="utf-8"))
    assert len(records) == 1
    assert list(tantear(records[0]).marcador) == list(ctl.partida.tantos)
    lines = pc.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("mano,mano_asiento") and len(lines) == 2


# -- hand entry ------------------------------------------------------------------------------


def test_lances_that_cannot_be_bet_are_skipped_once_cards_are_known() -> None:
    e = EntradaMano(mano=0, parejas=("Ana y Carlos", "Bea y Dani"))
    e.envite("pares", 3)  # cards unknown: allowed for now
    e.poner_cartas(SOLO_P1_PARES)
    estado = {row.lance: row for row in e.estado()}
    assert set(estado) == {"grande", "chica", "pares", "punto"}
    assert not estado["pares"].apostable and estado["pares"].motivo == "Solo Bea y Dani tienen pares"
    assert estado["punto"].apostable
    assert e.lances() == {}  # the pares bet was dropped
    with pytest.raises(EntradaError, match="no se apuesta"):
        e.envite("pares", 2)
    e.no_quiero("punto", gana=1)
    assert e.lances() == {"punto": {"no_quiero": 1, "gana": 1}}


def test_punto_is_entered_in_juegos_row_and_the_rule_is_written_once() -> None:
    """Punto is played in juego's place: the tablet's screen, the phone pages and the entry
    share one row for both, and ask mesa.mano.row_of which it is rather than spell it again."""
    assert [row_of(lance) for lance in ("grande", "chica", "pares", "juego", "punto")] == [
        "grande",
        "chica",
        "pares",
        "juego",
        "juego",
    ]
    e = EntradaMano(mano=0)
    e.poner_cartas(SOLO_P1_PARES)  # nobody has juego: the fourth row is punto
    e.envite("juego", 3)  # tapped in the fourth row
    assert e.resultado("punto") == {"quiero": 3} and e.lances() == {"punto": {"quiero": 3}}
    spelled = re.compile(r"""["']juego["'] if [\w.]+ == ["']punto["']""")
    repo = Path(__file__).resolve().parent.parent
    again = [
        str(path.relative_to(repo))
        for package in ("mesa", "app", "web", "server")
        for path in sorted((repo / package).rglob("*.py"))
        if spelled.search(path.read_text(encoding="utf-8"))
    ]
    assert again == ["mesa/mano.py"]


def test_entry_rejects_bad_cards_and_amounts() -> None:
    e = EntradaMano(mano=0)
    with pytest.raises(ValueError):
        e.poner_cartas(["12o 12c 11e 1b", "12o 3c 3e 7b", "4o 5c 6e 7o", "1o 2c 1e 4b"])
    with pytest.raises(EntradaError):
        e.envite("grande", 1)
    with pytest.raises(EntradaError, match="faltan las cartas"):
        e.registro([0, 0])


# -- partida control -------------------------------------------------------------------------


def test_confirm_stores_hand_and_resume_rebuilds_state(ctl: ControlPartida, tmp_path: Path) -> None:
    e = _entrada(ctl)
    e.no_quiero("chica", gana=1)
    e.envite("pares", 5)
    preview, _ = ctl.previsualizar(e)
    assert ctl.partida.tantos == (0, 0) and not ctl.almacen.manos(ctl.partida_id)
    res, _ = ctl.confirmar(e)
    assert res.marcador == preview.marcador
    assert ctl.partida.tantos == res.marcador and ctl.partida.mano == 1
    # Reopen the database from scratch, as after a kill.
    fresh = ControlPartida(Almacen.abrir(ctl.almacen.carpeta))
    assert fresh.reanudar()
    assert fresh.partida.tantos == res.marcador and fresh.partida.mano == 1
    assert fresh.vista().ultimas[0].startswith("1. mano Ana")


def test_damaged_stored_hand_stops_the_replay_with_a_reason(ctl: ControlPartida) -> None:
    ctl.confirmar(_entrada(ctl))
    ctl.confirmar(_entrada(ctl))
    tantos_1 = tantear({"mano": 0, "manos": MANOS}).marcador
    ctl.almacen.conn.execute(
        "UPDATE manos SET registro=? WHERE n=2", (json.dumps({"manos": ["12o 12o 1e 1b", *MANOS[1:]], "mano": 1}),)
    )
    fresh = ControlPartida(Almacen.abrir(ctl.almacen.carpeta))
    assert fresh.reanudar()
    assert "la mano 2" in fresh.problema and fresh.partida.tantos == tantos_1
    in_english = ControlPartida(Almacen.abrir(ctl.almacen.carpeta), idioma="en")
    assert in_english.reanudar() and in_english.problema.startswith("saved hand 2 cannot be scored")


def test_corrupt_database_file_is_reported(tmp_path: Path) -> None:
    (tmp_path / "musmesa.sqlite3").write_bytes(b"esto no es SQLite" * 200)
    s = abrir_o_memoria(tmp_path)
    assert "dañado" in s.aviso.texto()
    assert s.nueva_partida("general", JUGADORES, 0)


def test_undo_marks_hand_and_restores(ctl: ControlPartida) -> None:
    ctl.confirmar(_entrada(ctl))
    assert ctl.deshacer()
    assert ctl.partida.tantos == (0, 0)
    assert ctl.almacen.manos(ctl.partida_id) == []
    assert not ctl.deshacer()


def test_ordago_announces_end_of_juego(ctl: ControlPartida) -> None:
    e = _entrada(ctl)
    e.ordago("grande")
    res, avisos = ctl.confirmar(e)
    assert res.fin == FinJuego(1, Terminacion.ORDAGO)  # seat 1's three threes are kings
    assert avisos == [("¡Órdago! Juego para {0}", "Bea y Dani")]
    v = ctl.vista()
    assert v.parejas[1].juegos == 1 and v.parejas[1].tantos == 0


@pytest.mark.parametrize(
    ("idioma", "pareja", "ultima"),
    [
        ("es", "Bea y Dani", "1. mano Ana: +0 / +40 · fin del juego"),
        ("eu", "Bea eta Dani", "1. eskua (Ana eskua): +0 / +40 · jokoaren amaiera"),
        ("en", "Bea and Dani", "Hand 1, Ana mano: +0 / +40 · end of the game"),
    ],
)
def test_texts_for_players_follow_the_language(ctl: ControlPartida, idioma: str, pareja: str, ultima: str) -> None:
    ctl.idioma = idioma  # as the app sets it when its language changes
    e = _entrada(ctl)
    e.ordago("grande")
    _res, avisos = ctl.confirmar(e)
    assert avisos == [("¡Órdago! Juego para {0}", pareja)]
    v = ctl.vista()
    assert v.parejas[1].nombre == pareja and ctl.entrada().parejas[1] == pareja
    assert v.ultimas == [ultima]


def test_names_must_be_four_and_distinct(almacen: Almacen) -> None:
    c = ControlPartida(almacen)
    with pytest.raises(ValueError, match="distintos"):
        c.nueva("general", ["Ana", "Ana", "Bea", "Dani"], 0)
    with pytest.raises(ValueError):
        c.nueva("general", ["Ana", "", "Bea", "Dani"], 0)
    assert almacen.partidas() == []


# -- card reading ----------------------------------------------------------------------------


def _lectura() -> CardDetections:
    cards = [c for hand in MANOS for c in hand.split()]
    data = {
        "cartas": [
            {"carta": c, "confianza": 0.3 if i == 5 else 0.95, "caja": [10 * i, 10, 10 * i + 8, 30], "asiento": i // 4}
            for i, c in enumerate(cards)
        ],
        "asientos": [h.split() for h in MANOS],
        "avisos": [],
    }
    return CardDetections.from_json(data)


def test_reading_groups_seats_and_corrects_one_card() -> None:
    lec = _lectura()
    assert manos(lec) == MANOS
    assert lec.low_confidence.tolist().count(True) == 1  # under the reader's generic threshold
    assert lec.correct(5, "2b") == [(5, "3c", "2b")]
    assert manos(lec)[1] == "3o 2b 3e 7b" and not lec.low_confidence[5]
    # Picking a card read elsewhere swaps the two ids and flags the other one.
    assert lec.correct(5, "12o") == [(5, "2b", "12o"), (0, "12o", "2b")]
    assert manos(lec)[:2] == ["2b 12c 11e 1b", "3o 12o 3e 7b"] and lec.low_confidence[0]
    assert len(set(lec.ids)) == 16
    assert lec.corrected_from[[0, 5, 6]].tolist() == ["12o", "3c", None]
    drawn = annotate(np.zeros((60, 200, 3), np.uint8), lec)  # vision's drawing, the one there is
    assert drawn.shape == (60, 200, 3) and drawn.any()


def test_the_reading_json_goes_there_and_back() -> None:
    lec = _lectura()
    lec.unfamiliar = True
    again = CardDetections.from_json(lec.to_json())
    assert again.to_json() == lec.to_json() and again.unfamiliar
    assert again.to_json()["baraja_desconocida"] is True
    with pytest.raises(ValueError, match="no es de la baraja"):
        CardDetections.from_json({"cartas": [{"carta": "13o"}]})


def test_reading_hands_on_vision_card_detections() -> None:
    ids = [c for hand in MANOS for c in hand.split()]
    n = len(ids)
    xyxy = np.array(
        [[40 * (i % 4), 50 * (i // 4), 40 * (i % 4) + 30, 50 * (i // 4) + 45] for i in range(n)], np.float32
    )
    low = np.zeros(n, bool)
    low[5] = True
    alts = np.array(["2b" if i == 5 else "1o" for i in range(n)], object)
    conf = np.where(low, 0.4, 0.95).astype(np.float32)
    conf[9] = 0.5  # sure enough for the reader's flag model (registered deck): the reader decides
    det = CardDetections(
        xyxy=xyxy,
        obb=np.zeros((n, 5), np.float32),
        card_ids=np.array(ids, object),
        confidence=conf,
        det_confidence=np.ones(n, np.float32),
        cls_confidence=np.ones(n, np.float32),
        alternatives=alts,
        low_confidence=low,
        seat=np.repeat(np.arange(4), 4).astype(np.int8),
        warnings=["una carta dudosa"],
    )
    assert manos(det) == MANOS  # seats as vision grouped them, each sorted left to right
    assert det.to_json()["cartas"][5]["alternativa"] == "2b"
    assert [c["dudosa"] for c in det.to_json()["cartas"]].count(True) == 1


# -- trainer and referee ---------------------------------------------------------------------

GUINO = {"gesto": "guino", "lado": "derecho", "inicio": 2.1, "fin": 2.8, "confianza": 1.0}
LABIO = {"gesto": "labio_mordido", "lado": None, "inicio": 4.0, "fin": 4.8, "confianza": 1.0}


def test_trainer_needs_the_complete_senas() -> None:
    e = Entrenador("segovia", semilla=1)
    e.poner_mano("12o 12c 7e 4b")  # pareja de reyes and 31
    assert any("treinta y una" in s for s in e.que_senar())
    assert e.comprobar([GUINO, LABIO]).correcto
    assert not e.comprobar([GUINO]).correcto  # dos reyes missing: incomplete
    assert not e.comprobar([]).correcto
    assert (e.aciertos, e.intentos) == (1, 3)


def test_referee_log_is_hash_chained_tamper_evident_and_resumable() -> None:
    s = SesionArbitro("segovia", JUGADORES)
    s.vigilar(1)
    s.marcar("reparto", 0.0)
    s.marcar("lances", 1.0)
    s.anotar(GUINO)
    data = s.exportar()
    # Resuming from the stored entries keeps the watched seat, the marks and the señas.
    again = SesionArbitro("segovia", JUGADORES, entradas=data["entradas"])
    assert (again.asiento, len(again.marcas), again.eventos) == (1, 2, [GUINO])
    informe = again.comprobar("1c 4c 5o 6b")
    assert not informe.correcto  # a wink for 31 with 16 al punto is a false seña
    assert verificar(again.exportar()).valido
    data["entradas"][4]["datos"]["gesto"] = "morro"  # someone edits the report
    check = verificar(data)
    assert not check.valido and check.entrada == 4
    with pytest.raises(ValueError):
        SesionArbitro("segovia", JUGADORES, entradas=data["entradas"])


# -- frame sources ---------------------------------------------------------------------------


def test_sources_fail_with_clear_messages(tmp_path: Path) -> None:
    bad = tmp_path / "foto.jpg"
    bad.write_bytes(b"not an image")
    with pytest.raises(FuenteError, match="no existe"):
        cargar_imagen(tmp_path / "nada.jpg")
    with pytest.raises(FuenteError, match="no es una imagen"):
        cargar_imagen(bad)
    with pytest.raises(FuenteError):
        Video(bad)
    src = Fotogramas([np.zeros((4, 4, 3), np.uint8)] * 2, intervalo=0.5)
    assert src.leer()[0] == 0.0 and src.leer()[0] == 0.5
    assert src.leer() is None and src.error


def test_a_photo_of_cards_from_a_file_is_decoded_as_the_phones_photos_are(tmp_path: Path) -> None:
    """The tablet's file chooser: a phone's 12 MP JPEG at half its size, as `mus servir` and
    `mus leer` read it; a small one whole; a file that is no image or is missing, a message."""
    cv2 = pytest.importorskip("cv2")
    pytest.importorskip("onnxruntime")  # the vision extra, which decodes it
    from app.camera import cargar_foto_de_cartas

    grande, pequena, bad = tmp_path / "grande.jpg", tmp_path / "pequeña.jpg", tmp_path / "foto.jpg"
    ruido = np.random.default_rng(0).integers(0, 255, (3024, 4032, 3), np.uint8)
    assert cv2.imwrite(str(grande), ruido) and cv2.imwrite(str(pequena), ruido[:960, :1280])
    bad.write_bytes(b"not an image")
    assert cargar_foto_de_cartas(grande).shape == (1512, 2016, 3)
    assert cargar_foto_de_cartas(pequena).shape == (960, 1280, 3)
    with pytest.raises(FuenteError, match="no existe"):
        cargar_foto_de_cartas(tmp_path / "nada.jpg")
    with pytest.raises(FuenteError, match="no es una imagen"):
        cargar_foto_de_cartas(bad)


def test_bundled_senas_clip_is_a_readable_video() -> None:
    v = Video(Path("app/assets/senas_demo.mp4"))
    n = 0
    while v.leer() is not None:
        n += 1
    assert n > 40


# -- command line ----------------------------------------------------------------------------


def _args(**kw: object) -> argparse.Namespace:
    from app import launcher

    p = argparse.ArgumentParser()
    launcher.configure(p)
    ns = p.parse_args([])
    for k, v in kw.items():
        setattr(ns, k, v)
    return ns


def test_launcher_bad_input_exits_2(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from app import launcher

    assert launcher.run(_args(tamano="grande")) == 2
    assert launcher.run(_args(capturas="/tmp/x")) == 2
    assert launcher.run(_args(demo=True, foto="/no/existe.jpg")) == 2
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    assert launcher.run(_args()) == 2
    err = capsys.readouterr().err
    assert "tamaño no válido" in err and "--demo" in err and "xvfb-run" in err
    assert "no existe la foto" in err


def test_sqlite_file_is_readable_by_plain_sqlite(ctl: ControlPartida) -> None:
    ctl.confirmar(_entrada(ctl))
    db = sqlite3.connect(ctl.almacen.carpeta / "musmesa.sqlite3")
    (registro,) = db.execute("SELECT registro FROM manos").fetchone()
    assert json.loads(registro)["manos"] == MANOS
