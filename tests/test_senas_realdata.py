"""The señas evaluation on real labelled clips: scoring rules on hand-made events and labels,
the threshold fit on hand-made scores, and the report on ../shared/realdata/senas, senas-mas
and senas-lp, in sample and with each person held out (run once; the first run reads every clip
through the landmarkers, a minute or two, and keeps the recordings in the cache)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gestures.events import TIEMPOS
from gestures.types import Evento
from training.senas.ajuste import Traza, events, fit
from training.senas.evaluate import (
    CALIBRACIONES,
    CARPETAS,
    Clip,
    Etiqueta,
    EvaluationError,
    EventoClip,
    clave_evento,
    default_folders,
    load_labels,
    loss,
    neutral_frame,
    score_clip,
    summarize,
)

FOLDERS = default_folders()
HAVE_CLIPS = len(FOLDERS) == len(CARPETAS)  # every shared folder: skip only without the data


# --- scoring logic ------------------------------------------------------------------------------


def test_overlap_within_eight_frames() -> None:
    labels = [Etiqueta("morro", 100, 110)]
    near = score_clip(labels, [EventoClip("morro", 118, 125)])  # starts 8 after the end
    far = score_clip(labels, [EventoClip("morro", 119, 125)])  # 9 after
    before = score_clip(labels, [EventoClip("morro", 80, 92)])  # ends 8 before the start
    assert near.encontradas == {0: 0} and near.falsos == {}
    assert far.encontradas == {} and far.falsos == {0: "sin_etiqueta"}
    assert before.encontradas == {0: 0}


def test_wrong_gesture_is_false_and_not_found() -> None:
    labels = [Etiqueta("morro", 10, 20), Etiqueta("otro", 30, 60), Etiqueta("neutro", 61, 90)]
    p = score_clip(
        labels, [EventoClip("labios_lado", 12, 18), EventoClip("cejas_arriba", 35, 50), EventoClip("morro", 70, 80)]
    )
    assert p.encontradas == {}
    assert p.falsos == {0: "morro", 1: "otro", 2: "neutro"}


def test_ambiguous_labels_neither_required_nor_wrong() -> None:
    labels = [Etiqueta("cejas_arriba?", 10, 30), Etiqueta("morro_abierto", 50, 60), Etiqueta("ojos_cerrados?", 80, 90)]
    assert not any(lab.requerida for lab in labels)
    p = score_clip(labels, [EventoClip("cejas_arriba", 12, 20), EventoClip("morro", 52, 58)])
    assert p.encontradas == {} and p.falsos == {}
    # an ambiguous label of another gesture does not excuse an event
    q = score_clip(labels, [EventoClip("lengua_fuera", 52, 58)])
    assert q.falsos == {0: "morro_abierto"}


def test_event_on_a_blink_is_false_even_inside_its_label() -> None:
    labels = [Etiqueta("ojos_cerrados?", 10, 40), Etiqueta("parpadeo", 20, 24), Etiqueta("parpadeo", 60, 63)]
    p = score_clip(
        labels,
        [
            EventoClip("ojos_cerrados", 18, 30),
            EventoClip("guino_derecho", 61, 65),
            EventoClip("guino_derecho", 66, 70),
            EventoClip("guino_derecho", 72, 75),
        ],
    )
    # sharing a frame with a blink makes it false; a false event near one is put down to it
    assert p.en_parpadeo == {0, 1, 2}
    assert p.falsos == {0: "parpadeo", 1: "parpadeo", 2: "parpadeo", 3: "sin_etiqueta"}


def test_a_wink_just_before_a_blink_is_not_false() -> None:
    labels = [Etiqueta("guino_izquierdo", 33, 46), Etiqueta("parpadeo", 48, 52)]
    p = score_clip(labels, [EventoClip("guino_izquierdo", 33, 47)])
    assert p.encontradas == {0: 0} and p.falsos == {} and p.en_parpadeo == set()
    q = score_clip(labels, [EventoClip("guino_izquierdo", 33, 48)])
    assert q.encontradas == {0: 0} and q.falsos == {0: "parpadeo"}


def test_wink_sides_as_the_viewer_sees_them() -> None:
    # the recognizer names the player's eye: the viewer's right is the player's left
    assert clave_evento(Evento("guino", "izquierdo", 0.0, 0.5, 0.9)) == "guino_derecho"
    assert clave_evento(Evento("guino", "derecho", 0.0, 0.5, 0.9)) == "guino_izquierdo"
    assert clave_evento(Evento("ojos_cerrados", None, 0.0, 1.0, 0.9)) == "ojos_cerrados"
    labels = [Etiqueta("guino_derecho", 10, 20), Etiqueta("guino_izquierdo", 40, 50)]
    right = EventoClip("guino_derecho", 11, 19)
    wrong = EventoClip("guino_derecho", 41, 49)  # the other eye
    p = score_clip(labels, [right, wrong])
    assert p.encontradas == {0: 0}
    assert p.falsos == {1: "guino_izquierdo"}
    assert score_clip([Etiqueta("guino", 10, 20)], [wrong, right]).falsos == {0: "sin_etiqueta"}


def test_labels_inside_auto_calibration_counted_apart() -> None:
    labels = [Etiqueta("guino_derecho", 6, 20), Etiqueta("morro", 59, 70), Etiqueta("morro", 61, 70)]
    p = score_clip(labels, [EventoClip("morro", 62, 68)], calibrando_hasta=59)
    assert p.en_calibracion == {0, 1}
    assert p.encontradas == {2: 0}


def test_summary_arithmetic() -> None:
    a = Clip(
        "a.mp4",
        30.0,
        900,
        [
            Etiqueta("morro", 100, 120),
            Etiqueta("morro", 300, 320),
            Etiqueta("parpadeo", 500, 503),
            Etiqueta("otro", 600, 700),
        ],
    )
    b = Clip("b.mp4", 25.0, 750, [Etiqueta("labios_lado", 50, 60)])
    evs = {
        "a.mp4": [
            EventoClip("morro", 106, 118),
            EventoClip("guino_izquierdo", 500, 504),
            EventoClip("cejas_arriba", 610, 650),
            EventoClip("cejas_arriba", 660, 690),
        ],
        "b.mp4": [EventoClip("labios_lado", 45, 60)],
    }
    scores = {k: score_clip(c.etiquetas, evs[k]) for k, c in (("a.mp4", a), ("b.mp4", b))}
    s = summarize([a, b], evs, scores)
    assert s["minutos"] == pytest.approx(1.0)  # 30 s + 30 s
    g = s["gestos"]
    assert (g["morro"]["etiquetadas"], g["morro"]["encontradas"]) == (2, 1)
    assert g["morro"]["retraso_mediana_s"] == pytest.approx(0.2)
    assert g["labios_lado"]["retraso_mediana_s"] == pytest.approx(-0.2)
    assert g["cejas_arriba"]["falsos"] == 2 and g["cejas_arriba"]["confusion"] == {"otro": 2}
    assert g["guino_izquierdo"]["en_parpadeo"] == 1
    t = g["total"]
    assert (t["etiquetadas"], t["encontradas"], t["falsos"], t["eventos"]) == (3, 2, 3, 5)
    assert t["falsos_por_minuto"] == pytest.approx(3.0)
    assert t["confusion"] == {"otro": 2, "parpadeo": 1}
    assert g["morro"]["precision"] == 1.0 and g["morro"]["recall"] == 0.5
    assert g["cejas_arriba"]["precision"] == 0.0 and g["cejas_arriba"]["recall"] is None
    assert t["precision"] == pytest.approx(0.4) and t["recall"] == pytest.approx(2 / 3, abs=1e-3)
    # false events per minute of each kind of negative footage
    assert s["negativos"]["otro"] == {
        "segundos": pytest.approx(101 / 30, abs=0.05),
        "falsos": 2,
        "falsos_por_minuto": pytest.approx(35.64, abs=0.5),
    }
    assert s["negativos"]["parpadeo"]["falsos"] == 1 and s["negativos"]["neutro"]["falsos"] == 0


def test_neutral_frame_is_middle_of_longest_neutro() -> None:
    clip = Clip(
        "x.mp4",
        25.0,
        300,
        [
            Etiqueta("neutro", 0, 10),
            Etiqueta("otro", 11, 50),
            Etiqueta("neutro", 51, 150),
            Etiqueta("neutro", 160, 200),
        ],
    )
    assert neutral_frame(clip) == 100
    with pytest.raises(EvaluationError):
        neutral_frame(Clip("y.mp4", 25.0, 10, [Etiqueta("otro", 0, 9)]))


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"clips": {}},
        {"clips": {"a.mp4": {"fps": 0, "frames": 10, "events": []}}},
        {"clips": {"a.mp4": {"fps": 25, "frames": 10, "events": [["morro", 5, 12, ""]]}}},
        {"clips": {"a.mp4": {"fps": 25, "frames": 10, "events": [["morro", 5]]}}},
        {"clips": {"a.mp4": {"fps": 25, "frames": True, "events": []}}},
    ],
)
def test_bad_labels_give_one_clear_error(tmp_path: Path, doc: object) -> None:
    (tmp_path / "labels.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(EvaluationError):
        load_labels(tmp_path)


# --- on the shared real clips ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    from training.senas.evaluate import evaluate

    return evaluate(FOLDERS, fuera_de_muestra=True)


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
@pytest.mark.parametrize("mode", ["calibraciones", "fuera_de_muestra"])
def test_real_clips_report_is_consistent(report: dict[str, Any], mode: str) -> None:
    raw = {
        name: clip
        for folder in FOLDERS
        for name, clip in json.loads((folder / "labels.json").read_text(encoding="utf-8"))["clips"].items()
    }
    minutes = sum(c["frames"] / c["fps"] for c in raw.values()) / 60
    required = [e for c in raw.values() for e in c["events"] if Etiqueta(e[0], e[1], e[2]).requerida]
    assert report["clips"] == len(raw)
    assert report["fotogramas"] == sum(c["frames"] for c in raw.values())
    assert set(report[mode]) == set(CALIBRACIONES)
    for cal, s in report[mode].items():
        assert s["minutos"] == pytest.approx(minutes, abs=1e-3)
        gestos = s["gestos"]
        rows = {k: r for k, r in gestos.items() if k != "total"}
        total = gestos["total"]
        assert total["etiquetadas"] + total["en_calibracion"] == len(required)
        for key in ("etiquetadas", "encontradas", "en_calibracion", "eventos", "falsos", "en_parpadeo"):
            assert total[key] == sum(r[key] for r in rows.values()), (cal, key)
        events = [e for c in s["clips"].values() for e in c["eventos"]]
        assert total["eventos"] == len(events)
        assert total["falsos"] == sum(e["falso"] for e in events)
        for r in gestos.values():
            assert 0 <= r["encontradas"] <= r["etiquetadas"]
            assert r["en_parpadeo"] <= r["falsos"] <= r["eventos"]
            assert sum(r["confusion"].values()) == r["falsos"]
            assert r["confusion"].get("parpadeo", 0) == r["en_parpadeo"]
            assert r["falsos_por_minuto"] == pytest.approx(r["falsos"] / minutes, abs=0.006)
            assert (r["retraso_mediana_s"] is None) == (r["encontradas"] == 0)
            if r["retraso_mediana_s"] is not None:
                assert math.isfinite(r["retraso_mediana_s"])
        not_found = sum(len(c["no_encontradas"]) for c in s["clips"].values())
        assert not_found == total["etiquetadas"] - total["encontradas"]
    # the neutral frame calibrates beforehand: nothing starts inside a calibration
    assert report[mode]["neutra"]["gestos"]["total"]["en_calibracion"] == 0
    auto_clips = report[mode]["auto"]["clips"].values()
    assert all(c["calibrando_hasta"] >= 0 for c in auto_clips)


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
def test_real_clips_text_report(report: dict[str, Any]) -> None:
    from training.senas.evaluate import format_report

    text = format_report(report)
    for cal in CALIBRACIONES:
        assert f"calibración {cal}" in text
    assert text.count("\ntotal ") == 2 * len(CALIBRACIONES)  # in sample and held out
    assert "fuera de muestra" in text


def test_command_fails_in_one_line_without_clips(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.senas.evaluate import main

    doc = {"clips": {"falta.mp4": {"fps": 25, "frames": 10, "events": [["neutro", 0, 9, ""]]}}}
    (tmp_path / "labels.json").write_text(json.dumps(doc), encoding="utf-8")
    assert main([str(tmp_path), "--json"]) == 2
    err = capsys.readouterr().err
    assert "falta.mp4" in err and err.count("\n") == 1
    assert main([str(tmp_path / "nada")]) == 2


# What the recognizer gives on the three shared folders (16 people, 18 clips, 143 s), measured
# with `python -m training.senas.evaluate --fuera-de-muestra`: (found at least, of labelled,
# false events at most, of them on a blink at most). Held out: each person scored with what was
# fitted on the others (the event thresholds, the learned decision, which gestures it decides).
# Issue 52's targets (90 % found per kind, at most one false event a minute, none on a blink)
# are met for false events (none) and for winks, closed eyes, pouts and lips aside, not for
# the rest: senas-lp's bitten lip, a worried brow raise and a 0.2 s tongue are missed. The
# winks out of both eyes narrowing, the 0.5 s closure and lips aside found in senas-lp d1, d7
# and d8 were found by rules set looking at those clips. These guard what is reached.
MEDIDO = {"auto": (9, 12, 0, 0), "neutra": (18, 21, 0, 0)}
# Held out, each way of deciding alone: the hand rules, and the learned decision for every
# gesture with labelled señas (it misses the lips aside and fires once; the mix that ships
# keeps the rules).
MEDIDO_POR_DECISION = {
    "reglas_fuera_de_muestra": {"auto": (9, 12, 0, 0), "neutra": (18, 21, 0, 0)},
    "aprendida_fuera_de_muestra": {"auto": (5, 12, 1, 0), "neutra": (14, 21, 1, 0)},
}


def _check(total: dict[str, Any], bound: tuple[int, int, int, int], what: object) -> None:
    found, labelled, false, on_blinks = bound
    assert total["etiquetadas"] == labelled, (what, total)
    assert total["encontradas"] >= found, (what, total)
    assert total["falsos"] <= false, (what, total)
    assert total["en_parpadeo"] <= on_blinks, (what, total)


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
@pytest.mark.parametrize("mode", ["fuera_de_muestra", "calibraciones"])
def test_real_clips_do_not_regress(report: dict[str, Any], mode: str) -> None:
    for cal, bound in MEDIDO.items():
        _check(report[mode][cal]["gestos"]["total"], bound, (mode, cal))
        # a wink is never both eyes closed, nor both eyes a wink
        for g in ("guino_derecho", "guino_izquierdo", "ojos_cerrados"):
            confusion = report[mode][cal]["gestos"].get(g, {}).get("confusion", {})
            assert not {"guino_derecho", "guino_izquierdo", "ojos_cerrados"} & set(confusion), g


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
@pytest.mark.parametrize("mode", list(MEDIDO_POR_DECISION))
def test_rules_and_learned_decision_held_out(report: dict[str, Any], mode: str) -> None:
    for cal, bound in MEDIDO_POR_DECISION[mode].items():
        _check(report[mode][cal]["gestos"]["total"], bound, (mode, cal))


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
def test_shipped_decision_is_the_fit_on_every_clip(report: dict[str, Any]) -> None:
    """gestures/decision.json is what the fit on both folders gives now (a change to the inputs,
    the clips or the fit that is not written out fails here), and the gestures it decides are
    those the held-out comparison chose."""
    from gestures.decision import RUTA

    shipped = json.loads(RUTA.read_text(encoding="utf-8"))
    fitted = report["decision"]["modelo"]
    assert fitted is not None
    assert shipped["gestos"] == fitted["gestos"] == report["decision"]["elegidos"]
    assert shipped["entrar"] == pytest.approx(fitted["entrar"])
    for key in ("media", "escala", "pesos"):
        assert np.allclose(shipped[key], fitted[key], atol=1e-4), key
    assert shipped["sesgos"] == pytest.approx(fitted["sesgos"], abs=1e-4)
    assert shipped["fuera_de_muestra"] == report["decision"]["archivo"]["fuera_de_muestra"]
    # the in-sample report ran the shipped decision
    assert report["decision_de_fabrica"] == shipped["gestos"]


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
def test_lids_lowered_while_looking_down_are_no_closed_eyes(report: dict[str, Any]) -> None:
    """senas d3 looks down, pensive, and twice her lids come all the way down (labelled
    ``ojos_cerrados?``: closed or downcast, the labeller could not tell): calibrated on her neutral
    frame, the gaze watch sees her open eyes look down first and makes no closed eyes of either
    (the rules alone made both); every labelled closed eyes is still found (the bounds above).
    Set looking at this clip, the only one that looks down."""
    events = report["calibraciones"]["neutra"]["clips"]["d3.mp4"]["eventos"]
    assert [e for e in events if e["gesto"] == "ojos_cerrados"] == []
    for cal in CALIBRACIONES:
        row = report["calibraciones"][cal]["gestos"]["ojos_cerrados"]
        assert row["encontradas"] == row["etiquetadas"] > 0, cal


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
def test_the_blink_watch_sees_the_labelled_blinks(report: dict[str, Any]) -> None:
    """37 of the 38 labelled blinks (one partial blink is not), barring few frames elsewhere."""
    b = report["calibraciones"]["neutra"]["parpadeos"]
    assert b["etiquetados"] == 38 and b["vistos"] >= 37, b
    assert b["fotogramas_vetados_lejos"] <= 0.02 * b["fotogramas_lejos"], b


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
def test_shipped_thresholds_are_the_fit_on_every_clip(report: dict[str, Any]) -> None:
    """What ships is what the fit on both folders gives: the in-sample figure is the fit's."""
    assert report["ajuste_con_todos"] == {}


@pytest.mark.skipif(not HAVE_CLIPS, reason="no real clips")
def test_a_replay_gives_what_a_live_run_gives() -> None:
    """The evaluation replays recorded landmarks; on a real clip that is the live run, frame
    by frame (d0: a grin and a blink, scores but no event)."""
    from gestures.decision import de_fabrica
    from gestures.recognizer import SenaRecognizer
    from gestures.sources import VideoSource
    from gestures.types import GESTOS
    from training.senas.ajuste import decidida, trace
    from training.senas.grabacion import measurements, record, replay

    path = FOLDERS[0] / "d0.mp4"
    rec = SenaRecognizer("general")
    live = [rec.process(frame, t).puntuaciones for t, frame in VideoSource(path)]
    live_events = rec.finish()
    grab = record(path, None)
    assert replay(grab, "auto").eventos == live_events
    # the rules' scores and the decision's inputs, decided afterwards as the recognizer does
    recorded = decidida(trace(grab, "auto", measurements(grab)), de_fabrica()).valores
    assert recorded.shape == (78, len(GESTOS)) and recorded.max() > 0.3
    assert np.allclose(recorded, [[s[g] for g in GESTOS] for s in live], atol=1e-9)


# --- fitting the event thresholds, on hand-made scores --------------------------------------------


def _trace(scores: list[float], gesto: str = "morro") -> Traza:
    from gestures.types import GESTOS

    vals = np.zeros((len(scores), len(GESTOS)))
    vals[:, GESTOS.index(gesto)] = scores
    return Traza(np.arange(len(scores)) / 25.0, vals, [{} for _ in scores], [frozenset() for _ in scores], -1, None)


def test_events_from_recorded_scores() -> None:
    tr = _trace([0.0] * 10 + [0.9] * 10 + [0.0] * 10)  # 0.4 s held
    evs = events(tr, TIEMPOS)
    assert [(e.gesto, e.inicio, e.fin) for e in evs] == [("morro", 0.4, 0.76)]
    short = _trace([0.0] * 10 + [0.9] * 6 + [0.0] * 10)  # 0.24 s: under morro's minimum
    assert events(short, TIEMPOS) == []
    # a lips-aside needs one clear frame, which the trace keeps as the recognizer gave it
    aside = _trace([0.0] * 10 + [0.9] * 10 + [0.0] * 10, "labios_lado")
    assert events(aside, TIEMPOS) == []
    clear = [frozenset({"labios_lado"}) if i == 15 else frozenset() for i in range(30)]
    assert [(e.gesto, e.inicio) for e in events(replace(aside, claros=clear), TIEMPOS)] == [("labios_lado", 0.4)]


def _people(n_speech: int) -> list[tuple[Clip, Traza]]:
    """A pout held 0.56 s by one person and a syllable-long pout-like blip (0.32 s) by
    ``n_speech`` others talking."""
    pout = Clip("pout.mp4", 25.0, 30, [Etiqueta("morro", 10, 24)])
    out = [(pout, _trace([0.0] * 10 + [0.9] * 15 + [0.0] * 5))]
    for i in range(n_speech):
        talk = Clip(f"talk{i}.mp4", 25.0, 30, [Etiqueta("neutro", 0, 29)])
        out.append((talk, _trace([0.0] * 10 + [0.9] * 9 + [0.0] * 11)))
    return out


def test_fit_moves_a_threshold_only_when_several_people_say_so() -> None:
    alone = fit(_people(1), loss, lambda m: m[0].nombre)
    assert alone == TIEMPOS  # one person's blip does not move the minimum duration
    several = fit(_people(3), loss, lambda m: m[0].nombre)
    # three people's blips do, as far as keeps the held pout; the entry threshold, which
    # changes nothing here, stays
    assert several["morro"].minimo == pytest.approx(0.399) and several["morro"].entrar == 0.6
    assert {g: t for g, t in several.items() if g != "morro"} == {g: t for g, t in TIEMPOS.items() if g != "morro"}


def test_two_clips_of_one_person_are_held_out_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """senas-lp's d5 may show senas' d18: fitting without that person leaves both clips out,
    and the fit counts them as one person."""
    import training.senas.evaluate as ev
    from training.senas.etiquetas import persona

    assert persona("d5.mp4") == persona("d18.mp4") and persona("d3.mp4") == "d3.mp4"
    seen: list[tuple[list[str], set[str]]] = []

    def spy(muestras: Any, perdida: Any, quien: Any) -> dict[str, Any]:
        seen.append(([m[0].nombre for m in muestras], {quien(m) for m in muestras}))
        return dict(TIEMPOS)

    monkeypatch.setattr(ev, "fit", spy)
    tr = _trace([0.0] * 5)
    runs = [
        ev.Recorrido(Clip(n, 25.0, 5, [Etiqueta("neutro", 0, 4)]), {"neutra": tr})
        for n in ("d18.mp4", "d5.mp4", "d3.mp4")
    ]
    ev.fit_without(runs, persona("d5.mp4"))
    ev.fit_without(runs, None)
    assert seen[0] == (["d3.mp4"], {"d3.mp4"})
    assert seen[1][1] == {"d18.mp4", "d3.mp4"}  # two people, three clips


def test_closed_eyes_are_never_fitted_down_to_a_blink() -> None:
    """Four people each close their eyes for 0.6 s (labelled): a 0.47 s minimum would find them
    all, but it is under the longest closure the blink watch calls a blink, so the fit never
    tries it (0.7 s stands: closed eyes always outlast a blink)."""
    from gestures.context import BlinkSettings

    people = []
    for i in range(4):
        clip = Clip(f"eyes{i}.mp4", 25.0, 40, [Etiqueta("ojos_cerrados", 10, 24)])
        people.append((clip, _trace([0.0] * 10 + [0.9] * 15 + [0.0] * 15, "ojos_cerrados")))
    fitted = fit(people, loss, lambda m: m[0].nombre)
    assert fitted["ojos_cerrados"].minimo > BlinkSettings().longest
    assert fitted["ojos_cerrados"].minimo >= TIEMPOS["ojos_cerrados"].minimo


def test_a_recording_keeps_what_the_landmarkers_saw(tmp_path: Path) -> None:
    """Saved and read back, a recording gives the measurements of the observations it holds
    (a face with shoulders, a frame without a face)."""
    from gestures.features import combined_features
    from gestures.models import Observation
    from training.senas.grabacion import _load, _pack, _save

    marks = np.load(Path(__file__).parent / "data" / "gestures" / "astronaut_marks.npz")
    blend = dict(zip(marks["blend_names"].tolist(), marks["blend_values"].tolist(), strict=True))
    face = Observation(640, 480, marks["face"], blend, marks["matrix"], marks["pose"])
    tongue = {"tongue_area": 0.01, "red_total": 0.02, "lower_lip_red": 0.5}
    rows = [(face, tongue), (Observation(640, 480), {}), (face, tongue)]
    grab = _pack(np.array([0.0, 0.04]), (640, 480), rows)
    _save(grab, tmp_path / "g.npz")
    back = _load(tmp_path / "g.npz")
    assert back.frames == 2 and back.size == (640, 480)
    want = combined_features(face, tongue)
    got = back.features(0)
    assert set(got) == set(want)
    assert all(abs(got[k] - want[k]) < 1e-4 for k in want)  # stored as float32
    assert back.features(1) == {} and back.features(-1).keys() == want.keys()


# --- fitting the learned decision, on hand-made inputs --------------------------------------------


def _inputs(n: int, **cols: Any) -> np.ndarray:
    from gestures.decision import ENTRADAS
    from gestures.types import GESTOS

    x = np.zeros((n, len(GESTOS), len(ENTRADAS)))
    for name, value in cols.items():
        gesto, entrada = name.split("__")
        x[:, GESTOS.index(gesto), ENTRADAS.index(entrada)] = value
    return x


def test_training_rows_from_labels() -> None:
    """Positives inside a seña, its edges and a blink's closed-eye frames left out, talking a
    hard negative, and only rows where the rules score."""
    from gestures.types import GESTOS
    from training.senas.modelo import BORDE, filas

    n = 60
    clip = Clip("c.mp4", 25.0, n, [Etiqueta("morro", 20, 29), Etiqueta("parpadeo", 40, 43), Etiqueta("neutro", 0, 19)])
    x = _inputs(n, morro__regla=0.8, ojos_cerrados__regla=0.9)
    x[50:, GESTOS.index("morro"), 4] = 1.0  # hablando: talking at the end
    tr = Traza(np.arange(n) / 25.0, x[:, :, 0], [{} for _ in range(n)], [frozenset()] * n, 4, None, x)
    rows = filas(clip, tr)
    morro = rows.gesto == GESTOS.index("morro")
    assert rows.y[morro].sum() == 10 and np.allclose(rows.peso[morro & (rows.y == 1)], 0.1)
    left_out = set(range(20 - BORDE, 20)) | set(range(30, 30 + BORDE)) | set(range(5))
    assert morro.sum() == n - len(left_out)  # calibration frames 0-4 and the seña's edges out
    hard = morro & (rows.grupo == 1)
    assert hard.sum() == 4 + 10  # the blink's frames 40-43 and the talking ones 50-59
    closed = rows.gesto == GESTOS.index("ojos_cerrados")
    assert closed.sum() == n - 5 - 4 and not rows.y[closed].any()  # the blink's frames are out
    assert set(np.unique(rows.gesto)) == {GESTOS.index("morro"), GESTOS.index("ojos_cerrados")}


def test_a_decided_closed_eyes_keeps_the_gaze_veto() -> None:
    """Replayed with a decision that decides closed eyes, the frames whose lids came down from a
    downward gaze (the recognizer's GazeWatch, kept in the trace) still score 0, as live."""
    from gestures.decision import ENTRADAS, Decision
    from gestures.types import GESTOS
    from training.senas.ajuste import decidida

    n, k = 20, len(ENTRADAS)
    x = _inputs(n, ojos_cerrados__regla=0.9)
    tr = Traza(np.arange(n) / 25.0, x[:, :, 0], [{} for _ in range(n)], [frozenset()] * n, -1, None, x)
    sure = Decision(("ojos_cerrados",), np.zeros(k), np.ones(k), np.zeros(k), {"ojos_cerrados": 10.0})
    col = GESTOS.index("ojos_cerrados")
    assert (decidida(tr, sure).valores[:, col] > 0.99).all()
    abajo = np.arange(n) >= 10
    vetoed = decidida(replace(tr, abajo=abajo), sure).valores[:, col]
    assert (vetoed[abajo] == 0).all() and (vetoed[~abajo] > 0.99).all()


def test_the_fit_weighs_talking_against_a_sena() -> None:
    """Two people pout (high rule score, still mouth), two talk with the same rule score: the
    fit finds talking against the seña and the rule score for it."""
    from gestures.decision import ENTRADAS
    from training.senas.modelo import Filas, ajustar

    rng = np.random.default_rng(1)
    blocks = []
    for talking in (0.0, 0.0, 1.0, 1.0):
        x = np.zeros((40, len(ENTRADAS)))
        x[:, ENTRADAS.index("regla")] = rng.uniform(0.6, 1.0, 40)
        x[:, ENTRADAS.index("hablando")] = talking
        y = np.full(40, int(talking == 0.0))
        blocks.append(Filas(x, np.full(40, 5), y, np.full(40, 1 / 40), np.where(y == 1, 0, 1)))
    d = ajustar(blocks)
    assert d is not None
    w = dict(zip(ENTRADAS, d.pesos, strict=True))
    assert w["hablando"] < -0.5 and w["hablando"] == min(w.values())
    assert ajustar(blocks[2:]) is None  # no positive row: nothing to fit
