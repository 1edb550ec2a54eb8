"""Writing a file so that a crash leaves the old file or the new one, never half of either.

>>> import tempfile
>>> from pathlib import Path
>>> path = Path(tempfile.mkdtemp()) / "notas.txt"
>>> write_atomic(path, "hola\\n")
>>> path.read_text(encoding="utf-8")
'hola\\n'
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
from pathlib import Path
from typing import Final

DATA_ENV: Final = "MUSMESA_DATA"  # the data folder, overriding the platform's (tests, a second user, a server)
PRIVATE_MODE: Final = 0o600  # a user's data (partidas, takes, backups): readable by its owner only
SHARED_MODE: Final = 0o666  # anything else: what open() would give, less the umask


def write_atomic(path: str | os.PathLike[str], data: bytes | str, *, private: bool = False) -> None:
    """Write ``data`` (str as UTF-8) to ``path``: a temporary file in the same folder, flushed to
    disk, renamed over ``path``, then the folder flushed so that the rename itself survives a
    power cut. ``private=True`` for a file that holds a user's data: created 0o600, never
    readable by others even for a moment. The folder must exist. On any error the temporary file
    is removed and ``path`` is as it was."""
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _create_beside(path, PRIVATE_MODE if private else SHARED_MODE)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(path.parent)


def _create_beside(path: Path, mode: int) -> tuple[int, Path]:
    """A new temporary file in ``path``'s folder, created with ``mode`` (the system takes the
    umask off it, as for any new file), open for writing: its descriptor and path."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.parcial")
        try:
            return os.open(tmp, flags, mode), tmp
        except FileExistsError:  # a name left by an earlier crash: draw another
            continue


def _fsync_folder(folder: Path) -> None:
    """Flush a folder's entries (the rename) to disk, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # Windows cannot open a folder
        return
    try:
        with contextlib.suppress(OSError):  # some file systems refuse fsync on a folder
            os.fsync(fd)
    finally:
        os.close(fd)


def default_data_dir() -> Path:
    """The one data folder of every front end (`mus servir`, `mus torneo`, the tablet, `mus
    leer`): ``$MUSMESA_DATA``, else the platform's per-user data folder (``%APPDATA%/musmesa``,
    ``~/Library/Application Support/musmesa``, ``$XDG_DATA_HOME/musmesa`` or
    ``~/.local/share/musmesa``). Only the path: nothing is created."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env).expanduser()
    if sys.platform.startswith("win"):
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "musmesa"
