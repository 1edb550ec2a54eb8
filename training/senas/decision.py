"""Fit the learned decision of the señas with people held out, compare it with the hand rules,
and write the one that ships (:mod:`training.senas.modelo` says how it is fitted and chosen).

    python -m training.senas.decision                 # fit, compare held out, write gestures/decision.json
    python -m training.senas.decision --no-escribir   # only the comparison
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from gestures.decision import RUTA, Decision, desde_dict
from training.senas.evaluate import EvaluationError, default_folders, evaluate, format_decision
from training.senas.modelo import escribir


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.senas.decision",
        description="Ajusta la decisión aprendida de las señas con personas fuera de muestra.",
    )
    parser.add_argument("carpetas", nargs="*", type=Path, metavar="CARPETA")
    parser.add_argument("--cache", type=Path, default=None, help="carpeta de las grabaciones de los clips")
    parser.add_argument("--no-escribir", action="store_true", help="solo la comparación; no escribe el modelo")
    parser.add_argument("--salida", type=Path, default=RUTA, help=f"dónde escribir el modelo (por defecto {RUTA})")
    args = parser.parse_args(argv)
    folders = args.carpetas or default_folders()
    if not folders:
        print("decision: no hay clips etiquetados (ni senas, senas-mas ni senas-lp)", file=sys.stderr)
        return 2
    try:
        # in sample the rules alone: the file being replaced may be for other inputs
        report = evaluate(folders, log=sys.stderr, cache=args.cache, fuera_de_muestra=True, decision=Decision.ninguna())
    except EvaluationError as exc:
        print(f"decision: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(format_decision(report))
    d = report["decision"]
    if not args.no_escribir and d["modelo"] is not None:
        model = desde_dict(d["modelo"])
        escribir(model, d["archivo"], args.salida)
        print(f"escrito {args.salida}: decide {', '.join(model.gestos) or 'nada (las reglas)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
