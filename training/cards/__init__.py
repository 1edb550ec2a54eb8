"""The card reader's training and evaluation: synthetic tables, datasets, the four networks,
the flag model's fit, evaluation on held-out tables and the reading benchmark."""
