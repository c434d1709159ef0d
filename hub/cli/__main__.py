"""``python -m hub.cli``: the ``gamehub`` command."""

from hub.cli import main

raise SystemExit(main())
