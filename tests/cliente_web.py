"""A TestClient that posts as a browser on this server's own pages does (server.seguridad): its
requests that change something say they come from this server (``Origin``), and a form carries
the token the page's hidden field holds (the browser's ``musmesa_csrf`` cookie). A test that
needs a request from another site writes its own ``Origin`` or form."""

from __future__ import annotations

import secrets
from typing import Any

from fastapi.testclient import TestClient

from server.seguridad import CAMPO, COOKIE_CSRF, SEGUROS


class ClienteWeb(TestClient):
    def request(self, method: str, url: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if method.upper() not in SEGUROS:
            headers = dict(kwargs.get("headers") or {})
            if not {k.lower() for k in headers} & {"origin", "referer", "authorization"}:
                # the page's own address, as the browser sees it (HTTPS behind a proxy that says so)
                proto = {k.lower(): v for k, v in headers.items()}.get("x-forwarded-proto")
                base = self.base_url.copy_with(scheme=proto) if proto else self.base_url
                headers["Origin"] = str(base).rstrip("/")
            kwargs["headers"] = headers
            data = kwargs.get("data")
            if isinstance(data, dict) and CAMPO not in data:
                kwargs["data"] = {**data, CAMPO: self.token_csrf()}
        return super().request(method, url, **kwargs)

    def token_csrf(self) -> str:
        """The browser's form token: the cookie a page set, or one as a page would set it."""
        token = self.cookies.get(COOKIE_CSRF)
        if not token:
            token = secrets.token_urlsafe(32)
            self.cookies.set(COOKIE_CSRF, token)
        return str(token)
