"""The `mus` command line: one subcommand per job, each implemented beside its package.

argparse (standard library) is used on purpose: `mus tanteo` must run with no third-party
package installed, and each subcommand module is imported only when its command runs, so
heavy imports (ONNX Runtime, MediaPipe, Kivy, FastAPI) never slow down the others.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Protocol


class Subcommand(Protocol):
    """A subcommand's module: it adds its options to a parser and runs with what was parsed."""

    def configure(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


# Each loader imports its command's module when that command runs (lazy: the heavy or optional
# dependencies of one command never load for another, and `mus tanteo` needs none of them).
def _tanteo() -> Subcommand:
    from scoring import cli  # lazy: see above

    return cli


def _arbitro() -> Subcommand:
    from scoring import arbitro_cli  # lazy: see above

    return arbitro_cli


def _leer() -> Subcommand:
    from vision import cli_leer  # lazy: ONNX Runtime, OpenCV

    return cli_leer


def _mano() -> Subcommand:
    from vision import cli_mano  # lazy: ONNX Runtime, OpenCV

    return cli_mano


def _baraja() -> Subcommand:
    from vision import cli_baraja  # lazy: ONNX Runtime, OpenCV

    return cli_baraja


def _senas() -> Subcommand:
    from gestures import cli  # lazy: MediaPipe, OpenCV

    return cli


def _app() -> Subcommand:
    from app import launcher  # lazy: Kivy

    return launcher


def _torneo() -> Subcommand:
    from server import cli_torneo as cli  # lazy: FastAPI, SQLAlchemy

    return cli


def _servir() -> Subcommand:
    from server import cli  # lazy: FastAPI, SQLAlchemy, the card reader

    return cli


# name -> (its module's loader, one-line help)
SUBCOMMANDS: dict[str, tuple[Callable[[], Subcommand], str]] = {
    "tanteo": (_tanteo, "cuenta el tanteo de una o varias manos (registro JSON)"),
    "arbitro": (_arbitro, "comprueba las señas de un jugador contra sus cartas"),
    "leer": (_leer, "lee las cartas de una o varias fotos"),
    "mano": (_mano, "lee una foto de la mesa y cuenta el tanteo de la mano"),
    "baraja": (_baraja, "registra tu propia baraja para leerla mejor"),
    "senas": (_senas, "reconoce señas en un vídeo, una cámara o imágenes"),
    "app": (_app, "abre la aplicación de mesa (Kivy)"),
    "torneo": (
        _torneo,
        "el torneo: su servidor («mus torneo servir»), cuentas de organizador, torneos desde un JSON y copias",
    ),
    "servir": (_servir, "sirve la mesa a los teléfonos (partidas, lectura de cartas) y el torneo"),
}
# `mus torneo servir` is another name for `mus servir`: one server for the tables and the tournament
ALIAS: dict[tuple[str, str], str] = {("torneo", "servir"): "servir"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mus", description="musmesa: el compañero del mus en la mesa")
    sub = parser.add_subparsers(dest="command", metavar="ORDEN")
    for name, (_load, help_text) in SUBCOMMANDS.items():
        sub.add_parser(name, help=help_text, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in {"-h", "--help"} or argv[0] not in SUBCOMMANDS:
        parser = build_parser()
        if argv and argv[0] not in {"-h", "--help"}:
            parser.print_usage(sys.stderr)
            print(f"mus: orden desconocida: {argv[0]!r}", file=sys.stderr)
            return 2
        parser.print_help()
        return 0
    name, rest = argv[0], argv[1:]
    como = f"mus {name}"
    if rest and (name, rest[0]) in ALIAS:
        como, name, rest = f"mus {name}", ALIAS[(name, rest[0])], rest[1:]
    load, help_text = SUBCOMMANDS[name]
    try:
        module = load()
    except ImportError as exc:
        print(f"mus {name}: falta una dependencia ({exc}); instala el extra adecuado de musmesa", file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(prog=f"{como} {name}" if como != f"mus {name}" else como, description=help_text)
    module.configure(parser)
    args = parser.parse_args(rest)
    args.como = como  # the name the person typed, for the messages
    try:
        return int(module.run(args) or 0)
    except BrokenPipeError:  # `mus ... | head`: the reader left, nothing to report
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
