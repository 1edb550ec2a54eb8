"""The one error hierarchy of the server: a service refuses with a :class:`ServidorError` (or a
subclass), and only the routes' handlers (server.handlers) turn it into HTTP.

An error carries a gettext msgid (Spanish, the source language of mesa.i18n's catalogues) and
the parameters that fill its ``{fields}``, its HTTP status, the extra keys of the JSON answer
and, for a refusal that asks to wait, its ``Retry-After``. Its words are chosen when it is
answered, in the request's language:

    >>> e = ServidorError("se esperaba la mano {esperada}, no la {numero}", 409, esperada=1, numero=5)
    >>> str(e), e.texto("en"), e.texto("eu")
    ('se esperaba la mano 1, no la 5', 'hand 1 was expected, not 5', '1. eskua espero zen, ez 5.a')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Self

from mesa.i18n import N_, SOURCE, t
from scoring.inputs import excerpt

LINEA: Final = 280  # the most characters of an answer's error line


class ServidorError(ValueError):
    """A refusal for the client: ``msgid`` (filled from ``params``), ``estado`` (the HTTP status),
    ``datos`` (extra keys of the JSON answer) and ``reintento`` (seconds of Retry-After)."""

    reintento: int | None = None

    def __init__(self, msgid: str, estado: int = 422, datos: Mapping[str, Any] | None = None, **params: Any) -> None:
        super().__init__(rellenar(msgid, params))
        self.msgid, self.estado, self.params, self.datos = msgid, estado, params, dict(datos or {})

    @classmethod
    def de(cls, exc: Exception, estado: int = 422) -> Self:
        """Another package's error (scoring/'s, mesa/'s) as a refusal: its msgid and fields when
        it has them (scoring.errors.ScoringError), else its Spanish line."""
        msgid, params = getattr(exc, "msgid", None), getattr(exc, "params", None)
        if isinstance(msgid, str) and msgid and isinstance(params, Mapping):
            return cls(msgid, estado, **params)
        return cls(str(exc), estado)

    def texto(self, idioma: str = SOURCE) -> str:
        """The message in ``idioma`` (Spanish, the source, by default)."""
        return traducir(self.msgid, self.params, idioma)

    def linea(self, idioma: str = SOURCE) -> str:
        """The message as an answer gives it: one line, at most :data:`LINEA` characters."""
        return excerpt(" ".join(self.texto(idioma).split()), LINEA)


def rellenar(msgid: str, params: Mapping[str, Any]) -> str:
    return msgid.format(**params) if params else msgid


def traducir(msgid: str, params: Mapping[str, Any], idioma: str) -> str:
    """A msgid in ``idioma``, filled; a field that is itself an error with a msgid (the reason
    inside another reason) is said in ``idioma`` too."""
    campos = {k: _en(v, idioma) for k, v in params.items()}
    return rellenar(t(msgid, idioma), campos)


def _en(valor: Any, idioma: str) -> Any:
    msgid, params = getattr(valor, "msgid", None), getattr(valor, "params", None)
    if isinstance(msgid, str) and msgid and isinstance(params, Mapping):
        return traducir(msgid, params, idioma)
    return valor


# -- what the rules engine says -----------------------------------------------------------------
# scoring/ stands alone (no catalogue): the messages of its errors (scoring.errors.ScoringError's
# msgid and params) that reach a player through the server are marked here for the catalogues.
FUERA: Final = (
    # scoring.inputs (the body's JSON)
    N_("{donde}: JSON anidado demasiado profundo (más de {n} niveles)"),
    N_("{donde}: demasiado grande ({n} caracteres; como mucho {maximo})"),
    N_("JSON inválido en {donde}: {motivo} (línea {linea})"),
    N_("{donde}: texto con caracteres no válidos: {texto}"),
    N_("número demasiado largo ({n} cifras)"),
    # scoring.tanteo / scoring.cards / scoring.partida (the hand record)
    N_("manos debe ser una lista de 4 manos, una por asiento"),
    N_("la carta {carta} aparece en la mano {a} y en la mano {b}"),
    N_("mano {mano}: {motivo}"),
    N_("una mano tiene {n} cartas, no {m}"),
    N_("carta repetida en la mano: {cartas}"),
    N_("lance {cual}: resultado inválido {valor}"),
    N_("lance desconocido: {lances}"),
    N_("el cuarto lance es juego o punto, no los dos"),
    N_("mano debe ser un asiento de 0 a 3, no {valor}"),
    N_("la partida ya terminó: ganó {pareja}"),
    N_("declaraciones debe ser un objeto"),
    N_("declaraciones: {motivo}"),
)
