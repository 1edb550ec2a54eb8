"""Translations: every string the app translates is in every catalogue, with the same format
placeholders; the shipped .mo files are the compiled .po files; the app reads them with the
standard library's gettext."""

from __future__ import annotations

import gettext
import re
import string
from io import BytesIO
from pathlib import Path

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


def placeholders(text: str) -> list[str]:
    """The format fields ({0}, {nombre}, {n:d}) and %-conversions (%s, %(n)d) of a text."""
    fields = [
        "{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
        for _lit, name, spec, conv in string.Formatter().parse(text)
        if name is not None
    ]
    return sorted(fields + [m for m in _PERCENT.findall(text) if m != "%%"])


def _entries(cat: object) -> dict[str, str]:
    return {m.id: m.string for m in cat if m.id}  # type: ignore[attr-defined]


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
def test_catalogue_translates_every_app_string(idioma: str, app_msgids: list[str]) -> None:
    cat = extraer.read(idioma)
    missing = [m for m in app_msgids if m not in cat or not cat[m].string or cat[m].fuzzy]
    assert not missing, f"{idioma}.po lacks {len(missing)}: {missing[:5]}; {RUN_TOOL}"
    stale = sorted(set(_entries(cat)) - set(app_msgids))
    assert not stale, f"{idioma}.po has texts the app no longer uses: {stale[:5]}; {RUN_TOOL}"


@pytest.mark.parametrize("idioma", LANGUAGES)
def test_placeholders_match_between_msgid_and_msgstr(idioma: str) -> None:
    bad = [
        (msgid, msgstr)
        for msgid, msgstr in _entries(extraer.read(idioma)).items()
        if msgstr and placeholders(msgid) != placeholders(msgstr)
    ]
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
