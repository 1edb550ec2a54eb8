"""The rules texts against the engine (issue 44).

Every quote in scoring.textos is the exact text of the document it names; every value of every
built-in profile names its source or says it is a choice; and worked cases, each beside the line
it comes from: the 33 de postre (Reglamento Campeonatos de Mus (Segovia), Título V, arts. 7-9,
against the Basque «Araudia»), the order stones are collected in (the deje) and the envite at
punto a falta de un tanto (Título VI, art. 1).
"""

from __future__ import annotations

import doctest
import os
import re
from functools import cache
from pathlib import Path

import pytest

from scoring import textos
from scoring.rules import PERFILES, VALORES, cargar_perfil, perfil

ROOT = Path(__file__).resolve().parents[1]
# The texts are never copied into the repository: they are read where the project keeps them.
SEEDS = Path(os.environ.get("MUSMESA_SEEDS", ROOT.parent / "shared" / "seeds"))


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@cache
def documentos() -> dict[str, str]:
    """The texts by the titles they give themselves, whitespace made single (the Segovia text
    breaks its lines inside sentences). One file holds the Normas and the Reglamento."""
    out: dict[str, str] = {}
    for path in sorted(SEEDS.glob("*.txt")):
        text = _normal(path.read_text(encoding="utf-8"))
        if "REGLAMENTO CAMPEONATOS DE MUS" in text:
            normas, reglamento = text.split("REGLAMENTO CAMPEONATOS DE MUS", 1)
            out[textos.NORMAS_SEGOVIA], out[textos.REGLAMENTO] = normas, reglamento
        elif "EUSKADIKO KOOPERATIBEN ARTEKO III. MUS TXAPELKETA" in text:
            out[textos.TXAPELKETA] = text
        elif "Modalidades en Ludoteka" in text:
            out[textos.LUDOTEKA] = text
        elif "Vista del artículo" in text:
            out[textos.ENCICLOPEDIA] = text
    return out


needs_texts = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the rules texts are not at {SEEDS}")


@needs_texts
def test_the_five_documents_are_found() -> None:
    assert set(documentos()) == set(textos.DOCUMENTOS)


@needs_texts
@pytest.mark.parametrize("cita", textos.citas(), ids=lambda c: f"{c.documento[:12]}-{c.lugar}-{c.texto[:24]}")
def test_every_quote_is_the_exact_text_of_its_document(cita: textos.Cita) -> None:
    for fragmento in cita.fragmentos:
        assert _normal(fragmento) in documentos()[cita.documento], fragmento


def test_textos_doctests() -> None:
    result = doctest.testmod(textos, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# -- every profile value with its source, or marked as a choice -------------------------------

@pytest.mark.parametrize("name", list(PERFILES))
def test_every_value_of_a_profile_names_its_source_or_is_a_choice(name: str) -> None:
    reglas = PERFILES[name]
    assert [campo for campo, _ in reglas.fuentes] == list(VALORES)  # each one written down
    for campo, _, fuente in reglas.valores():
        assert fuente.citas or fuente.eleccion, campo
        assert all(c.documento in textos.DOCUMENTOS for c in fuente.citas)
        assert all(c in textos.citas() for c in fuente.citas), "quotes live in scoring.textos"


@pytest.mark.parametrize(
    ("name", "campo", "documento", "palabras"),
    [
        # What the texts fix, and where.
        ("segovia", "tantos", textos.NORMAS_SEGOVIA, "Se juega a 4 juegos de 40 tantos siempre"),
        ("segovia", "deje", textos.NORMAS_SEGOVIA, "Se juega sin deje"),
        ("segovia", "ordago_33_postre", textos.REGLAMENTO, "treinta y tres de postre"),
        ("segovia", "punto_falta_un_tanto", textos.REGLAMENTO, "a falta de un tanto"),
        ("cuellar", "real", textos.NORMAS_SEGOVIA, "VALE LA 31 REAL"),
        ("cuellar", "tantos", textos.NORMAS_SEGOVIA, "juegan a 30 tantos en lugar de a 40"),
        ("euskadi", "tantos", textos.TXAPELKETA, "40 harri"),
        ("euskadi", "deje", textos.TXAPELKETA, "jasotzen diren lehen harriak"),
        ("euskadi", "ordago_33_postre", textos.TXAPELKETA, "atzeskuak bagara ere"),
        # The «Araudia» says nothing on reyes; the encyclopedia says it for the Basque Country.
        ("euskadi", "reyes", textos.ENCICLOPEDIA, "se juega solamente con cuatro reyes y cuatro ases"),
        ("ludoteka-4", "tantos", textos.LUDOTEKA, "Los juegos se disputan a 30 puntos"),
        ("ludoteka-8", "juegos_por_vaca", textos.LUDOTEKA, "vence la pareja que logra 2 juegos"),
        ("general", "reyes", textos.ENCICLOPEDIA, "Se juega con ocho reyes"),
    ],
)
def test_sourced_values_quote_the_words_that_fix_them(name: str, campo: str, documento: str, palabras: str) -> None:
    fuente = perfil(name).fuente_de(campo)
    assert not fuente.es_eleccion
    assert any(c.documento == documento and palabras in c.texto for c in fuente.citas)


@pytest.mark.parametrize(
    ("name", "campo"),
    [
        ("euskadi", "juegos_por_vaca"),  # «Joko partzial» only: the Araudia says no number
        ("euskadi", "real"), ("euskadi", "mus_corrido"), ("euskadi", "punto_falta_un_tanto"),
        ("segovia", "reyes"),  # the normas only list «A cuatro u 8 reyes» as variants
        ("general", "deje"),  # «El deje no siempre es considerado reglamentario»
        ("general", "ordago_33_postre"), ("ludoteka-4", "real"), ("ludoteka-8", "senas"),
    ] + [(name, "vacas_por_partida") for name in PERFILES],
)
def test_values_no_text_fixes_are_marked_as_choices(name: str, campo: str) -> None:
    assert perfil(name).fuente_de(campo).es_eleccion


def test_euskadi_is_re_read_against_the_basque_regulation() -> None:
    reglas = perfil("euskadi")
    assert (reglas.reyes, reglas.ases, reglas.tantos, reglas.deje, reglas.ordago_33_postre) == (
        4, 4, 40, "primero", "vale")
    assert "la «Araudia» no lo dice" in reglas.fuente_de("reyes").texto()


def test_a_changed_value_becomes_a_choice_and_the_rest_keep_their_source(tmp_path: Path) -> None:
    derived = perfil({"base": "euskadi", "reyes": 8})
    assert derived.fuente_de("reyes").eleccion == "cambiado respecto al perfil «euskadi» (4 → 8)"
    assert derived.fuente_de("ases").es_eleccion  # follows the reyes
    assert derived.fuente_de("deje") == perfil("euskadi").fuente_de("deje")
    path = tmp_path / "bar.toml"
    path.write_text('base = "segovia"\ndeje = "al_final"\n', encoding="utf-8")
    assert cargar_perfil(path).fuente_de("deje").es_eleccion
    assert cargar_perfil(path).fuente_de("tantos") == perfil("segovia").fuente_de("tantos")
