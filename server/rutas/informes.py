"""Referees' reports: a hash-chained log, verified, its findings stored as incidents. The login
and the account's membership of the tournament are checked before the body (up to 4 MiB) is read."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from sqlalchemy.orm import Session

from server.deps import Miembro, Servidor, cuerpo, documentar
from server.esquemas import LIMITE_INFORME, InformeIn, InformeOut
from server.rutas import ERRORES
from server.servicios import torneos as servicio

router = APIRouter(prefix="/api/torneos/{torneo_id}/informes", tags=["informes"], responses=ERRORES)


@router.post("", response_model=InformeOut, status_code=201, openapi_extra=documentar(InformeIn))
async def subir(
    srv: Servidor,
    permiso: Miembro,
    body: Annotated[InformeIn, Depends(cuerpo(InformeIn, LIMITE_INFORME))],
) -> InformeOut:
    def run(s: Session) -> InformeOut:
        t = servicio.torneo_de(s, permiso.torneo_id, permiso.cuenta)
        inf = servicio.subir_informe(s, t, permiso.cuenta, body.mesa, body.registro, body.clave, body.sello)
        return InformeOut(id=inf.id, sello=inf.sello)

    out: InformeOut = await srv.en_hilo(run)
    return out
