"""Text and JSON as they leave the process: always encodable as UTF-8, and always valid JSON.

Invariant: ``encodable`` writes each lone surrogate as the six characters ``\\udXXX`` (so a print, a log line or a
file write never fails on one), and ``writable_value`` does so for every string of a JSON value; ``json_text`` never
writes NaN, Infinity or an integer Python cannot print (null).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
#: How a surrogate gets into parsed JSON: a ``\\uD800``-style escape, or its UTF-8-style bytes (``json.loads`` reads
#: bytes with "surrogatepass"). Bytes holding neither parse to no surrogate at all.
_SURROGATE_SOURCE = re.compile(rb"\\[uU][dD][89a-fA-F]|\xed[\xa0-\xbf]")
_SURROGATE_ESCAPE = re.compile(r"\\[uU][dD][89a-fA-F]")
# An escape (after an even run of backslashes) of a surrogate that is not one half of a high-low pair.
_LONE_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})"
)


def encodable(text: str) -> str:
    """``text`` with every lone surrogate (a file name's undecodable byte, a broken escape) written as ``\\udXXX``."""
    if text.isascii() or _LONE_SURROGATE.search(text) is None:
        return text
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def may_hold_surrogates(raw: bytes | str) -> bool:
    """Whether JSON text could parse to a string holding a lone surrogate (False means it cannot)."""
    if isinstance(raw, str):
        return _SURROGATE_ESCAPE.search(raw) is not None or _LONE_SURROGATE.search(raw) is not None
    return _SURROGATE_SOURCE.search(raw) is not None


def inert_escapes(text: str) -> str:
    """``text`` with every JSON escape of a surrogate (``\\ud800``) turned into escaped text (``\\\\ud800``), so a
    string that is JSON itself (tool arguments, a tool's JSON result) parses to no lone surrogate either. A pair
    (``\\ud83d\\ude00``, an emoji) is kept: it parses whole."""
    if "\\" not in text or _SURROGATE_ESCAPE.search(text) is None:
        return text
    return _LONE_ESCAPE.sub(lambda match: match.group(1) + "\\" + match.group(2), text)


def writable_value(value: Any) -> Any:
    """A JSON value with every string (object keys too) ``encodable``; a value without a surrogate is returned as is."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {writable_value(key): writable_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [writable_value(item) for item in value]
    return value


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


__all__ = ["encodable", "inert_escapes", "json_text", "may_hold_surrogates", "writable_value"]
