"""The señas recognizer's tuning tools: faces warped from real portraits into synthetic señas,
and the demo video of the app's trainer."""
