"""The `mus` command line: one subcommand per job, each implemented beside its package.

argparse (standard library) is used on purpose: `mus tanteo` must run with no third-party
package installed, and each subcommand module is imported only when its command runs, so
heavy imports (ONNX Runtime, MediaPipe, Kivy) never slow down the others.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# name -> (module, one-line help). Each module defines `configure(parser)` and `run(args) -> int`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "tanteo": ("scoring.cli", "cuenta el tanteo de una o varias manos (registro JSON)"),
    "arbitro": ("scoring.arbitro_cli", "comprueba las señas de un jugador contra sus cartas"),
    "leer": ("vision.cli_leer", "lee las cartas de una o varias fotos"),
    "mano": ("vision.cli_mano", "lee una foto de la mesa y cuenta el tanteo de la mano"),
    "baraja": ("vision.cli_baraja", "registra tu propia baraja para leerla mejor"),
    "senas": ("gestures.cli", "reconoce señas en un vídeo, una cámara o imágenes"),
    "app": ("app.launcher", "abre la aplicación de mesa (Kivy)"),
    "torneo": (
        "torneo.cli",
        "el torneo: su servidor («mus torneo servir»), cuentas de organizador, torneos desde un JSON y copias",
    ),
    "servir": ("web.cli", "sirve la mesa a los teléfonos (partidas, lectura de cartas) y el torneo"),
}
# `mus torneo servir` is another name for `mus servir`: one server for the tables and the tournament
ALIAS: dict[tuple[str, str], str] = {("torneo", "servir"): "servir"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mus", description="musmesa: el compañero del mus en la mesa")
    sub = parser.add_subparsers(dest="command", metavar="ORDEN")
    for name, (_module, help_text) in SUBCOMMANDS.items():
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
    module_name, help_text = SUBCOMMANDS[name]
    try:
        module = importlib.import_module(module_name)
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
