"""``python -m structsvm``: the ``structsvm`` command (see :mod:`structsvm.cli`)."""

from structsvm.cli import main

raise SystemExit(main())
