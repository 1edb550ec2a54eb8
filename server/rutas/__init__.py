"""The routes, one APIRouter per resource; they alone turn the services' errors into HTTP
(server.handlers). The partida on the phones: its API (partidas), the photos (leer), the
players' deck (baraja), its pages (paginas) and a tournament table from a phone (mesa_torneo).
The tournament: the login (sesion), tournaments (torneos), referees' reports (informes), the
tables' tablets (mesa), the organiser's pages (paginas_torneo) and the public ones (vistas)."""

from __future__ import annotations

from typing import Any, Final

from server.esquemas import ErrorOut

# every error is one line in {"error": ...}: documented once for all routes
ERRORES: Final[dict[int | str, dict[str, Any]]] = {
    code: {"model": ErrorOut} for code in (401, 403, 404, 409, 413, 422, 429)
}
