"""Seat assignment: four groups of four, in seat order counter-clockwise from the camera side."""

from __future__ import annotations

import numpy as np

from vision.detections import CardDetections
from vision.seats import assign_seats


def _dets(centres, ids=None, angles=None) -> CardDetections:
    """Cards 40x60 at ``centres``; all upright unless ``angles`` (radians, one per card)."""
    centres = np.asarray(centres, np.float32)
    n = len(centres)
    half = np.float32([20, 30])
    xyxy = np.concatenate([centres - half, centres + half], 1).astype(np.float32)
    obb = np.concatenate([centres, np.tile([40, 60, 0], (n, 1))], 1).astype(np.float32)
    if angles is not None:
        obb[:, 4] = angles
    ids = ids or [f"{r}o" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)] + [
        "1c",
        "2c",
        "3c",
        "4c",
        "5c",
        "6c",
        "7c",
        "10c",
    ]
    one = np.ones(n, np.float32)
    return CardDetections(
        xyxy,
        obb,
        np.array(ids[:n], object),
        one,
        one,
        one,
        np.array(ids[:n], object),
        np.zeros(n, bool),
        np.full(n, -1, np.int8),
    )


def _table(shift=(0, 0), spread=50.0):
    groups = {0: (640, 800), 1: (1100, 480), 2: (640, 150), 3: (180, 480)}  # bottom, right, top, left
    pts, seats = [], []
    for seat, (gx, gy) in groups.items():
        horizontal = seat in (0, 2)
        for j in range(4):
            off = (j - 1.5) * spread
            pts.append((gx + (off if horizontal else 0) + shift[0], gy + (0 if horizontal else off) + shift[1]))
            seats.append(seat)
    return pts, seats


def test_four_groups_get_seats_bottom_right_top_left():
    pts, seats = _table()
    order = np.random.default_rng(0).permutation(16)
    dets = assign_seats(_dets([pts[i] for i in order]))
    assert dets.seat.tolist() == [seats[i] for i in order]
    assert dets.hands is not None and len(dets.hands) == 4
    assert all(len(h) == 4 for h in dets.hands)
    assert not dets.warnings


def test_seats_follow_the_camera_not_the_absolute_position():
    """Perspective: the far (top) hand is smaller and the near one larger; seats still hold."""
    pts, seats = _table()
    squeezed = [(640 + (x - 640) * (0.6 + 0.4 * y / 800), 200 + 0.7 * y) for x, y in pts]
    dets = assign_seats(_dets(squeezed))
    assert dets.seat.tolist() == seats


def test_twelve_cards_give_no_seats_and_say_why():
    pts, _ = _table()
    dets = assign_seats(_dets(pts[:12]))
    assert (dets.seat == -1).all() and dets.hands is None
    assert any("12 cartas" in a for a in dets.warnings)


def test_a_group_of_five_is_reported():
    pts, _ = _table()
    pts = list(pts)
    pts[4] = (640 + 2.5 * 50, 800)  # a right-hand card moved into the bottom group
    dets = assign_seats(_dets(pts))
    assert dets.hands is None
    assert any("cuatro grupos de cuatro separados" in a for a in dets.warnings)


def test_filters_compose():
    pts, _ = _table()
    dets = assign_seats(_dets(pts))
    dets.low_confidence[:3] = True
    assert len(dets.doubtful()) == 3 and len(dets.confident()) == 13
    assert len(dets.in_seat(0).confident()) == 1
    assert dets[dets.seat == 2].ids == dets.in_seat(2).ids
    j = dets.to_json("x.jpg")
    assert j["imagen"] == "x.jpg" and len(j["cartas"]) == 16 and j["asientos"] is not None
    assert sum(1 for c in j["cartas"] if c.get("dudosa")) == 3


def _sideways(seats, jitter=0.0, seed=0):
    """Angles as players lay them: upright for seats 0 and 2, sideways for 1 and 3."""
    rng = np.random.default_rng(seed)
    return [(np.pi / 2 if s in (1, 3) else 0.0) + rng.normal(0, jitter) for s in seats]


def test_orientation_tells_apart_hands_that_touch_at_a_corner():
    """The left hand's nearest card touches the bottom hand; only orientation says whose it is."""
    pts, seats = _table()
    pts = list(pts)
    pts[15] = (520, 740)  # the left hand's last card, sideways, at the bottom hand's first card
    pts[14] = (300, 700)
    dets = assign_seats(_dets(pts, angles=_sideways(seats, jitter=0.1)))
    assert dets.seat.tolist() == seats
    # without orientations (all upright) the same positions are ambiguous: no seats
    plain = assign_seats(_dets(pts))
    assert plain.hands is None and plain.warnings


def test_fans_and_tilt_keep_the_orientation_reading():
    pts, seats = _table()
    order = np.random.default_rng(3).permutation(16)
    angles = _sideways(seats, jitter=0.3, seed=1)
    dets = assign_seats(_dets([pts[i] for i in order], angles=[angles[i] for i in order]))
    assert dets.seat.tolist() == [seats[i] for i in order]


def test_upright_cards_in_the_side_seats_fall_back_to_positions():
    """Orientations that do not split eight and eight: the positions decide."""
    pts, seats = _table()
    angles = [0.0] * 16
    angles[0] = np.pi / 2  # one bottom card sideways: 1 sideways card, not 8
    dets = assign_seats(_dets(pts, angles=angles))
    assert dets.seat.tolist() == seats


def _table_obb(seats_wanted=(0, 1, 2, 3)):
    """Oriented boxes of a table laid as players do: bottom and top hands upright, the side
    hands sideways; (16, 5) in seat order, 4 cards a seat."""
    centres = {0: (640, 800), 1: (1100, 480), 2: (640, 150), 3: (180, 480)}
    rows = []
    for seat in seats_wanted:
        gx, gy = centres[seat]
        for j in range(4):
            off = (j - 1.5) * 75
            if seat in (0, 2):
                rows.append((gx + off, gy, 60, 90, 0.0))
            else:
                rows.append((gx, gy + off, 90, 60, 0.0))
    return np.array(rows, np.float32)


def test_seat_labels_of_a_table_and_of_what_is_not_one():
    from vision.seats import seat_labels

    obb = _table_obb()
    assert seat_labels(obb).tolist() == [0] * 4 + [1] * 4 + [2] * 4 + [3] * 4
    assert seat_labels(obb[:15]) is None  # not 16
    five = obb.copy()
    five[12] = (560, 830, 60, 90, 0.0)  # a left-hand card lies among the bottom hand's
    assert seat_labels(five) is None


def test_the_table_choice_swaps_a_ghost_box_for_the_card_left_out():
    """16 boxes where one is a ghost across two bottom cards and the fourth left card is a
    weaker box left out: one swap makes four hands, and the weak card keeps its low score."""
    from vision.detect import DET_THRESHOLD, choose_table

    table = _table_obb()
    ghost = np.float32([[602, 800, 60, 90, 0.0]])  # between the two middle bottom cards
    boxes = np.concatenate([table[:15], ghost, table[15:]])
    scores = np.float32([0.9] * 15 + [0.3, 0.15])
    chosen, chosen_scores = choose_table(boxes, scores, DET_THRESHOLD)  # no model is needed
    assert len(chosen) == 16
    assert not (np.abs(chosen - ghost).max(1) < 1e-3).any()
    assert (np.abs(chosen - table[15]).max(1) < 1e-3).any()
    assert chosen_scores.min() == np.float32(0.15) and (np.diff(chosen_scores) <= 0).all()


def test_the_table_choice_keeps_the_best_boxes_when_they_make_a_table():
    from vision.detect import DET_THRESHOLD, choose_table

    table = _table_obb()
    extra = np.float32([[602, 800, 60, 90, 0.0]])
    boxes = np.concatenate([table, extra])
    scores = np.float32([0.9] * 16 + [0.2])
    chosen, _ = choose_table(boxes, scores, DET_THRESHOLD)
    assert np.array_equal(chosen, table)
    # two hands mixed and no weaker box to swap in: the boxes are left as they were
    mixed = table.copy()
    mixed[12:14, :2] = [[600, 810], [680, 790]]  # two left cards among the bottom hand
    chosen, _ = choose_table(mixed, np.full(16, 0.9, np.float32), DET_THRESHOLD)
    assert np.array_equal(chosen, mixed)


def test_more_than_16_boxes_keep_the_best_not_the_least_overlapping():
    """An overlapping row: neighbours overlap (IoU about 0.2) and score high; two lone ghosts on
    the cloth pass the threshold with lower scores. The 16 cards are kept, not the ghosts."""
    from vision.detect import DET_THRESHOLD, choose_table
    from vision.geometry import rotated_iou

    table = _table_obb()
    table[:4, 0] = 640 + (np.arange(4) - 1.5) * 40  # bottom hand: an overlapping row
    assert rotated_iou(table[0], table[1]) > 0.15
    ghosts = np.float32([[900, 700, 60, 90, 0.3], [400, 300, 90, 60, 0.0]])
    boxes = np.concatenate([table, ghosts])
    scores = np.float32([*np.linspace(0.9, 0.6, 16).tolist(), 0.5, 0.4])
    chosen, chosen_scores = choose_table(boxes, scores, DET_THRESHOLD)
    assert np.array_equal(chosen, table) and len(chosen_scores) == 16


def test_more_than_16_sure_boxes_are_all_kept_so_the_photo_is_questioned():
    """18 cards boxed with confidence: the photo really shows more than a table; nothing is
    dropped and the seat step reports 18 cards."""
    from vision.detect import DET_THRESHOLD, EXTRA_SURE, choose_table

    table = _table_obb()
    extra = np.float32([[900, 700, 60, 90, 0.0], [400, 300, 60, 90, 0.0]])
    boxes = np.concatenate([table, extra])
    scores = np.full(18, EXTRA_SURE + 0.05, np.float32)
    chosen, _ = choose_table(boxes, scores, DET_THRESHOLD)
    assert len(chosen) == 18
    dets = assign_seats(_dets(chosen[:, :2]))
    assert dets.hands is None and any("18" in a for a in dets.warnings)


class _FixedClassifier:
    """Stands in for vision.classify.Classifier: each box's probabilities from a function of
    the boxes, no mark readers, no model files."""

    pinta_reader = None

    def __init__(self, probs_of):
        self.probs_of = probs_of

    def cut_out(self, image, obbs):
        from vision.cutout import Cutouts

        return Cutouts(obbs, None, None)  # the boxes stand for their crops: nothing is cut

    def classify(self, obbs):
        from vision.classify import CardProbabilities

        return CardProbabilities(self.probs_of(obbs), None, None)

    def classify_boxes(self, image, obbs):
        return self.classify(obbs)


def _reader_seeing(boxes, scores, probs):
    """A CardReader whose detector and classifier are replaced by fixed answers."""
    from vision.detect import DetectedBoxes
    from vision.reader import CardReader

    reader = CardReader(folder="/nonexistent")
    reader.detector.detect = lambda img: DetectedBoxes(boxes, scores, boxes, scores)
    reader.classifier = _FixedClassifier(lambda obbs: probs[: len(obbs)])
    return reader


def _sure_probs(n, extra_row=None):
    probs = np.full((n, 40), 0.001, np.float32)
    probs[np.arange(n), np.arange(n)] = 0.96
    if extra_row is not None:
        probs[-1] = extra_row
    return probs


def test_a_weak_box_given_an_unlikely_card_is_dropped():
    """Ten cards in a row and a blank rectangle boxed at 0.36 whose only free card is unlikely:
    ten cards are reported, not eleven with a guess."""
    rows = np.array([(100 + 110 * k, 500, 60, 90, 0.0) for k in range(10)] + [(600, 80, 60, 90, 0.0)], np.float32)
    scores = np.float32([0.9] * 10 + [0.36])
    blank = np.full(40, 0.001, np.float32)
    blank[3] = 0.9  # its best card is taken by a sure box, the rest unlikely
    reader = _reader_seeing(rows, scores, _sure_probs(11, blank))
    dets = reader.read(np.zeros((960, 1280, 3), np.uint8))
    assert len(dets) == 10 and 0.36 not in dets.det_confidence.tolist()


def test_a_weak_unlikely_box_that_completes_four_hands_is_kept_and_flagged():
    table = _table_obb()
    scores = np.float32([0.9] * 15 + [0.3])
    blank = np.full(40, 0.001, np.float32)
    blank[3] = 0.9
    reader = _reader_seeing(table, scores, _sure_probs(16, blank))
    dets = reader.read(np.zeros((960, 1280, 3), np.uint8))
    assert len(dets) == 16 and dets.hands is not None
    assert dets.low_confidence[dets.det_confidence == np.float32(0.3)].all()


def test_nms_keeps_cards_of_a_fan_and_drops_a_card_boxed_twice():
    """In a fan, a detected box of one card overlaps its neighbour's by IoU 0.5-0.6 (the boxes
    are not exact); both are cards. A box overlapping another by 0.75 is the same card twice."""
    from vision.detect import NMS_IOU
    from vision.geometry import rotated_iou, rotated_nms

    a = np.float32([600, 500, 60, 90, 0.0])
    fan_neighbour = np.float32([617.4, 500, 60, 90, 0.0])
    twice = np.float32([608, 502, 60, 90, 0.02])
    assert 0.53 < rotated_iou(a, fan_neighbour) < 0.58 and rotated_iou(a, twice) > 0.7
    boxes = np.stack([a, fan_neighbour, twice])
    kept = rotated_nms(boxes, np.float32([0.9, 0.8, 0.7]), NMS_IOU)
    assert kept.tolist() == [0, 1]


def _one_hot_classifier(table_ids: dict[tuple[int, int], int]) -> _FixedClassifier:
    """A classifier that reads each box as the card of the nearest centre in ``table_ids``
    ((x, y) -> class index), with no model files."""
    centres = np.float32(list(table_ids))
    classes = np.array(list(table_ids.values()))

    def probs_of(obbs):
        near = np.linalg.norm(obbs[:, None, :2] - centres[None], axis=2).argmin(1)
        probs = np.full((len(obbs), 40), 0.01 / 39, np.float32)
        probs[np.arange(len(obbs)), classes[near]] = 0.99
        return probs

    return _FixedClassifier(probs_of)


def _replace(classifier, boxes, scores, cand_b, cand_s):
    from vision.assemble import AssemblySettings, replace_duplicates
    from vision.detect import DetectedBoxes

    parts = classifier.classify(boxes)
    return replace_duplicates(
        boxes,
        scores,
        parts,
        parts.cards,
        DetectedBoxes(boxes, scores, cand_b, cand_s),
        classifier.classify,
        AssemblySettings(0.5, 0.5),
    )


def test_a_card_boxed_twice_gives_way_to_the_card_left_out():
    """A fan: the second box on a bottom card is kept (it scores more than the half-hidden card
    next to it), so 16 boxes make four hands with one card twice and one missing. The weaker of
    the two boxes that read as the same card is swapped for the left-out box."""
    table = _table_obb()
    ids = {(float(b[0]), float(b[1])): k for k, b in enumerate(table)}
    classifier = _one_hot_classifier(ids)
    twice = table[1] + np.float32([6, 4, 0, 0, 0.05])  # on card 1, rotated IoU about 0.8
    boxes = np.concatenate([table[[0, 1]], twice[None], table[3:]])  # card 2 left out
    scores = np.float32([0.9, 0.9, 0.5] + [0.9] * 13)
    cand_b = np.concatenate([boxes, table[2:3]])
    cand_s = np.concatenate([scores, np.float32([0.3])])
    new_b, new_s, _, probs = _replace(classifier, boxes, scores, cand_b, cand_s)
    assert len(new_b) == 16 and not (np.abs(new_b - twice).max(1) < 1e-3).any()
    assert (np.abs(new_b - table[2]).max(1) < 1e-3).any()
    assert sorted(probs.argmax(1).tolist()) == list(range(16))
    assert new_s.min() == np.float32(0.3) and (np.diff(new_s) <= 0).all()


def test_no_swap_without_a_duplicate_or_a_candidate_that_keeps_the_seats():
    table = _table_obb()
    ids = {(float(b[0]), float(b[1])): k for k, b in enumerate(table)}
    classifier = _one_hot_classifier(ids)
    scores = np.full(16, 0.9, np.float32)
    # sixteen different cards: nothing to swap, even with a candidate left out
    extra = np.float32([[900, 700, 60, 90, 0.0]])
    out_b, *_ = _replace(classifier, table, scores, np.concatenate([table, extra]), np.append(scores, 0.3))
    assert np.array_equal(out_b, table)
    # a card boxed twice, but the only left-out box lies in another hand (it would move cards
    # between seats) or reads as a kept card where it overlaps it: the table stays as it was
    twice = table[1] + np.float32([6, 4, 0, 0, 0.05])
    boxes = np.concatenate([table[[0, 1]], twice[None], table[3:]])
    for stray in (np.float32([[1100, 700, 90, 60, 0.0]]), table[1:2] + np.float32([0, 8, 0, 0, 0])):
        cand_b = np.concatenate([boxes, stray])
        out_b, *_ = _replace(classifier, boxes, scores, cand_b, np.append(scores, 0.3))
        assert np.array_equal(out_b, boxes)


def test_a_swap_must_leave_the_other_cards_in_their_seats():
    """The swap is refused when, with the new box, the kept cards would fall in other seats
    than they had (on validation tables such a swap once made a sure card's seat wrong)."""
    from vision.assemble import _first_swap

    table = _table_obb()
    kept, extra = table[np.arange(16) != 5], table[5:6]
    tops, extra_top = np.arange(16)[np.arange(16) != 5], np.array([5])
    seats = np.repeat(np.arange(4), 4)[np.arange(16) != 5]
    assert _first_swap(kept, tops, seats, extra, extra_top) == 0
    assert _first_swap(kept, tops, None, extra, extra_top) == 0  # no seats before: any four hands
    moved = seats.copy()
    moved[[0, 14]] = moved[[14, 0]]  # as if a bottom and a left card had been seated the other way
    assert _first_swap(kept, tops, moved, extra, extra_top) is None


def test_a_sure_box_beyond_16_that_reads_as_a_taken_card_is_dropped():
    """17 boxes because a 17th scored over EXTRA_SURE: it overlaps a card of a hand and its
    card, after the assignment, is unlikely (the box's own card went to the other box). The
    other 16 lie in four hands: they are the table. A 17th that reads as a card of its own,
    or whose removal leaves no four hands, keeps the 17 (the seat step then says why)."""
    from vision.assemble import NOT_A_CARD_PROB, without_taken

    table = _table_obb()
    twice = table[5] + np.float32([20, 10, 0, 0, 0.1])
    boxes = np.concatenate([table, twice[None]])
    cls = np.full(17, 0.9, np.float32)
    cls[16] = NOT_A_CARD_PROB / 2
    assert without_taken(boxes, cls).tolist() == list(range(16))
    cls[16] = NOT_A_CARD_PROB  # likely enough to be a card of its own
    assert without_taken(boxes, cls) is None
    cls[16], cls[3] = 0.9, 0.01  # the unlikely one is a hand's card: 16 left in no four hands
    assert without_taken(boxes, cls) is None
    assert without_taken(table, np.full(16, 0.01, np.float32)).tolist() == list(range(16))
