"""Translations: every string the app translates is in every catalogue, with the same format
placeholders; the shipped .mo files are the compiled .po files; the app reads them with the
standard library's gettext."""

from __future__ import annotations

import gettext
import re
import string
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from babel.messages.mofile import read_mo

from mesa import i18n
from mesa.i18n import extraer

LANGUAGES = [code for code in i18n.IDIOMAS if code != i18n.SOURCE]
_PERCENT = re.compile(r"%(?:\([^)]*\))?[#0+-]*(?:\d+|\*)?(?:\.\d+)?[diouxXeEfFgGcrsa%]")
RUN_TOOL = "run `python -m mesa.i18n.extraer`, translate, and commit the .po and .mo files"


@pytest.fixture(scope="module")
def app_msgids() -> list[str]:
    return extraer.msgids()


@pytest.fixture(scope="module")
def app_plurales() -> list[tuple[str, str]]:
    return extraer.plurales()


def placeholders(text: str) -> list[str]:
    """The format fields ({0}, {nombre}, {n:d}) and %-conversions (%s, %(n)d) of a text."""
    fields = [
        "{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
        for _lit, name, spec, conv in string.Formatter().parse(text)
        if name is not None
    ]
    return sorted(fields + [m for m in _PERCENT.findall(text) if m != "%%"])


def _entries(cat: object) -> dict[str | tuple[str, ...], str | tuple[str, ...]]:
    # a text with a count: (singular, plural) -> one msgstr per plural form
    return {
        (tuple(m.id) if isinstance(m.id, (tuple, list)) else m.id): (
            tuple(m.string) if isinstance(m.string, (tuple, list)) else m.string
        )
        for m in cat  # type: ignore[attr-defined]
        if m.id
    }


# -- the extraction -----------------------------------------------------------------------------


def test_extraction_sees_every_form_of_call(tmp_path: Path) -> None:
    (tmp_path / "screen.py").write_text(
        'a = t("uno")\n'
        "b = f\"{app.t('dos')}: {x}\"  # inside an f-string\n"
        'C = N_("tres")\n'
        "d = app.t(C)  # not a literal: its constant is extracted where N_ marks it\n"
        'e = print("no")\n',
        encoding="utf-8",
    )
    (tmp_path / "kv").mkdir()
    (tmp_path / "kv" / "x.kv").write_text(
        "#:import Factory kivy.factory.Factory\n"
        "<Pantalla>:\n"
        "    Label:\n"
        "        text: app.t('cuatro', app.lang)\n"
        "        size_hint: None, None\n"
        "        on_release: root.ir('no'); app.avisar(app.t('cinco') if a else app.t('seis'))\n",
        encoding="utf-8",
    )
    (tmp_path / "i18n").mkdir()
    (tmp_path / "i18n" / "tool.py").write_text('t("no")\n', encoding="utf-8")
    assert extraer.msgids([tmp_path]) == ["uno", "dos", "tres", "cuatro", "cinco", "seis"]


def test_extraction_sees_the_two_forms_of_a_text_with_a_count(tmp_path: Path) -> None:
    (tmp_path / "screen.py").write_text(
        'a = tn("{n} vaca", "{n} vacas", k)\n'
        "b = f\"{app.tn('{n} carta', '{n} cartas', len(x))}\"\n"
        'C = Nn_("{n} mano", "{n} manos")\n'
        "d = tn(C[0], C[1], 2)  # not literals: extracted where Nn_ marks them\n",
        encoding="utf-8",
    )
    (tmp_path / "x.kv").write_text("Label:\n    text: app.tn('una', 'varias', root.n, app.lang)\n", encoding="utf-8")
    (tmp_path / "p.html").write_text("<p>{{ tn('1 piedra', \"{n} piedras\", n).format(n=n) }} {{ t('hola') }}</p>\n")
    assert extraer.msgids([tmp_path]) == ["hola"]
    assert sorted(extraer.plurales([tmp_path])) == [
        ("1 piedra", "{n} piedras"),
        ("una", "varias"),
        ("{n} carta", "{n} cartas"),
        ("{n} mano", "{n} manos"),
        ("{n} vaca", "{n} vacas"),
    ]


def test_extraction_sees_the_server_errors_and_the_tournament_pages(tmp_path: Path) -> None:
    # a server error's first argument is its msgid; the tournament's pages call the translation _
    (tmp_path / "servicio.py").write_text(
        'raise ServicioError("no existe ese torneo", 404)\n'
        'raise servicio.ServicioError("falta {x}", x=1)\n'
        'raise ServidorError(N_("método no admitido"), 405)\n'
        "raise WebError(FOTO, 413)  # a constant: extracted where N_ marks it\n"
        'raise ValueError("no")\n',
        encoding="utf-8",
    )
    (tmp_path / "p.html").write_text('<a>{{ _("Volver") }}</a> {{ mesa_("no") }}\n', encoding="utf-8")
    assert extraer.msgids([tmp_path]) == ["Volver", "no existe ese torneo", "falta {x}", "método no admitido"]


def test_the_server_strings_are_in_the_catalogues(app_msgids: list[str]) -> None:
    # the tournament's pages, its API's errors and the server's handlers (tests/test_torneo_i18n_api.py
    # and tests/test_torneo_paginas.py check every one; this, that the extraction reaches them)
    assert {"Clasificación", "no existe ese torneo", "hay que iniciar sesión", "no existe esa página"} <= set(
        app_msgids
    )


def test_a_text_used_with_and_without_a_count_is_an_error(tmp_path: Path) -> None:
    # gettext keeps one entry a msgid: "mano" (the seat) and tn("mano", "manos") cannot both be found
    (tmp_path / "a.py").write_text('a = t("mano")\nb = tn("mano", "manos", k)\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"a\.py:2: 'mano'|a\.py:2: \('mano'"):
        extraer.msgids([tmp_path])


def test_kv_line_the_tool_cannot_read_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "x.kv").write_text("Label:\n    text: app.t('a' +\n        'b')\n", encoding="utf-8")
    with pytest.raises(SyntaxError, match=r"x\.kv:2"):
        extraer.msgids([tmp_path])


def test_app_strings_come_from_python_kv_and_constants(app_msgids: list[str]) -> None:
    assert len(app_msgids) > 100
    assert {"Error al reconocer", "Juegos", "Grande", "¡Vaca para {0}!"} <= set(app_msgids)


# -- the catalogues -----------------------------------------------------------------------------


def test_catalogues_are_the_languages_offered() -> None:
    assert sorted(p.stem for p in i18n.CARPETA.glob("*.po")) == sorted(LANGUAGES)
    assert sorted(p.stem for p in i18n.CARPETA.glob("*.mo")) == sorted(LANGUAGES)


@pytest.mark.parametrize("idioma", LANGUAGES)
def test_catalogue_translates_every_app_string(
    idioma: str, app_msgids: list[str], app_plurales: list[tuple[str, str]]
) -> None:
    cat = extraer.read(idioma)
    missing = [m for m in app_msgids if m not in cat or not cat[m].string or cat[m].fuzzy]
    assert not missing, f"{idioma}.po lacks {len(missing)}: {missing[:5]}; {RUN_TOOL}"
    stale = sorted(set(_entries(cat)) - set(app_msgids) - set(app_plurales), key=str)
    assert not stale, f"{idioma}.po has texts the app no longer uses: {stale[:5]}; {RUN_TOOL}"


@pytest.mark.parametrize("idioma", LANGUAGES)
def test_every_text_with_a_count_has_each_plural_form(idioma: str, app_plurales: list[tuple[str, str]]) -> None:
    cat = extraer.read(idioma)
    assert cat.plural_forms == "nplurals=2; plural=(n != 1);", cat.plural_forms
    assert len(app_plurales) >= 8
    for uno, varios in app_plurales:
        m = cat[uno]
        assert m is not None and m.id == (uno, varios), f"{idioma}.po lacks {uno!r}; {RUN_TOOL}"
        assert len(m.string) == cat.num_plurals and all(m.string) and not m.fuzzy, (uno, m.string)


@pytest.mark.parametrize("idioma", LANGUAGES)
def test_placeholders_match_between_msgid_and_msgstr(idioma: str) -> None:
    pares = []
    for msgid, msgstr in _entries(extraer.read(idioma)).items():
        if isinstance(msgid, tuple):  # each form says what the plural says (the count too)
            pares += [(msgid[1], forma) for forma in msgstr]
        else:
            pares.append((msgid, msgstr))
    bad = [(msgid, msgstr) for msgid, msgstr in pares if msgstr and placeholders(msgid) != placeholders(msgstr)]
    assert not bad, f"{idioma}.po: placeholders differ: {bad[:3]}"


def test_placeholder_reader() -> None:
    assert placeholders("Solo {0} tiene {n:d} y %s, %(x)d al 100%%") == ["%(x)d", "%s", "{0}", "{n:d}"]
    assert placeholders("{0} gana") != placeholders("{1} gana")
    assert placeholders("¡Juego!") == []


@pytest.mark.parametrize("idioma", LANGUAGES)
def test_shipped_mo_is_the_compiled_po(idioma: str) -> None:
    # Compared entry by entry: the .mo header names the Babel version that compiled it.
    compiled = read_mo(BytesIO(extraer.compile_mo(extraer.read(idioma))))
    with i18n.mo_path(idioma).open("rb") as f:
        shipped = read_mo(f)
    assert _entries(shipped) == _entries(compiled), f"{idioma}.mo is stale; {RUN_TOOL}"
    assert shipped.charset == "utf-8"


# -- at run time --------------------------------------------------------------------------------


def test_app_reads_the_mo_with_stdlib_gettext() -> None:
    assert isinstance(i18n.traductor("eu"), gettext.GNUTranslations)
    assert i18n.t("Nueva mano", "en") == "New hand"
    assert i18n.t("Nueva mano", "eu") == "Esku berria"
    assert i18n.t("¡Vaca para {0}!", "eu").format("Ana eta Bea") == "Behia Ana eta Bea bikotearentzat!"
    assert i18n.t("Nueva mano") == i18n.t("Nueva mano", "xx") == "Nueva mano"  # Spanish, unknown
    assert i18n.t("un texto que no está", "en") == "un texto que no está"
    assert i18n.N_("Grande") == "Grande"


@pytest.mark.parametrize(
    ("idioma", "uno", "dos"),
    [("es", "1 piedra", "2 piedras"), ("en", "1 stone", "2 stones"), ("eu", "1 harri", "2 harri")],
)
def test_a_count_chooses_its_form_with_ngettext(idioma: str, uno: str, dos: str) -> None:
    # the compiled .mo read by the standard library: its Plural-Forms picks the form
    assert [i18n.tn("{n} piedra", "{n} piedras", n, idioma).format(n=n) for n in (1, 2)] == [uno, dos]
    assert i18n.tn("{n} piedra", "{n} piedras", 0, idioma).format(n=0) == dos.replace("2", "0")


# -- the tanteo's reasons -------------------------------------------------------------------------


@pytest.mark.parametrize("idioma", LANGUAGES)
def test_the_reasons_name_the_lances_as_the_catalogues_do(idioma: str) -> None:
    # scoring/ stands alone (standard library): its templates name the lances as the pages do
    from scoring import razones
    from scoring.tanteo import NOMBRES_LANCE

    for lance, nombre in NOMBRES_LANCE.items():
        assert razones.nombre_lance(lance, idioma) == i18n.t(nombre, idioma), lance


def test_every_reason_template_is_in_every_language() -> None:
    from scoring import razones

    for clave, textos in razones.PLANTILLAS.items():
        assert set(textos) == set(razones.IDIOMAS), clave
        assert all(texto.strip() for texto in textos.values()), clave


def test_basque_says_jokaldi_for_lance_tanto_for_tantos_and_harri_for_piedra() -> None:
    # one Basque word for each thing: lances are "jokaldiak" (never "lanceak"),
    # tantos "tanto"/"tantoak", and "harri" only the piedra
    catalog = _entries(extraer.read("eu"))
    for clave, traduccion in catalog.items():
        # a text with a count: its plural and every form of its translation
        msgid = clave[1] if isinstance(clave, tuple) else clave
        msgstr = " ".join(traduccion) if isinstance(traduccion, tuple) else traduccion
        words = set(re.findall(r"\w+", msgstr.lower()))
        assert not words & {"lance", "lanceak", "lancea"}, (msgid, msgstr)
        if re.search(r"\btantos?\b", msgid) and not re.search(r"\bpiedras?\b", msgid):
            assert not any(w.startswith("harri") for w in words), (msgid, msgstr)
    assert i18n.t("Siguiente: lances", "eu") == "Hurrengoa: jokaldiak"
    assert i18n.tn("piedra", "piedras", 2, "eu").startswith("harri")  # the marcador's word


@pytest.fixture
def cliente(tmp_path: Path) -> Iterator[Any]:
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from server.main import crear_app

    a = crear_app(f"sqlite:///{tmp_path / 'razones.sqlite3'}")
    yield TestClient(a)
    a.state.servidor.engine.dispose()


# pareja 0 (Ana, Bea) refuses the chica; pares quiero 5; both hold pares and juego
CARTAS = ["12o 12c 11o 11c", "7o 7c 7e 1o", "4o 4c 5o 6o", "10o 10c 6c 5c"]
LANCES = {"chica": {"no_quiero": 2, "gana": 1}, "pares": {"quiero": 5}}


@pytest.mark.parametrize(
    ("como", "chica"),
    [
        (
            {"params": {"lang": "eu"}},
            "Txikia: Ana eta Bea bikoteak ez du enbidoa onartu; 2 Iñaki eta Josu bikotearentzat",
        ),
        (
            {"headers": {"Accept-Language": "en-GB,en;q=0.9"}},
            "Chica: envite refused by Ana and Bea, 2 to Iñaki and Josu",
        ),
        (
            {"cookies": {"lang": "eu"}},
            "Txikia: Ana eta Bea bikoteak ez du enbidoa onartu; 2 Iñaki eta Josu bikotearentzat",
        ),
        ({}, "Chica: envite no querido por Ana y Bea, 2 para Iñaki y Josu"),
    ],
)
def test_the_api_gives_the_reasons_in_the_players_language(cliente: Any, como: dict[str, Any], chica: str) -> None:
    r = cliente.post("/api/partidas", json={"jugadores": ["Ana", "Iñaki", "Bea", "Josu"], "reglas": "euskadi"})
    clave = r.json()["clave"]
    if "cookies" in como:
        cliente.cookies.update(como.pop("cookies"))
    body: dict[str, Any] = {"cartas": CARTAS, "lances": LANCES}
    previa = cliente.post(f"/api/partidas/{clave}/previsualizar", json=body, **como).json()
    body |= {"id_mano": "telefono-a-1", "n": 1}
    confirmada = cliente.post(f"/api/partidas/{clave}/manos", json=body, **como).json()
    for tanteo in (previa["tanteo"], confirmada["tanteo"]):
        razones = [x["razon"] for x in tanteo["razones"]]
        assert chica in razones, razones
        assert all("«" not in x for x in razones)  # no rules text quoted in a hand's reasons
        # the hand record's own detalle stays Spanish (the `mus tanteo --json` contract)
        assert tanteo["resultado"]["detalle"][0]["razon"].startswith("Chica: envite no querido")
