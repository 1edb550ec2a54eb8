"""The README's Python example runs and prints what the README shows; CONTRIBUTING.md quotes
the architecture test's import rules as they are; the links of the front pages lead to files
that exist."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# the pages written for readers of the repository, whose links and named files must exist
FRONT_PAGES = (
    "README.md",
    "CONTRIBUTING.md",
    "docs/scoring.md",
    "docs/commands.md",
    "docs/status.md",
    "docs/measurements.md",
    "docs/limitations.md",
)
_BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
# a path in backticks: folders and a file name with one of the project's extensions, no placeholder
_NAMED_FILE = re.compile(r"`((?:[\w.-]+/)+[\w.-]+\.(?:md|py|toml|txt|json|jpg|yaml|po|mo))`")


def _blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in _BLOCK.finditer(text)]


def _example() -> tuple[str, str]:
    """The README's first python block and the text block right after it (what it prints)."""
    blocks = _blocks(README.read_text(encoding="utf-8"))
    for (lang, code), (next_lang, shown) in itertools.pairwise(blocks):
        if lang == "python":
            assert next_lang == "text", "the README's python example is followed by what it prints"
            return code, shown
    raise AssertionError("README.md has no python block")


def test_the_readme_example_prints_what_the_readme_shows(tmp_path: Path) -> None:
    code, shown = _example()
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    # run as a reader would, from outside the repository, with the installed package
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown


def test_the_example_finder_reads_fenced_blocks() -> None:
    text = "intro\n```python\nprint(1)\n```\nthen\n```text\n1\n```\n"
    assert _blocks(text) == [("python", "print(1)\n"), ("text", "1\n")]


def test_contributing_quotes_the_import_rules_as_the_architecture_test_has_them() -> None:
    from tests.test_architecture import ALLOWED

    quoted = [
        code for lang, code in _blocks((ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")) if lang == "python"
    ]
    assert len(quoted) == 1 and quoted[0].startswith("ALLOWED = {"), "CONTRIBUTING.md quotes ALLOWED in one block"
    namespace: dict[str, object] = {}
    exec(quoted[0], namespace)  # our own file: a dict of sets, as the test writes it
    assert namespace["ALLOWED"] == ALLOWED, "copy tests/test_architecture.py's ALLOWED into CONTRIBUTING.md"


@pytest.mark.parametrize("page", FRONT_PAGES)
def test_every_link_and_named_file_of_a_front_page_exists(page: str) -> None:
    path = ROOT / page
    text = path.read_text(encoding="utf-8")
    linked = [(path.parent / target).resolve() for target in _LINK.findall(text) if "://" not in target]
    named = [ROOT / name for name in _NAMED_FILE.findall(text)]
    missing = sorted({str(p.relative_to(ROOT)) for p in linked + named if not p.exists()})
    assert not missing, f"{page} names files that do not exist: {missing}"


def test_the_link_check_sees_links_and_named_files() -> None:
    text = "[a](docs/web.md), [b](https://example.org), `scoring/rules.py`, `<datos>/x`"
    assert _LINK.findall(text) == ["docs/web.md", "https://example.org"]
    assert _NAMED_FILE.findall(text) == ["scoring/rules.py"]
