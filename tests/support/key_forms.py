"""The ways a key can be written down, computed independently of the library's KeyGuard.

Invariant: ``spellings(text, key)`` lists every form of ``key`` still readable in ``text`` — as is, after URL,
HTML or (nested) backslash unescaping, as hex or base64 at any alignment, or as either half — so a test that
checks an artefact with it does not share a blind spot with the code under test.
"""

from __future__ import annotations

import base64
import codecs
import html
import urllib.parse
import warnings


def _readings(text: str) -> list[str]:
    """The text as each kind of unescaping would read it (the ones that fail are left out)."""
    readings = [text, urllib.parse.unquote(text), html.unescape(text)]
    for _ in range(2):  # JSON inside JSON escapes its escapes
        try:
            with warnings.catch_warnings():  # markdown's "\-" is no escape: read as it stands
                warnings.simplefilter("ignore", DeprecationWarning)
                readings.append(codecs.decode(readings[-1], "unicode_escape"))
        except UnicodeDecodeError:
            break
    return readings


def key_forms(key: str) -> list[str]:
    data = key.encode()
    half = len(key) // 2
    forms = [key, key.upper(), key[:half], key[half:], data.hex(), data.hex().upper()]
    for shift in range(3):
        encoded = base64.b64encode(bytes(shift) + data).decode()
        # one character less at each end than fully determined: what survives whatever surrounds the key
        core = encoded[-(-8 * shift // 6) + 1 : 8 * (shift + len(data)) // 6 - 1]
        forms += [core, core.replace("+", "-").replace("/", "_")]
    return forms


def spellings(text: str, key: str) -> list[str]:
    """Every form of ``key`` that ``text`` still holds; [] when none."""
    readings = _readings(text)
    return [form for form in key_forms(key) if any(form in reading for reading in readings)]
