"""Registering the players' own deck (vision.registered_deck): grid, file, matching, and `mus baraja`."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from scoring.cards import CARD_IDS
from vision.models import CLASSIFIER_FILE, DETECTOR_FILE, models_dir
from vision.registered_deck import DeckError, RegisteredDeck
from vision.registration import grid_order

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "baraja"
SUIT_PHOTOS = [str(EXAMPLES / f"{s}.jpg") for s in ("oros", "copas", "espadas", "bastos")]
HAVE_MODELS = (models_dir() / DETECTOR_FILE).is_file() and (models_dir() / CLASSIFIER_FILE).is_file()
needs_models = pytest.mark.skipif(not HAVE_MODELS, reason="the trained models are not in models/")


@pytest.fixture(autouse=True)
def _own_data_folder(tmp_path, monkeypatch):
    """The commands read against the deck registered in the data folder: a folder of the
    test's own, never the real home's."""
    monkeypatch.setenv("MUSMESA_DATA", str(tmp_path / "datos"))


def _grid(rows=4, per_row=10, tilt=0.06, card=(60.0, 90.0), seed=0):
    """Boxes of a grid photographed a little tilted; card k of the reading order is row-major."""
    rng = np.random.default_rng(seed)
    c, s = math.cos(tilt), math.sin(tilt)
    boxes = []
    for k in range(rows * per_row):
        r, col = divmod(k, per_row)
        x, y = col * 75.0, r * 115.0
        angle = tilt + rng.normal(0, 0.03) + (math.pi if rng.random() < 0.5 else 0)
        w, h = card if rng.random() < 0.5 else card[::-1]  # either side may be "width"
        if w > h:
            angle += math.pi / 2
        boxes.append([400 + c * x - s * y, 100 + s * x + c * y, w, h, angle])
    return np.array(boxes)


def test_grid_reads_rows_top_to_bottom_left_to_right_whatever_the_box_order():
    boxes = _grid()
    perm = np.random.default_rng(1).permutation(40)
    order = grid_order(boxes[perm])
    assert perm[order].tolist() == list(range(40))


def test_one_suit_in_two_rows_of_five_or_a_row_of_ten():
    for rows, per_row in ((2, 5), (1, 10)):
        boxes = _grid(rows, per_row, seed=rows)
        perm = np.random.default_rng(2).permutation(10)
        order = grid_order(boxes[perm], ((1, 10), (2, 5)))
        assert perm[order].tolist() == list(range(10))


def test_grid_refuses_a_missing_card_a_double_box_and_uneven_rows():
    boxes = _grid()
    with pytest.raises(DeckError, match="39 cartas"):
        grid_order(boxes[:39])
    doubled = boxes.copy()
    doubled[5] = doubled[4] + [8, 0, 0, 0, 0.3]  # card 5 missed, card 4 boxed twice
    with pytest.raises(DeckError, match="dos cartas encima"):
        grid_order(doubled)
    moved = boxes.copy()
    moved[9, 1] += 115.0 * 0.5  # the last oros card pushed between two rows
    with pytest.raises(DeckError, match="filas"):
        grid_order(moved)
    holed = boxes.copy()
    holed[5, :2] = holed[9, :2] + (holed[9, :2] - holed[8, :2])  # a gap, and a card past the end
    with pytest.raises(DeckError, match="hueco"):
        grid_order(holed)
    big = boxes.copy()
    big[12, 2:4] *= 1.6  # a box on something that is not one card
    with pytest.raises(DeckError, match="tamaño"):
        grid_order(big)


def _registration(dim=8, views=2, seed=0):
    rng = np.random.default_rng(seed)
    protos = rng.normal(size=(40, dim))
    feats = np.repeat(protos, views, 0) + rng.normal(0, 0.05, (40 * views, dim))
    feats /= np.linalg.norm(feats, axis=1, keepdims=True)
    return RegisteredDeck(feats.astype(np.float32), np.repeat(np.arange(40), views), "prueba", "abc"), protos


def test_cards_are_named_by_the_most_alike_registered_card_either_way_up():
    baraja, protos = _registration()
    f = protos / np.linalg.norm(protos, axis=1, keepdims=True)
    noise = np.random.default_rng(3).normal(size=f.shape)
    noise /= np.linalg.norm(noise, axis=1, keepdims=True)
    probs = baraja.probabilities(f, noise)  # the upside-down reading is noise: upright wins
    assert probs.argmax(1).tolist() == list(range(40))
    assert np.allclose(probs.sum(1), 1)
    probs = baraja.probabilities(noise, f)  # and the other way round
    assert probs.argmax(1).tolist() == list(range(40))
    one_way = baraja.probabilities(f)  # read one way up only: that reading alone
    assert np.allclose(one_way, baraja.probabilities(f, f))
    assert not np.allclose(baraja.probabilities(noise), probs)


def _with_templates(baraja, seed=0):
    """The registration with templates: a random face per card."""
    from dataclasses import replace

    from vision.templates import TEMPLATE_H, TEMPLATE_W

    rng = np.random.default_rng(seed)
    faces = rng.integers(0, 255, (40, TEMPLATE_H, TEMPLATE_W, 3), dtype=np.uint8)
    return replace(baraja, templates=faces, template_labels=np.arange(40)), faces


def test_templates_decide_between_cards_the_features_cannot_tell_apart():
    baraja, protos = _registration()
    baraja, faces = _with_templates(baraja)
    f = protos / np.linalg.norm(protos, axis=1, keepdims=True)
    twins = f.copy()
    twins[[4, 5]] = (f[4] + f[5]) / np.linalg.norm(f[4] + f[5])  # cards 4 and 5 look the same
    crops = faces[:40].copy()
    crops[4] = faces[4][::-1, ::-1]  # card 4 lies upside down
    probs = baraja.probabilities(twins, None, crops)
    assert probs.argmax(1).tolist() == list(range(40))
    assert np.allclose(probs.sum(1), 1)
    assert (
        baraja.probabilities(twins, None, None).argmax(1)[4] == baraja.probabilities(twins, None, None).argmax(1)[5]
    )  # without the crops the features alone cannot tell
    swapped = crops[[1, 0, *range(2, 40)]]  # the faces say otherwise for cards 0 and 1
    assert baraja.probabilities(twins, None, swapped).argmax(1)[:2].tolist() == [0, 1]


def test_templates_round_trip_and_are_checked(tmp_path):
    baraja, _ = _registration()
    baraja, faces = _with_templates(baraja)
    back = RegisteredDeck.load(baraja.save(tmp_path / "mia.npz"))
    assert back.has_templates and np.array_equal(back.templates, faces)
    assert back.template_labels.tolist() == baraja.template_labels.tolist()
    assert back.describe()["plantillas"] == 40
    with pytest.raises(DeckError, match="plantillas sin etiquetas"):
        RegisteredDeck(baraja.features, baraja.labels, templates=faces)
    with pytest.raises(DeckError, match="faltan cartas"):
        RegisteredDeck(baraja.features, baraja.labels, templates=faces[:30], template_labels=np.arange(30))
    with pytest.raises(DeckError, match="no casan"):
        RegisteredDeck(baraja.features, baraja.labels, templates=faces[:, :10], template_labels=baraja.template_labels)


def test_a_registration_saved_before_templates_still_loads(tmp_path):
    """Format 1 (the features alone) is read by the features alone."""
    baraja, protos = _registration()
    old = tmp_path / "vieja.npz"
    np.savez_compressed(
        old,
        features=baraja.features.astype(np.float16),
        labels=baraja.labels.astype(np.int16),
        nombre="vieja",
        modelo="abc",
        tau=baraja.tau,
        formato=1,
    )
    back = RegisteredDeck.load(old)
    assert not back.has_templates and back.describe()["plantillas"] == 0
    assert back.series == 1
    f = protos / np.linalg.norm(protos, axis=1, keepdims=True)
    assert back.probabilities(f).argmax(1).tolist() == list(range(40))


def test_a_second_set_of_photos_makes_up_for_a_poor_one():
    """One set photographed badly (glare all over card 4: its features are noise); a second,
    good set of the same deck, added, names card 4 right again, and every other card stays
    right."""
    from dataclasses import replace

    good, protos = _registration()
    f = protos / np.linalg.norm(protos, axis=1, keepdims=True)
    feats = good.features.copy()
    glare = np.random.default_rng(7).normal(size=(int((good.labels == 4).sum()), f.shape[1]))
    feats[good.labels == 4] = glare / np.linalg.norm(glare, axis=1, keepdims=True)
    poor = replace(good, features=feats)
    assert poor.probabilities(f).argmax(1)[4] != 4
    both = poor.combined(good)
    assert both.series == 2 and len(both.labels) == 2 * len(good.labels)
    assert both.probabilities(f).argmax(1).tolist() == list(range(40))


def test_adding_a_set_checks_classifier_count_and_keeps_templates_only_when_both_have_them(tmp_path):
    from dataclasses import replace

    from vision.registered_deck import MAX_SERIES

    plain, _ = _registration()
    with_t, _ = _with_templates(plain)
    assert with_t.combined(with_t).templates.shape[0] == 80
    assert not plain.combined(with_t).has_templates  # a format-1 registration has none
    with pytest.raises(DeckError, match="otro clasificador"):
        plain.combined(replace(plain, model="otro"))
    full = plain
    for _ in range(MAX_SERIES - 1):
        full = full.combined(plain)
    assert full.series == MAX_SERIES
    with pytest.raises(DeckError, match=f"ya tiene {MAX_SERIES} series"):
        full.combined(plain)
    back = RegisteredDeck.load(with_t.combined(with_t).save(tmp_path / "dos.npz"))
    assert back.series == 2 and back.describe()["series"] == 2 and len(back.templates) == 80
    with pytest.raises(DeckError, match="series de fotos"):
        replace(plain, series=0)


def test_save_load_round_trip(tmp_path):
    baraja, _ = _registration()
    path = baraja.save(tmp_path / "sub" / "mia.npz")
    back = RegisteredDeck.load(path)
    assert back.name == "prueba" and back.model == "abc"
    assert back.labels.tolist() == baraja.labels.tolist()
    assert np.allclose(back.features, baraja.features, atol=2e-3)  # stored as float16
    assert not [p for p in path.parent.iterdir() if p.name.startswith(".baraja-")]


def test_a_failed_save_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    baraja, _ = _registration()
    path = baraja.save(tmp_path / "mia.npz")
    before = path.read_bytes()

    def boom(*_a, **_k):
        raise OSError("disco lleno")

    monkeypatch.setattr(np, "savez_compressed", boom)
    with pytest.raises(OSError):
        baraja.save(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["mia.npz"]


def test_unreadable_or_incomplete_files_are_clear_errors(tmp_path):
    with pytest.raises(DeckError, match="no existe"):
        RegisteredDeck.load(tmp_path / "nada.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"no soy un npz")
    with pytest.raises(DeckError, match="no es una baraja registrada"):
        RegisteredDeck.load(junk)
    baraja, _ = _registration()
    good = baraja.save(tmp_path / "buena.npz")
    cut = tmp_path / "cortada.npz"
    cut.write_bytes(good.read_bytes()[: good.stat().st_size // 2])  # killed mid-copy
    with pytest.raises(DeckError):
        RegisteredDeck.load(cut)
    with pytest.raises(DeckError, match="le faltan cartas: 12b"):
        RegisteredDeck(baraja.features[:-2], baraja.labels[:-2])


@needs_models
def test_a_registration_from_another_classifier_is_refused(tmp_path):
    from vision.reader import CardReader

    baraja, _ = _registration()  # modelo "abc" is not the shipped classifier's hash
    with pytest.raises(DeckError, match="otro clasificador"):
        CardReader(deck=baraja)


def mus(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "musmesa", *args], capture_output=True, text=True, cwd=REPO, timeout=180
    )


@needs_models
def test_register_the_example_deck_and_read_the_example_table_against_it(tmp_path):
    out = tmp_path / "fournier.npz"
    res = mus("baraja", "registrar", *SUIT_PHOTOS, "--salida", str(out), "--nombre", "ejemplo", "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["cartas"] == 40 and info["nombre"] == "ejemplo" and info["avisos"] == []
    res = mus("baraja", "ver", str(out))
    assert res.returncode == 0 and "ejemplo" in res.stdout and "240 plantillas" in res.stdout
    assert "1 serie de fotos" in res.stdout
    # a second set of photos added (here the same four again): matched against both
    res = mus("baraja", "registrar", *SUIT_PHOTOS, "--salida", str(out), "--añadir", "--json")
    assert res.returncode == 0, res.stderr
    info = json.loads(res.stdout)
    assert info["series"] == 2 and info["plantillas"] == 480 and info["nombre"] == "ejemplo"
    from dataclasses import replace

    from vision.registered_deck import MAX_SERIES

    replace(RegisteredDeck.load(out), series=MAX_SERIES).save(out)  # as if full
    before = out.read_bytes()
    res = mus("baraja", "registrar", *SUIT_PHOTOS, "--salida", str(out), "--añadir")
    assert res.returncode == 2 and f"ya tiene {MAX_SERIES} series" in res.stderr
    assert out.read_bytes() == before
    res = mus("leer", "--json", "--baraja", str(out), str(REPO / "examples" / "mesa.jpg"))
    assert res.returncode == 0, res.stderr
    truth = json.loads((REPO / "examples" / "mesa.json").read_text())["manos"]
    got = json.loads(res.stdout)["asientos"]
    assert [sorted(h) for h in got] == [sorted(h.split()) for h in truth]


@needs_models
def test_registered_cards_read_back_as_themselves(tmp_path):
    """Each registration photo, read against the registration, names its own ten cards."""
    from vision.images import load_image
    from vision.reader import CardReader
    from vision.registered_deck import VIEWS
    from vision.registration import register

    reader = CardReader()
    baraja, _ = register(reader, SUIT_PHOTOS)
    assert baraja.has_templates and len(baraja.templates) == 40 * VIEWS
    reader = CardReader(deck=baraja)
    for p, path in enumerate(SUIT_PHOTOS):
        dets = reader.read(load_image(path))
        assert sorted(dets.ids) == sorted(CARD_IDS[10 * p : 10 * p + 10])


@needs_models
def test_bad_registration_input_exits_2_with_one_line(tmp_path):
    out = tmp_path / "x.npz"
    res = mus("baraja", "registrar", SUIT_PHOTOS[0], SUIT_PHOTOS[1], "--salida", str(out))
    assert res.returncode == 2 and "cuatro" in res.stderr and "Traceback" not in res.stderr
    res = mus("baraja", "registrar", str(REPO / "examples" / "mesa.jpg"), "--salida", str(out))
    assert res.returncode == 2 and "se esperan 40" in res.stderr
    assert not out.exists()
    res = mus("baraja", "registrar", str(tmp_path / "no.jpg"), "--salida", str(out))
    assert res.returncode == 2 and "no existe" in res.stderr
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"basura")
    for args in (("baraja", "ver", str(junk)), ("leer", "--baraja", str(junk), SUIT_PHOTOS[0])):
        res = mus(*args)
        assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr


def test_reading_against_a_registered_deck_flags_more():
    """A registered deck may be a design the classifier never saw, where its similarities are
    sure and wrong: cards are flagged under a higher confidence, unless the caller sets one."""
    from vision.flags import LOW_CONFIDENCE, LOW_CONFIDENCE_REGISTERED
    from vision.reader import CardReader, ReaderSettings

    baraja, _ = _registration()
    assert LOW_CONFIDENCE_REGISTERED > LOW_CONFIDENCE
    assert CardReader(folder="/nonexistent").flags.threshold == LOW_CONFIDENCE
    reader = CardReader(folder="/nonexistent", deck=baraja)
    assert reader.flags.threshold == LOW_CONFIDENCE_REGISTERED
    explicit = CardReader(folder="/nonexistent", settings=ReaderSettings(low_confidence=0.5), deck=baraja)
    assert explicit.flags.threshold == 0.5 and explicit.flags.model is None


@needs_models
def test_a_card_read_against_the_registration_is_flagged_at_the_registered_threshold(monkeypatch):
    """The bundled table read against its registration is sure of every card: at a registered
    threshold set here between its cards' confidences (whatever the default), without the
    learned flag model (vision.flags), exactly the cards under it are flagged."""
    import vision.flags as flags_module
    from vision.images import load_image
    from vision.reader import CardReader, ReaderSettings
    from vision.registration import register

    baraja, _ = register(CardReader(), SUIT_PHOTOS)
    image = load_image(REPO / "examples" / "mesa.jpg")
    confidence = np.sort(CardReader(settings=ReaderSettings(flag_model=False), deck=baraja).read(image).confidence)
    threshold = float(confidence[len(confidence) // 2 - 1 : len(confidence) // 2 + 1].mean())
    monkeypatch.setattr(flags_module, "LOW_CONFIDENCE_REGISTERED", threshold)
    dets = CardReader(settings=ReaderSettings(flag_model=False), deck=baraja).read(image)
    under = dets.confidence < threshold
    assert 0 < under.sum() < len(dets)
    assert (dets.low_confidence == under).all()


@needs_models
def test_the_evaluation_registers_several_sets_of_generated_photos():
    """`training.cards.evaluate --registrar --series 2`: two accepted sets of four photos, merged."""
    from training.cards.evaluate import register_from_generated_photos
    from vision.reader import CardReader
    from vision.registered_deck import VIEWS

    two, _, taken = register_from_generated_photos(CardReader(), "fournier1878-pd", series=2)
    assert two.series == 2 and taken >= 2  # a refused set is taken again
    assert len(two.templates) == 2 * 40 * VIEWS and len(two.labels) == 2 * 2 * 40 * VIEWS
    first, second = two.templates[: 40 * VIEWS], two.templates[40 * VIEWS :]
    assert not np.array_equal(first, second)  # two different sets of photos


@needs_models
def test_the_app_registers_every_set_of_photos_in_the_folder(tmp_path):
    """Ajustes' folder of photos (mesa.lectura.preparar_baraja): its own set, then each
    subfolder holding another set; subfolders without a set are left alone."""
    import shutil

    from mesa.lectura import LecturaError, preparar_baraja

    casa = tmp_path / "casa"
    (casa / "otra-luz").mkdir(parents=True)
    (casa / "vacia").mkdir()
    for foto in SUIT_PHOTOS:
        shutil.copy(foto, casa)
        shutil.copy(foto, casa / "otra-luz")
    ruta, desc, _ = preparar_baraja(str(casa), str(tmp_path / "datos"))
    assert desc == "casa (40 cartas, 2 series de fotos)"
    assert RegisteredDeck.load(ruta).series == 2
    solo = tmp_path / "solo"
    (solo / "a").mkdir(parents=True)
    shutil.copy(SUIT_PHOTOS[0], solo / "a")  # a subfolder with one photo is no set
    with pytest.raises(LecturaError, match="faltan"):
        preparar_baraja(str(solo), str(tmp_path / "datos"))
    from vision.registered_deck import MAX_SERIES

    for k in range(MAX_SERIES):
        (casa / f"mas-{k}").mkdir()
        for foto in SUIT_PHOTOS:
            shutil.copy(foto, casa / f"mas-{k}")
    with pytest.raises(LecturaError, match=f"como mucho {MAX_SERIES}"):
        preparar_baraja(str(casa), str(tmp_path / "datos"))


def test_small_cards_in_a_registration_photo_get_a_warning():
    from vision.registration import MIN_CARD_PX, _size_warning

    boxes = _grid(rows=1, card=(60.0, 90.0))
    assert "oros" in _size_warning(boxes, 0) and "dos filas de cinco" in _size_warning(boxes, 0)
    assert "una foto por palo" in _size_warning(_grid(card=(60.0, 90.0)), None)
    big = _grid(rows=1, card=(0.7 * MIN_CARD_PX, MIN_CARD_PX))
    assert _size_warning(big, 2) == ""


@needs_models
def test_a_registration_from_rows_of_ten_warns_of_the_small_photos():
    """Generated photos (scenes 2000-2003): oros and espadas in a row of ten, cards about 110 px
    long; copas and bastos in two rows of five."""
    from training.cards.dataset import scene_rng
    from training.cards.decks import PUBLIC_DOMAIN_DECK
    from training.cards.synth import render_scene
    from vision.reader import CardReader
    from vision.registration import register

    fotos = [
        render_scene(
            scene_rng(0, "ejemplo", 2000 + p),
            decks=(PUBLIC_DOMAIN_DECK,),
            backgrounds=("felt",),
            kind="palo",
            card_ids=list(CARD_IDS[10 * p : 10 * p + 10]),
        ).image
        for p in range(4)
    ]
    _, avisos = register(CardReader(), fotos)
    small = [a for a in avisos if "pequeñas" in a]
    assert len(small) == 2 and "oros" in small[0] and "espadas" in small[1]


def test_the_evaluation_refuses_more_sets_than_a_registration_holds(capsys):
    from training.cards.evaluate import main
    from vision.registered_deck import MAX_SERIES

    with pytest.raises(SystemExit) as exc:
        main(["--baraja", "fournier1878-pd", "--escenas", "1", "--registrar", "--series", str(MAX_SERIES + 1)])
    assert exc.value.code == 2 and f"de 1 a {MAX_SERIES}" in capsys.readouterr().err
