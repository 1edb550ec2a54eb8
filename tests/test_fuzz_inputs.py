"""Fuzzed `mus mano --lances` and `mus senas --umbrales` files: each gives its answer (exit 0)
or one clean Spanish line on stderr starting "mus" (exit 2), never a traceback.

The photo and the face are stood in for (the inputs are checked before either is read), so
each example runs in milliseconds; tests/test_vision_cli.py and tests/test_gestures_cli.py run
the real readers.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gestures import cli as senas_cli
from gestures.events import LIMITES, TIEMPOS, EventDetector
from gestures.scorer import DEFAULT_NEUTRAL, Baseline, Scorer, Umbrales
from gestures.types import GESTOS
from musmesa.cli import main
from vision import cli_mano

REPO = Path(__file__).resolve().parent.parent
MANOS = json.loads((REPO / "examples" / "mesa.json").read_text())["manos"]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# JSON of any shape, strings with lone surrogates included (json.dumps writes them as \ud800)
text = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
scalars = (
    st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.floats(allow_nan=False, allow_infinity=False) | text
)


def json_of(keys: st.SearchStrategy[str]) -> st.SearchStrategy[object]:
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys | text, inner, max_size=3),
        max_leaves=12,
    )


def damaged(doc: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """A document cut short, or with a character put in somewhere: broken JSON."""
    return st.tuples(doc, st.integers(0, 200), text).map(lambda d: d[0][: d[1]] + d[2] + d[0][d[1] :])


def as_files(docs: st.SearchStrategy[object]) -> st.SearchStrategy[str]:
    dumped = docs.map(json.dumps)
    nested = st.integers(30, 3000).map(lambda n: '{"a": ' + "[" * n + "]" * n + "}")
    return dumped | damaged(dumped) | nested | text


def run_mus(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))  # an exception here is the traceback a user would see
    return status, out.getvalue(), err.getvalue()


def assert_clean(status: int, out: str, err: str) -> None:
    assert status in (0, 2), (status, err)
    (out + err).encode("utf-8")  # a real terminal would refuse a lone surrogate
    if status == 2:
        assert err.count("\n") == 1 and err.startswith("mus"), err
        assert len(err) < 400, err  # an excerpt of the input at most
    else:
        assert out


def write(path: Path, content: str) -> None:
    path.write_bytes(content.encode("utf-8", "surrogatepass"))


# --- mus mano --lances ------------------------------------------------------------------------

LANCE = st.sampled_from(["grande", "chica", "pares", "juego", "punto"])
APUESTA = st.sampled_from(["quiero", "no_quiero", "gana", "ordago"])
lances = st.dictionaries(
    LANCE, st.just("paso") | st.dictionaries(APUESTA, scalars, max_size=2) | json_of(APUESTA), max_size=5
)
records = st.fixed_dictionaries(
    {"lances": lances | json_of(LANCE)},
    optional={
        "marcador": st.lists(st.integers(-5, 50), min_size=2, max_size=2) | json_of(text),
        "reglas": st.sampled_from(["general", "segovia", "marte"]) | json_of(text),
        "jugadores": st.lists(text, min_size=4, max_size=4) | json_of(text),
    },
)


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@FUZZ
@given(content=as_files(lances | records | json_of(LANCE)))
def test_mano_lances_files(table, monkeypatch, content):
    # the photo stands in as read: the lances are what is fuzzed
    monkeypatch.setattr(
        cli_mano, "read_one", lambda *a, **k: SimpleNamespace(hands=[m.split() for m in MANOS], warnings=[])
    )
    path = table / "lances.json"
    write(path, content)
    for flags in ([], ["--json"]):
        assert_clean(*run_mus("mano", "mesa.jpg", "--mano", "1", "--lances", str(path), *flags))


# --- mus senas --umbrales ---------------------------------------------------------------------

PAIRS = [n for n, v in vars(Umbrales()).items() if isinstance(v, tuple)]
SINGLE = [n for n, v in vars(Umbrales()).items() if not isinstance(v, tuple)]
number = st.integers(-5, 200) | st.floats(-1.0, 200.0) | st.floats(allow_nan=False)
umbral_values = st.dictionaries(
    st.sampled_from(PAIRS), st.lists(number, min_size=2, max_size=2) | scalars, max_size=4
) | st.dictionaries(st.sampled_from(SINGLE), number | scalars, max_size=3)
tiempo_values = st.dictionaries(
    st.sampled_from(sorted(TIEMPOS)),
    st.dictionaries(st.sampled_from(sorted(LIMITES)), number | scalars, max_size=3) | scalars,
    max_size=3,
)
ajustes = st.fixed_dictionaries(
    {}, optional={"umbrales": umbral_values | json_of(text), "tiempos": tiempo_values | json_of(text)}
)


class FaceOnly:
    """A recogniser that sees a neutral face in every image, and keeps what it was given."""

    def __init__(self, *args, umbrales=None, tiempos=None, **kwargs) -> None:
        self.umbrales, self.tiempos = umbrales, tiempos

    def score_image(self, image):
        return True, dict.fromkeys(GESTOS, 0.0), {}


def play(umbrales: Umbrales, tiempos) -> None:
    """Scores and events over a few frames: accepted settings must not fail mid-video."""
    rng = np.random.default_rng(0)
    scorer, detector = Scorer(umbrales), EventDetector(tiempos=tiempos)
    base = Baseline(dict(DEFAULT_NEUTRAL), frames=10, spread=dict.fromkeys(DEFAULT_NEUTRAL, 0.01))
    extra = {"scale_px": 60.0, "tongue_fill": 0.0, "tongue_dx": 0.0, "tongue_dy": 0.0}
    for i in range(20):  # the features gestures.features gives for a face, a little noisy
        feats = {k: v + float(rng.normal(0, 0.05)) for k, v in {**DEFAULT_NEUTRAL, **extra}.items()}
        scores = scorer.score(feats, base)
        detector.update(i / 10, scores.valores, scores.lados, (), scores.claros)


@pytest.fixture(scope="module")
def face_image(table) -> Path:
    path = table / "cara.png"
    cv2.imwrite(str(path), np.full((64, 64, 3), 128, np.uint8))
    return path


@FUZZ
@given(doc=ajustes | json_of(st.sampled_from(["umbrales", "tiempos"])))
def test_umbrales_validation(doc):
    try:
        umbrales, tiempos = senas_cli.parse_settings(doc)
    except KeyError as exc:
        assert "\n" not in str(exc.args[0])
        return
    except ValueError as exc:
        assert "\n" not in str(exc) and len(str(exc)) < 300
        return
    play(umbrales, tiempos)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=as_files(ajustes))
def test_umbrales_files(table, face_image, monkeypatch, content):
    monkeypatch.setattr(senas_cli, "SenaRecognizer", FaceOnly)
    path = table / "ajustes.json"
    write(path, content)
    assert_clean(*run_mus("senas", "--sin-hombros", "--umbrales", str(path), str(face_image)))
