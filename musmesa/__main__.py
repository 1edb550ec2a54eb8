"""`python -m musmesa ...` is `mus ...`."""

from musmesa.cli import main

raise SystemExit(main())
