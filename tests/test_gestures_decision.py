"""The learned decision as gestures/ runs it: the shipped file read with numpy only and refused
when stale, the probability it computes, and the inputs it builds frame by frame."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gestures
from gestures.context import SPEECH_FAKES, Veda
from gestures.decision import (
    ENTRADAS,
    RUTA,
    SOLO_EN,
    Contexto,
    Decision,
    DecisionError,
    cargar,
    de_fabrica,
    desde_dict,
    firma,
)
from gestures.events import TIEMPOS
from gestures.scorer import Scorer
from gestures.types import GESTOS

N = len(ENTRADAS)
COL = {name: i for i, name in enumerate(ENTRADAS)}
ROW = {g: i for i, g in enumerate(GESTOS)}


def test_the_shipped_decision_loads_and_says_what_it_decides() -> None:
    doc = json.loads(RUTA.read_text(encoding="utf-8"))
    d = cargar()
    assert d.gestos == tuple(doc["gestos"]) and set(d.gestos) <= set(GESTOS)
    assert de_fabrica().gestos == d.gestos
    # it says how it was fitted and what it measured held out, for both calibrations
    assert doc["ajuste"]["comando"] == "python -m training.senas.decision"
    assert set(doc["fuera_de_muestra"]) == {"auto", "neutra"}


def test_gestures_never_imports_scikit_learn() -> None:
    code = (
        "import sys, gestures.recognizer, gestures.cli, gestures.decision\n"
        "gestures.decision.de_fabrica()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sklearn', 'scipy', 'training')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    for path in Path(gestures.__file__).parent.glob("*.py"):
        assert "sklearn" not in path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize(
    "change",
    [
        {"firma": "0123456789abcdef"},
        {"formato": 99},
        {"entradas": list(reversed(ENTRADAS))},
    ],
)
def test_a_stale_file_is_refused_in_one_line(tmp_path: Path, change: dict[str, object]) -> None:
    doc = {**json.loads(RUTA.read_text(encoding="utf-8")), **change}
    path = tmp_path / "decision.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(DecisionError) as err:
        cargar(path)
    msg = str(err.value)
    assert "\n" not in msg and "python -m training.senas.decision" in msg and firma() in msg


@pytest.mark.parametrize(
    "text",
    [
        "no es json",
        "[]",
        json.dumps({"formato": 1, "firma": firma(), "entradas": list(ENTRADAS)}),  # no weights
        json.dumps(
            {
                "formato": 1,
                "firma": firma(),
                "entradas": list(ENTRADAS),
                "gestos": ["silbar"],
                "media": [0.0] * N,
                "escala": [1.0] * N,
                "pesos": [0.0] * N,
                "sesgos": {},
                "entrar": {},
            }
        ),
        json.dumps(
            {
                "formato": 1,
                "firma": firma(),
                "entradas": list(ENTRADAS),
                "gestos": ["morro"],
                "media": [0.0] * (N - 1),
                "escala": [1.0] * N,
                "pesos": [0.0] * N,
                "sesgos": {},
                "entrar": {},
            }
        ),
    ],
)
def test_a_damaged_file_is_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "decision.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DecisionError):
        cargar(path)


def test_the_file_goes_round() -> None:
    d = cargar()
    again = desde_dict(json.loads(json.dumps(d.to_dict())))
    assert again.gestos == d.gestos and again.entrar == d.entrar
    assert np.allclose(again.pesos, d.pesos) and np.allclose(again.sesgos, d.sesgos)


def test_probability_is_the_logistic_of_the_weighed_inputs() -> None:
    rng = np.random.default_rng(0)
    media, escala, pesos = rng.normal(size=N), rng.uniform(0.5, 2, N), rng.normal(size=N)
    sesgos = {g: float(v) for g, v in zip(GESTOS, rng.normal(size=len(GESTOS)), strict=True)}
    d = Decision(["morro", "guino"], media, escala, pesos, sesgos)
    x = rng.uniform(0, 1, (len(GESTOS), N))
    x[ROW["guino"], COL["regla"]] = 0.0  # no cue for the wink: no wink, whatever the weights
    p = d.probabilidades(x)
    row = ROW["morro"]
    z = sesgos["morro"] + float(np.sum(pesos * (x[row] - media) / escala))
    assert p[row] == pytest.approx(1 / (1 + np.exp(-z)))
    assert p[ROW["guino"]] == 0.0
    out = d.decidir(x, dict.fromkeys(GESTOS, 0.5))
    assert out["morro"] == pytest.approx(p[row], abs=1e-4) and out["guino"] == 0.0
    assert all(out[g] == 0.5 for g in GESTOS if g not in ("morro", "guino"))  # the rules'
    # frames at once give what each frame gives
    many = d.probabilidades(np.stack([x, x]))
    assert many.shape == (2, len(GESTOS)) and np.allclose(many[1], p)


def test_no_decision_is_the_rules() -> None:
    d = Decision.ninguna()
    assert not d.quiere_entradas() and d.tiempos(TIEMPOS) == TIEMPOS
    assert d.decidir(np.zeros((len(GESTOS), N)), {"morro": 0.7}) == {"morro": 0.7}


def scores(**values: float) -> dict[str, float]:
    return {g: values.get(g, 0.0) for g in GESTOS}


def test_temporal_inputs_follow_the_rules_score() -> None:
    ctx, scorer = Contexto(), Scorer()
    seq = [0.0] * 10 + [0.2, 0.5, 0.8, 1.0, 1.0, 1.0]  # at 25 fps
    xs = [ctx.entradas(i / 25, scores(morro=v), {}, None, scorer, 0.0, Veda()) for i, v in enumerate(seq)]
    m = ROW["morro"]
    last = xs[-1][m]
    assert last[COL["regla"]] == 1.0
    # the rise over the last 0.12 s (three frames back at 25 fps): 1.0 - 0.8; at the onset 0.8 - 0.0
    assert last[COL["subida"]] == pytest.approx(0.2) and xs[12][m][COL["subida"]] == pytest.approx(0.8)
    # mean of the last 0.3 s: frames 9..15
    assert last[COL["sostenida"]] == pytest.approx(np.mean(seq[8:]))
    assert last[COL["previa"]] == pytest.approx(0.0)  # nothing before 0.3 s ago
    assert np.all(xs[-1][ROW["guino"]] == 0.0)  # other gestures scored nothing
    ctx.reset()
    again = ctx.entradas(0.0, scores(morro=1.0), {}, None, scorer, 0.0, Veda())
    assert again[m][COL["subida"]] == 0.0  # nothing before: no rise


def test_context_inputs_count_only_for_the_gestures_they_can_fake() -> None:
    x = Contexto().entradas(0.0, scores(), {}, None, Scorer(), 1.0, Veda(parpadeo=True, ojos=True, cejas=True))
    for g in GESTOS:
        assert x[ROW[g], COL["hablando"]] == float(g in SPEECH_FAKES), g
        assert x[ROW[g], COL["parpadeo"]] == float(g != "ojos_cerrados"), g
    assert set(SOLO_EN) <= set(ENTRADAS)


def test_face_context_from_the_measurements() -> None:
    from gestures.scorer import Baseline

    base = Baseline({"jawOpen": 0.05, "lip_gap": 0.02, "yaw": 0.0, "pitch": 0.0, "ear_a": 0.3, "ear_b": 0.3}, 10)
    f = {
        "jawOpen": 0.35,
        "lip_gap": 0.07,
        "yaw": 12.5,
        "pitch": 0.0,
        "ear_a": 0.3,
        "ear_b": 0.1,
        "eyeBlinkLeft": 0.0,
        "eyeBlinkRight": 0.0,
        "mouthSmileLeft": 0.0,
        "mouthSmileRight": 0.0,
    }
    x = Contexto().entradas(0.0, scores(), f, base, Scorer(), 0.0, Veda())
    row = x[ROW["morro"]]
    assert row[COL["mandibula"]] == pytest.approx(0.3)
    assert row[COL["labios_abiertos"]] == pytest.approx(0.5)
    assert row[COL["giro"]] == pytest.approx(0.5)
    # one eye shut, the other open: an asymmetry for the wink and the closed eyes' rows only
    assert x[ROW["guino"], COL["guino_asimetria"]] > 0.9 and row[COL["guino_asimetria"]] == 0.0
