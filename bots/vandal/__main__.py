"""``python -m bots.vandal``: see :mod:`bots.vandal`."""

from . import main

raise SystemExit(main())
