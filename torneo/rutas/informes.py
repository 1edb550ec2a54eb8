"""Referees' reports: a hash-chained log, verified, its findings stored as incidents. The login
is checked before the body (up to 4 MiB) is read."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from torneo import servicio
from torneo.dependencias import CuentaActual, Servidor, cuerpo, documentar
from torneo.modelos import LIMITE_INFORME, InformeIn, InformeOut
from torneo.rutas import ERRORES

router = APIRouter(prefix="/api/torneos/{torneo_id}/informes", tags=["informes"], responses=ERRORES)


@router.post("", response_model=InformeOut, status_code=201, openapi_extra=documentar(InformeIn))
async def subir(
    torneo_id: int,
    srv: Servidor,
    cuenta: CuentaActual,
    body: Annotated[InformeIn, Depends(cuerpo(InformeIn, LIMITE_INFORME))],
) -> Any:
    def run(s: Any) -> Any:
        t = servicio.torneo_de(s, torneo_id, cuenta)
        inf = servicio.subir_informe(s, t, cuenta, body.mesa, body.registro, body.clave, body.sello)
        return InformeOut(id=inf.id, sello=inf.sello)

    return await srv.en_hilo(run)
