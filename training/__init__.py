"""Tools that make and measure the models: synthetic data, training, evaluation, benchmarks.

Nothing a player runs imports this package; it imports the run-time packages (vision/,
gestures/, scoring/) and is never imported by them.
"""
