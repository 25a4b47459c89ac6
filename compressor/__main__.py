"""``python -m compressor`` is the ``compaction-lab`` command."""

from .cli import main

raise SystemExit(main())
