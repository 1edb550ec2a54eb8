# The two commands in README.md. Both set up everything they need first.
XVFB = xvfb-run -a -s "-screen 0 1280x800x24"

.PHONY: demo test servir setup lint bench

# Set up (card reading + rules) and run the main job on the bundled example photo.
demo:
	./scripts/setup.sh vision
	.venv/bin/mus mano examples/mesa.jpg --mano 0 --lances examples/lances.json

# Set up everything (apt + pip), check style, format and types (mypy: [tool.mypy] in pyproject.toml),
# and run the whole test suite, the Kivy tests in a real window under Xvfb.
test:
	./scripts/setup.sh all
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy
	$(XVFB) .venv/bin/python -m pytest

# Set up the server and the card reader, then serve the table to the phones on this network.
servir:
	./scripts/setup.sh web
	.venv/bin/mus servir

lint:
	.venv/bin/ruff check .
	.venv/bin/ruff format --check .
	.venv/bin/mypy

# Benchmarks: run on demand, never part of the pass/fail of CI.
bench:
	.venv/bin/python -m pytest -m benchmark -p no:randomly tests/
