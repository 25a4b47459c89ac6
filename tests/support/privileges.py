"""Acting as an ordinary user inside a test, so permission bits mean something even when tests run as root."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

NOBODY = 65534


@contextlib.contextmanager
def unprivileged() -> Iterator[None]:
    """Permission bits do not stop root, so a root test process acts as user ``nobody`` for the block."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(NOBODY)
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)
