"""An API key's written forms, known in one place, so whatever leaves the process is cleaned of it in one call.

Invariant: ``KeyGuard.scrub`` leaves no guarded key in a text — plain, JSON-escaped, escaped character by character
(``\\u``, ``%``, ``\\x``, ``&#``, mixed), base64 at any alignment, hex, or a run of half of it; ``key_problem``
says why a key cannot go into an HTTP header (control characters) without ever repeating the key.
"""

from __future__ import annotations

import base64
import bisect
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import Any

REDACTED = "[redacted]"
#: Shorter keys are guarded only as whole words, plain or JSON-escaped: their encodings and halves are too short
#: to tell from ordinary text (gateways that ignore the key are given placeholders such as "EMPTY").
MIN_GUARDED_CHARS = 8
#: A run of a key this long and at least half the key is redacted wherever it stands: half a key is half cracked.
MIN_FRAGMENT_CHARS = 8
#: What every escaped spelling holds (besides a percent sign before two hex digits): a text holding none of
#: them cannot hold one, and the escape regex (slow where a JSON text has many ``\n``) is not run.
_ESCAPE_HINTS = ("\\u", "\\U", "\\x", "&#")
_PERCENT_ESCAPE = re.compile("%[0-9A-Fa-f]{2}")
#: One character written escaped, as JSON (any run of backslashes: JSON inside JSON), a URL, C or HTML writes it.
_ESCAPE = re.compile(
    r"\\+[uU]([0-9a-fA-F]{4})|\\+x([0-9a-fA-F]{2})|%([0-9a-fA-F]{2})|&#[xX]0*([0-9a-fA-F]{1,6});|&#0*([0-9]{1,7});"
)
_WORD = "A-Za-z0-9_-"
_CHARACTER_NAMES = {
    "\r": "a carriage return (\\r)",
    "\n": "a line feed (\\n)",
    "\t": "a tab (\\t)",
    "\x00": "a NUL character",
}


def _is_control(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp")


def normalised(key: str) -> str:
    """The key as a server would most likely echo it: control characters removed, outer spaces stripped."""
    return "".join(char for char in key if not _is_control(char)).strip()


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot be sent as a Bearer header, in words that never repeat it; None when it can."""
    for position, char in enumerate(key, start=1):
        control = _is_control(char)
        if not control and char.isascii():
            continue
        name = (
            _CHARACTER_NAMES.get(char, f"the control character U+{ord(char):04X}")
            if control
            else ("a non-ASCII character")
        )
        if position == len(key):
            where = f"ends in {name}"
        elif position == 1:
            where = f"starts with {name}"
        else:
            where = f"holds {name} at character {position} of {len(key)}"
        hint = (
            "a Windows line ending or a pasted tab? remove it"
            if control
            else "copied from a formatted page? type it again"
        )
        return f"the API key {where}; an HTTP header cannot carry it, so it was not sent ({hint})"
    return None


def _hex_digits(code: int, width: int) -> str:
    """``code`` in hex as a regex that takes either case of each letter."""
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{code:0{width}x}")


def _escaped_char(char: str) -> str:
    """A regex for one character, written as itself or in any escape a JSON, URL, C or HTML text may use."""
    code = ord(char)
    options = [re.escape(char)]
    # One backslash or more (an escape in a JSON string inside JSON has its own escaped); each option starts with a
    # plain character, so the regex engine can skip ahead to the characters that may begin a match.
    if code < 0x10000:
        options.append(r"\\\\*[uU]" + _hex_digits(code, 4))
    if code < 0x80:
        options += ["%" + _hex_digits(code, 2), r"\\\\*x" + _hex_digits(code, 2), f"&#0*{code};"]
        options.append("&#[xX]0*" + _hex_digits(code, 2) + ";")
    if char in '/"\\':
        options.append(r"\\\\*" + re.escape(char))
    return "(?:" + "|".join(options) + ")"


def _plain_forms(key: str) -> set[str]:
    """The key as written in text, in JSON (both ways of escaping non-ASCII) and in a Python repr."""
    forms = {key, json.dumps(key)[1:-1], json.dumps(key, ensure_ascii=False)[1:-1], repr(key)[1:-1]}
    forms.add(repr(key.encode("utf-8", "surrogatepass"))[2:-1])
    return {form for form in forms if form}


def _encoded_forms(key: str) -> set[str]:
    """Hex, and base64 (standard and URL-safe) at each of the three alignments the key may start at."""
    data = key.encode("utf-8", "surrogatepass")
    forms = {data.hex(), data.hex().upper()}
    for shift in range(3):
        encoded = base64.b64encode(bytes(shift) + data).decode("ascii")
        # Only the characters whose six bits all come from the key are the same whatever surrounds it.
        core = encoded[-(-8 * shift // 6) : 8 * (shift + len(data)) // 6]
        forms.update({core, core.replace("+", "-").replace("/", "_")})
    full = base64.b64encode(data).decode("ascii")
    forms.update({full, full.replace("+", "-").replace("/", "_")})
    return {form for form in forms if len(form) >= MIN_GUARDED_CHARS}


class KeyGuard:
    """The keys a process holds, and every way of writing them it must never let out."""

    def __init__(self, keys: Iterable[str | None] = ()) -> None:
        literals: set[str] = set()
        words: set[str] = set()
        escaped: list[str] = []
        long_keys: list[str] = []
        self._fragments: list[tuple[str, int]] = []
        self._runs: list[tuple[str, int]] = []  # each long key with the shortest run of it that is redacted
        self._count = 0
        for given in keys:
            raw = given or ""
            key = normalised(raw)
            if not key:
                continue
            self._count += 1
            forms = _plain_forms(key) | _plain_forms(raw)
            if len(key) < MIN_GUARDED_CHARS:
                words.update(forms)
                continue
            long_keys.append(key)
            literals.update(forms | _encoded_forms(key) | {key.upper(), key.lower()})  # echoed upper-cased
            escaped.append("".join(_escaped_char(char) for char in key))
            run = max(MIN_FRAGMENT_CHARS, len(key) // 2)
            if run < len(key):
                self._fragments.append((key, run))
            self._runs.append((key, min(run, len(key))))
        # Longest first, so a form holding another is found whole.
        self._literals = tuple(sorted(literals, key=len, reverse=True))
        self._words = (
            re.compile(
                f"(?<![{_WORD}])(?:{'|'.join(map(re.escape, sorted(words, key=len, reverse=True)))})(?![{_WORD}])"
            )
            if words
            else None
        )
        self._escaped = re.compile("|".join(escaped)) if escaped else None
        specials = {char for char in '/"\\' if any(char in key for key in long_keys)}
        self._hints = _ESCAPE_HINTS + tuple("\\" + char for char in sorted(specials))

    def __bool__(self) -> bool:
        return bool(self._literals or self._words is not None)

    def __repr__(self) -> str:
        return f"KeyGuard({self._count} key(s))"  # never the keys themselves

    def scrub(self, text: str) -> str:
        """``text`` with every guarded form of every key replaced by "[redacted]"."""
        if not self or not text:
            return text
        spans = sorted(self._spans(text))
        if not spans:
            return text
        pieces: list[str] = []
        position = 0
        for start, end in _merged(spans, text):
            found = text[start:end]
            # A key of digits may stand inside a JSON number: nines keep the number a number.
            pieces += [text[position:start], "9" * len(found) if found.isdigit() else REDACTED]
            position = end
        pieces.append(text[position:])
        return "".join(pieces)

    def holds(self, text: str) -> bool:
        """Whether any form of a guarded key appears in ``text``."""
        return bool(self) and bool(text) and next(iter(self._spans(text)), None) is not None

    def scrub_value(self, value: Any) -> Any:
        """A JSON value with every string (object keys too) scrubbed; other values are returned as they are."""
        if not self:
            return value
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return {
                (self.scrub(k) if isinstance(k, str) else k): self.scrub_value(v) for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.scrub_value(item) for item in value]
        return value

    def _spans(self, text: str) -> Iterator[tuple[int, int]]:
        for form in self._literals:
            start = text.find(form)
            while start != -1:
                yield start, start + len(form)
                start = text.find(form, start + 1)
        if self._words is not None:
            yield from (match.span() for match in self._words.finditer(text))
        if self._escaped is not None and (
            any(hint in text for hint in self._hints) or _PERCENT_ESCAPE.search(text) is not None
        ):
            yield from (match.span() for match in self._escaped.finditer(text))
            # Read with its escapes decoded, the text may hold a run of a key that no whole form shows: an escaped
            # key cut in half by a preview, or escapes of several kinds mixed.
            view = _Unescaped.of(text)
            if view is not None:
                for key, run in self._runs:
                    yield from (view.original(*span) for span in _fragment_spans(view.text, key, run))
        for key, run in self._fragments:
            yield from _fragment_spans(text, key, run)


def _fragment_spans(text: str, key: str, run: int) -> Iterator[tuple[int, int]]:
    """Spans of ``text`` that repeat at least ``run`` consecutive characters of ``key``.

    Any such run holds one of the key's aligned chunks of ``ceil(run / 2)`` characters whole, so finding those
    (a fast substring search) and growing each hit along the key finds every run.
    """
    chunk = (run + 1) // 2
    for offset in range(0, len(key) - chunk + 1, chunk):
        found = text.find(key[offset : offset + chunk])
        while found != -1:
            origin = found - offset  # where key[0] would stand in the text
            first, last = offset, offset + chunk
            while first > 0 and origin + first > 0 and text[origin + first - 1] == key[first - 1]:
                first -= 1
            while last < len(key) and origin + last < len(text) and text[origin + last] == key[last]:
                last += 1
            if last - first >= run:
                yield origin + first, origin + last
            found = text.find(key[offset : offset + chunk], found + 1)


class _Unescaped:
    """A text with each escaped character decoded, and the way back from a decoded span to the written one."""

    def __init__(self, text: str, segments: list[tuple[int, int, int, bool]]) -> None:
        self.text = text
        self._segments = segments  # (decoded start, written start, written end, one escaped character)
        self._starts = [segment[0] for segment in segments]

    @classmethod
    def of(cls, text: str) -> _Unescaped | None:
        pieces: list[str] = []
        segments: list[tuple[int, int, int, bool]] = []
        position = size = 0
        for match in _ESCAPE.finditer(text):
            digits = next(group for group in match.groups() if group is not None)
            code = int(digits, 10 if match.group(5) is not None else 16)
            if code > 0x10FFFF:
                continue  # not a character: read as it is written
            if match.start() > position:
                segments.append((size, position, match.start(), False))
                pieces.append(text[position : match.start()])
                size += match.start() - position
            segments.append((size, match.start(), match.end(), True))
            pieces.append(chr(code))
            size += 1
            position = match.end()
        if not segments:
            return None
        if position < len(text):
            segments.append((size, position, len(text), False))
            pieces.append(text[position:])
        return cls("".join(pieces), segments)

    def original(self, start: int, end: int) -> tuple[int, int]:
        return self._written(start, closing=False), self._written(end - 1, closing=True)

    def _written(self, index: int, *, closing: bool) -> int:
        decoded, written, written_end, escape = self._segments[bisect.bisect_right(self._starts, index) - 1]
        if escape:
            return written_end if closing else written
        return written + index - decoded + (1 if closing else 0)


def _merged(spans: list[tuple[int, int]], text: str) -> Iterator[tuple[int, int]]:
    """Sorted spans joined where they touch; a span right after an escaping backslash takes the backslash too,
    so redacting inside a JSON string never leaves a broken escape behind."""
    current: tuple[int, int] | None = None
    for start, end in spans:
        backslashes = 0
        while start - backslashes > 0 and text[start - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2:
            start -= 1
        if current is not None and start <= current[1]:
            current = (current[0], max(current[1], end))
            continue
        if current is not None:
            yield current
        current = (start, end)
    if current is not None:
        yield current


__all__ = ["MIN_FRAGMENT_CHARS", "MIN_GUARDED_CHARS", "REDACTED", "KeyGuard", "key_problem", "normalised"]
