"""The API's routes, one APIRouter per resource: the login (sesion), tournaments (torneos),
referees' reports (informes) and the tables' tablets (mesa)."""

from __future__ import annotations

from typing import Any, Final

from fastapi import Request
from fastapi.responses import JSONResponse

from scoring.inputs import excerpt
from torneo.auth import Espera
from torneo.i18n import idioma_de, mensaje
from torneo.modelos import ErrorOut

# every error is one line in {"error": ...}: documented once for all routes
ERRORES: Final[dict[int | str, dict[str, Any]]] = {
    code: {"model": ErrorOut} for code in (401, 403, 404, 409, 413, 422, 429)
}


def con_espera(exc: Espera, request: Request) -> JSONResponse:
    """A refusal that asks to wait: its line in the request's language and ``Retry-After``."""
    texto = excerpt(" ".join(mensaje(exc.mensaje, exc.params, idioma_de(request)).split()), 280)
    return JSONResponse({"error": texto}, status_code=exc.estado, headers={"Retry-After": str(exc.segundos)})
