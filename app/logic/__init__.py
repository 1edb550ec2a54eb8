"""Screen logic in plain Python: the tests drive these classes without a window."""
