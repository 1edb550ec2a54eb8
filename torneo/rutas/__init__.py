"""The API's routes, one APIRouter per resource: the login (sesion), tournaments (torneos),
referees' reports (informes) and the tables' tablets (mesa)."""

from __future__ import annotations

from typing import Any, Final

from torneo.modelos import ErrorOut

# every error is one line in {"error": ...}: documented once for all routes
ERRORES: Final[dict[int | str, dict[str, Any]]] = {
    code: {"model": ErrorOut} for code in (401, 403, 404, 409, 413, 422, 429)
}
