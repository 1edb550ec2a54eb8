"""Developer tool: extract the strings the app translates, refresh the .po catalogues and
compile them to the .mo files the app reads.

The strings are the literal first arguments of ``t(...)``, ``app.t(...)``, ``N_(...)`` and of
the server's errors (:data:`ERRORES`) in the folders of :data:`ROOTS` (the tablet app's app/,
the shared logic's mesa/, the tournament's shape torneo/ and the server's server/: *.py, *.kv, and
{{ t('...') }} or {{ _('...') }} in the pages' *.html), and the two literal forms,
singular and plural, of a text with a count: ``tn(...)``, ``app.tn(...)``, ``Nn_(...)`` and
{{ tn('...', '...', n) }} (gettext's ngettext; the .po gives one msgstr per plural form of the
language, as its Plural-Forms header says). Babel keeps the catalogues:
translations stay, a new msgid gets an empty msgstr (or a fuzzy guess from a similar old one,
which the .mo leaves out until a translator confirms it), msgids the app no longer uses are
dropped. Run after changing texts
or translations, and commit the .po and .mo files together:

    python -m mesa.i18n.extraer

Needs Babel (the ``test`` extra); the app itself only needs the standard library's gettext.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping
from datetime import datetime
from io import BytesIO
from pathlib import Path
from typing import IO, Any

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from mesa.i18n import CARPETA, DOMAIN, IDIOMAS, SOURCE, mo_path, po_path

REPO = CARPETA.parent.parent
# every folder whose texts a player reads through these catalogues
ROOTS: tuple[Path, ...] = (REPO / "app", REPO / "mesa", REPO / "torneo", REPO / "server")
# the server's errors (server.errores.ServidorError and its subclasses): their first argument is
# a msgid, as if marked with N_
ERRORES: tuple[str, ...] = ("ServidorError", "ServicioError", "WebError", "FormatoError", "Espera")
# None: the msgid is the first argument; (1, 2): a singular and a plural (ngettext)
KEYWORDS: Mapping[str, tuple[int, int] | None] = {
    "t": None,
    "N_": None,
    "tn": (1, 2),
    "Nn_": (1, 2),
    **dict.fromkeys(ERRORES),
}
PLURALES: frozenset[str] = frozenset(k for k, v in KEYWORDS.items() if v)
_Msg = str | tuple[str, str]  # a text, or the singular and plural of a text with a count
_Found = tuple[int, str, _Msg, list[str]]  # Babel's (lineno, function, message, comments)


def _literal(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _calls(tree: ast.AST, keywords: Collection[str], line: int = 1) -> list[_Found]:
    """Literal first arguments of calls named like a keyword. ast, unlike Babel's tokenizer
    before Python 3.12, sees the calls inside f-strings, where most of the app's texts are."""
    found: list[tuple[int, int, str, _Msg]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if not isinstance(name, str) or name not in keywords:
            continue
        forms = [_literal(a) for a in node.args[: 2 if name in PLURALES else 1]]
        if all(forms) and len(forms) == (2 if name in PLURALES else 1):
            msg: _Msg = (forms[0], forms[1]) if len(forms) == 2 else forms[0]  # type: ignore[assignment]  # all(): str
            found.append((node.lineno + line - 1, node.col_offset, name, msg))
    return [(lineno, name, msg, []) for lineno, _col, name, msg in sorted(found, key=lambda f: (f[0], f[1]))]


def extract_py(
    fileobj: IO[bytes], keywords: Collection[str], comment_tags: Collection[str], options: Mapping[str, Any]
) -> list[_Found]:
    """A Babel extraction method for Python files."""
    return _calls(ast.parse(fileobj.read().decode("utf-8")), keywords)


def _parse_kv_line(code: str) -> ast.AST | None:
    # "text: app.t('x')" is itself Python (an annotated name); "size_hint: None, None" and
    # rule headers ("<Raiz>:") are not, but what follows their colon is.
    for candidate in (code, code.partition(":")[2].strip()):
        try:
            return ast.parse(candidate)
        except SyntaxError:
            continue
    return None


def extract_kv(
    fileobj: IO[bytes], keywords: Collection[str], comment_tags: Collection[str], options: Mapping[str, Any]
) -> list[_Found]:
    """A Babel extraction method for Kivy kv files, line by line. A line with a translation
    call that does not parse (a value split over lines) is an error, not a missed string."""
    names = "|".join(map(re.escape, keywords))
    call = re.compile(rf"\b(?:{names})\(")
    found: list[_Found] = []
    for lineno, raw in enumerate(fileobj.read().decode("utf-8").splitlines(), 1):
        code = raw.strip()
        if not code or code.startswith("#"):
            continue
        tree = _parse_kv_line(code)
        if tree is None and call.search(code):
            name = getattr(fileobj, "name", "<kv>")
            raise SyntaxError(f"{name}:{lineno}: put this translated text on one line: {code[:60]}")
        if tree is not None:
            found += _calls(tree, keywords, lineno)
    return found


_QUOTED = r"""(?:'([^'\\]*)'|"([^"\\]*)")"""
_HTML_CALL = re.compile(rf"\b(?:t|_)\(\s*{_QUOTED}")  # the tournament's pages call it _
_HTML_PLURAL = re.compile(rf"\btn\(\s*{_QUOTED}\s*,\s*{_QUOTED}")


def extract_html(
    fileobj: IO[bytes], keywords: Collection[str], comment_tags: Collection[str], options: Mapping[str, Any]
) -> list[_Found]:
    """A Babel extraction method for the pages' Jinja templates: ``t('literal')`` calls."""
    found: list[_Found] = []
    for lineno, raw in enumerate(fileobj.read().decode("utf-8").splitlines(), 1):
        for m in _HTML_CALL.finditer(raw):
            found.append((lineno, "t", m.group(1) if m.group(1) is not None else m.group(2), []))
        for m in _HTML_PLURAL.finditer(raw):
            one, many = (a if a is not None else b for a, b in (m.group(1, 2), m.group(3, 4)))
            found.append((lineno, "tn", (one, many), []))
    return found


METHODS = [("i18n/**", "ignore"), ("**.py", extract_py), ("**.kv", extract_kv), ("**.html", extract_html)]


def template(roots: Collection[Path] = ROOTS) -> Catalog:
    """Every msgid the app uses, with where, in first-seen order (the .pot, kept in memory)."""
    cat = Catalog(domain=DOMAIN, project="musmesa", fuzzy=False)
    for root in roots:
        if not root.is_dir():
            continue
        for filename, lineno, msgid, _comments, context in extract_from_dir(root, METHODS, keywords=KEYWORDS):  # type: ignore[arg-type]  # takes callables too
            where = f"{root.name}/{filename}:{lineno}"
            old = cat.get(msgid[0] if isinstance(msgid, tuple) else msgid, context=context)
            if old is not None and isinstance(old.id, tuple) != isinstance(msgid, tuple):
                # one msgid cannot be both: gettext would find only one of them
                raise ValueError(f"{where}: {msgid!r} is used both with and without a count (tn): reword one")
            cat.add(msgid, None, [(f"{root.name}/{filename}", lineno)], context=context)
    return cat


def msgids(roots: Collection[Path] = ROOTS) -> list[str]:
    """The texts without a count (a text with a count is in :func:`plurales`)."""
    return [m.id for m in template(roots) if isinstance(m.id, str) and m.id]


def plurales(roots: Collection[Path] = ROOTS) -> list[tuple[str, str]]:
    """The singular and plural of every text with a count (tn, Nn_)."""
    return [(m.id[0], m.id[1]) for m in template(roots) if isinstance(m.id, tuple)]


def read(idioma: str) -> Catalog:
    with po_path(idioma).open("rb") as f:
        return read_po(f, locale=idioma, domain=DOMAIN)


def refresh(idioma: str, tmpl: Catalog) -> Catalog:
    """The language's catalogue brought up to the template (a new one if it has none)."""
    cat = read(idioma) if po_path(idioma).exists() else Catalog(locale=idioma, domain=DOMAIN)
    cat.update(tmpl, update_creation_date=False)
    # A fixed header, so that the files change only when the texts do.
    cat.header_comment = f"# musmesa: {IDIOMAS[idioma]}. The msgids are Spanish, the source language."
    cat.project, cat.version, cat.msgid_bugs_address = "musmesa", "app", ""
    cat.last_translator, cat.language_team = "", IDIOMAS[idioma]
    if not isinstance(cat.revision_date, datetime):  # Babel's placeholder
        cat.revision_date = cat.creation_date
    return cat


def compile_mo(cat: Catalog) -> bytes:
    buf = BytesIO()
    write_mo(buf, cat)  # fuzzy entries stay out, so the app shows Spanish until they are confirmed
    return buf.getvalue()


def write(idioma: str, cat: Catalog) -> None:
    buf = BytesIO()
    # File names without line numbers: the .po changes only when texts do.
    write_po(buf, cat, ignore_obsolete=True, include_lineno=False)
    po_path(idioma).write_bytes(buf.getvalue())
    mo_path(idioma).write_bytes(compile_mo(cat))


def untranslated(cat: Catalog) -> list[str]:
    """The msgids (a plural's singular) still without a translation, or with a form missing."""
    out = []
    for m in cat:
        if not m.id:
            continue
        forms = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
        if m.fuzzy or not all(forms) or len(forms) < (cat.num_plurals if m.pluralizable else 1):
            out.append(str(m.id[0] if isinstance(m.id, (tuple, list)) else m.id))
    return out


def main() -> None:
    tmpl = template()
    total = len(tmpl)
    for idioma in IDIOMAS:
        if idioma == SOURCE:
            continue
        cat = refresh(idioma, tmpl)
        write(idioma, cat)
        missing = untranslated(cat)
        print(f"{po_path(idioma).relative_to(REPO)}: {total - len(missing)}/{total} translated")
        for msgid in missing:
            print(f"  missing: {msgid!r}")


if __name__ == "__main__":
    main()
