"""The ``compaction-lab`` command line: one module per command, the shared flags and writers in ``common``.

Invariant: this is the only room of ``compressor`` that may import ``dashboard`` (the app and the HTML report).
"""

from .common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK
from .main import build_parser, main

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "EXIT_OK", "build_parser", "main"]
