"""Collect the translatable strings of the app and update the .po catalogues.

Strings are found where they are translated: ``t("...")`` / ``app.t('...')`` in Python and
kv files, and ``N_("...")`` for constants. Existing translations are kept; new msgids get
an empty msgstr (Spanish shows until someone translates). Run: ``python -m app.i18n.extraer``.
"""

from __future__ import annotations

import re
from pathlib import Path

from app.i18n import CARPETA, IDIOMAS, parse_po

APP = CARPETA.parent
_CALL = re.compile(r"""\b(?:t|N_)\(\s*(?P<q>['"])(?P<s>(?:\\.|(?!(?P=q)).)+)(?P=q)""")


def extraer(root: Path = APP) -> list[str]:
    """Every msgid in the app's .py and .kv files, in first-seen order."""
    seen: dict[str, None] = {}
    files = sorted(root.rglob("*.py")) + sorted(root.rglob("*.kv"))
    for path in files:
        if path.parent.name == "i18n":
            continue
        for m in _CALL.finditer(path.read_text(encoding="utf-8")):
            seen.setdefault(m.group("s").encode().decode("unicode_escape").encode(
                "latin-1").decode("utf-8"), None)
    return list(seen)


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def escribir(idioma: str, msgids: list[str]) -> Path:
    path = CARPETA / f"{idioma}.po"
    old = parse_po(path.read_text(encoding="utf-8"), str(path)) if path.exists() else {}
    lines = [f"# musmesa: {IDIOMAS[idioma]}. Source language: Spanish (msgid).",
             'msgid ""', 'msgstr ""', '"Content-Type: text/plain; charset=UTF-8\\n"',
             f'"Language: {idioma}\\n"', ""]
    for msgid in msgids:
        msgstr = msgid if idioma == "es" else old.get(msgid, "")
        lines += [f"msgid {_quote(msgid)}", f"msgstr {_quote(msgstr)}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def main() -> None:
    ids = extraer()
    for idioma in IDIOMAS:
        print(escribir(idioma, ids))
    print(f"{len(ids)} mensajes")


if __name__ == "__main__":
    main()
