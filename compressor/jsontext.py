"""Text and JSON as they leave the process: always encodable as UTF-8, and always valid JSON.

Invariant: ``encodable`` writes each lone surrogate as the six characters ``\\udXXX`` (so a print, a log line or a
file write never fails on one); ``json_text`` never writes NaN, Infinity or an integer Python cannot print (null).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: str) -> str:
    """``text`` with every lone surrogate (a file name's undecodable byte, a broken escape) written as ``\\udXXX``."""
    if text.isascii() or _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _writable(value: Any) -> Any:
    """``value`` with non-finite floats and unprintable integers as None (only called when dumping failed)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            str(value)
        except ValueError:  # more digits than int-to-str conversion allows
            return None
        return value
    if isinstance(value, dict):
        return {key: _writable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_writable(item) for item in value]
    return value


def json_text(value: Any, *, indent: int | None = None, default: Callable[[Any], Any] | None = None) -> str:
    """``value`` as JSON (non-ASCII kept as is): NaN and infinities as null, lone surrogates escaped.

    Raises TypeError for what JSON cannot hold (unless ``default`` converts it), like ``json.dumps``.
    """
    options: dict[str, Any] = {
        "ensure_ascii": False,
        "allow_nan": False,
        "indent": indent,
        "default": default,
    }
    try:
        text = json.dumps(value, **options)
    except ValueError:  # a NaN, an infinity or a giant integer somewhere: rare, so only then walk the value
        text = json.dumps(_writable(value), **options)
    return encodable(text)


__all__ = ["encodable", "json_text"]
