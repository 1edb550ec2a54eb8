"""The one atomic write (common.files): the old file or the new, never half; a user's data
readable by its owner only."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from common import files
from common.files import write_atomic

REPO = Path(__file__).resolve().parent.parent


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".parcial"))


def test_writes_text_as_utf8_and_bytes_as_given(tmp_path):
    write_atomic(tmp_path / "a.txt", "órdago ñ\n")
    write_atomic(tmp_path / "b.bin", b"\x00\xff")
    assert (tmp_path / "a.txt").read_bytes() == "órdago ñ\n".encode()
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    assert _leftovers(tmp_path) == []


def test_replaces_the_old_content(tmp_path):
    path = tmp_path / "f.json"
    path.write_text("una versión mucho más larga que la nueva", encoding="utf-8")
    write_atomic(path, "{}")
    assert path.read_text(encoding="utf-8") == "{}"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_private_files_are_the_owners_only(tmp_path):
    old = os.umask(0)  # even with no umask at all
    try:
        write_atomic(tmp_path / "datos.json", "{}", private=True)
        write_atomic(tmp_path / "modelo.json", "{}")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "datos.json") == 0o600
    assert _mode(tmp_path / "modelo.json") == 0o666


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_shared_files_follow_the_umask_like_any_new_file(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "modelo.json", "{}")
    finally:
        os.umask(old)
    assert _mode(tmp_path / "modelo.json") == 0o640


def test_an_error_before_the_rename_keeps_the_old_file_and_leaves_nothing(tmp_path, monkeypatch):
    path = tmp_path / "partida.json"
    path.write_text("vieja", encoding="utf-8")

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_atomic(path, "nueva", private=True)
    assert path.read_text(encoding="utf-8") == "vieja"
    assert _leftovers(tmp_path) == []


def test_a_crash_before_the_rename_keeps_the_old_file(tmp_path):
    """A process killed between writing and renaming (os._exit: no cleanup runs): the old file is
    whole; the next write works despite the temporary file the crash left behind."""
    path = tmp_path / "partida.json"
    path.write_text("vieja", encoding="utf-8")
    script = (
        "import os, sys\n"
        "from common import files\n"
        "files.os.replace = lambda *a: os._exit(9)\n"
        "files.write_atomic(sys.argv[1], 'nueva' * 1000, private=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], cwd=REPO, timeout=60)
    assert done.returncode == 9
    assert path.read_text(encoding="utf-8") == "vieja"
    assert len(_leftovers(tmp_path)) == 1  # the crash's half-done file, never the target
    write_atomic(path, "nueva")
    assert path.read_text(encoding="utf-8") == "nueva"


def test_the_file_and_its_folder_are_flushed(tmp_path, monkeypatch):
    """fsync of the data before the rename, and of the folder after it (the rename itself)."""
    synced: list[tuple[str, bool]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        synced.append(("fsync", stat.S_ISDIR(os.fstat(fd).st_mode)))
        real_fsync(fd)

    def replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        synced.append(("replace", False))
        real_replace(src, dst)

    monkeypatch.setattr(files.os, "fsync", fsync)
    monkeypatch.setattr(files.os, "replace", replace)
    write_atomic(tmp_path / "f", b"x")
    assert synced == [("fsync", False), ("replace", False), ("fsync", True)]


def test_a_missing_folder_is_an_error_not_a_new_folder(tmp_path):
    with pytest.raises(FileNotFoundError):
        write_atomic(tmp_path / "no" / "f.txt", "x")
    assert not (tmp_path / "no").exists()
