"""The base of every error the rules engine raises on bad input.

Each meaning has its own class in the module that raises it (a card in the wrong notation, an
unknown rule profile, a hand record that cannot be scored, a referee log that cannot be read...);
all of them are a :class:`ScoringError`, and a ``ValueError`` as they always were, so a caller may
catch one meaning or all of them at once::

    >>> from scoring.cards import NotationError, parse_hand
    >>> issubclass(NotationError, ScoringError), issubclass(ScoringError, ValueError)
    (True, True)
    >>> try:
    ...     parse_hand("12o 12o 1e 4b")
    ... except ScoringError as exc:
    ...     print(type(exc).__name__)
    NotationError
"""

from __future__ import annotations

from typing import Any


class ScoringError(ValueError):
    """Input the rules engine refuses; the message says why in one line, in Spanish.

    A message a server shows a player is raised as its template and fields (``msgid``,
    ``params``), so the server can say it in the player's language (the catalogues live outside
    the rules engine); ``str()`` is the Spanish line either way::

        >>> e = ScoringError("una mano tiene {n} cartas, no {m}", n=4, m=3)
        >>> str(e), e.msgid, e.params
        ('una mano tiene 4 cartas, no 3', 'una mano tiene {n} cartas, no {m}', {'n': 4, 'm': 3})
    """

    def __init__(self, msgid: str = "", /, **params: Any) -> None:
        super().__init__(msgid.format(**params) if params else msgid)
        self.msgid, self.params = msgid, params
