"""What the browser tests share: Debian's headless Chromium driven by Selenium (nothing is
downloaded), as a phone (390x844, touch, an Android user agent) or a desktop, and a real
`mus servir` started as a person starts it. Screenshots go to $MUSMESA_CAPTURAS or a temp folder.

A test module takes the fixtures by importing them (``from tests.navegador import ...``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
TELEFONO = {"width": 390, "height": 844, "pixelRatio": 3.0, "touch": True}
ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/156.0.0.0 Mobile Safari/537.36"
)


def chromium(telefono: bool = True, idioma: str = "es-ES,es") -> Any:
    """A new headless Chromium: a phone by default, else a 1280x900 desktop. Skips the test when
    Debian's chromium and chromium-driver are not installed."""
    webdriver = pytest.importorskip("selenium.webdriver")
    if not (Path("/usr/bin/chromium").exists() and Path("/usr/bin/chromedriver").exists()):
        pytest.skip("falta Chromium de Debian (apt-get install chromium chromium-driver)")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(arg)
    if telefono:
        opts.add_experimental_option("mobileEmulation", {"deviceMetrics": TELEFONO, "userAgent": ANDROID})
    # headless Chromium ignores --lang: the Accept-Language it sends is this preference
    opts.add_experimental_option("prefs", {"intl.accept_languages": idioma})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    driver.implicitly_wait(5)
    return driver


@contextmanager
def navegador(telefono: bool = True, idioma: str = "es-ES,es") -> Iterator[Any]:
    driver = chromium(telefono, idioma)
    try:
        yield driver
    finally:
        driver.quit()


def capturas() -> Path:
    folder = Path(os.environ.get("MUSMESA_CAPTURAS") or tempfile.mkdtemp(prefix="musmesa-capturas-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def sin_scroll_lateral(driver: Any) -> int:
    """How many CSS pixels the page is wider than the viewport (0: no sideways scrolling)."""
    return int(
        driver.execute_script(
            "return Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
            " - document.documentElement.clientWidth"
        )
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Servir:
    """`mus servir` as a subprocess on the loopback over a data folder (SQLite there) or a
    PostgreSQL URL; stopped politely, or killed with SIGKILL, and started again on the same port."""

    def __init__(self, datos: Path, url: str | None = None, trabajadores: int = 1) -> None:
        self.datos, self.url, self.trabajadores = datos, url, trabajadores
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.salida = datos / "servir.log"

    def start(self) -> None:
        cmd = [
            sys.executable,
            "-m",
            "musmesa",
            "servir",
            "--host",
            "127.0.0.1",
            "--puerto",
            str(self.port),
            *(["--url", self.url] if self.url else ["--datos", str(self.datos)]),
        ]
        if self.trabajadores > 1:
            cmd += ["--trabajadores", str(self.trabajadores)]
        env = {**os.environ, "MUSMESA_DATA": str(self.datos)}
        log = self.salida.open("ab")
        self.proc = subprocess.Popen(
            cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        for _ in range(600):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(self.salida.read_text(errors="replace")[-3000:]) from None
                time.sleep(0.1)
        raise RuntimeError("mus servir did not start in 60 s")

    def stop(self, kill: bool = False) -> None:
        if self.proc is None:
            return
        with suppress(ProcessLookupError):  # it may have ended by itself
            os.killpg(self.proc.pid, 9 if kill else 15)
        self.proc.wait(20)
        self.proc = None


def reemplazada(element: Any) -> Any:
    """A WebDriverWait condition: ``element``'s page was replaced by the next one. Chromium may
    answer a question about a node of a page being torn down with an inspector error instead of
    "stale element" (seen here under load): either means the page went."""
    from selenium.common.exceptions import WebDriverException

    def cond(_driver: Any) -> bool:
        try:
            element.is_enabled()
        except WebDriverException:
            return True
        return False

    return cond
