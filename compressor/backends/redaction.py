"""Redaction for the offline backend: secrets out, our own block tags defused, before any text is quoted.

Invariant: ``redact`` replaces every API key, bearer token, password assignment and private key it can see
with "[redacted]"; each pattern runs only when a substring every match must contain is present (cheap, exact).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..markers import COVERAGE_TAG, SNAPSHOT_TAG

REDACTED = "[redacted]"

# Under re.IGNORECASE these four non-ASCII characters (İ ı ſ K) equal ASCII letters; in a text without them,
# ``text.lower()`` holds an ASCII word exactly where a case-insensitive pattern finds it, so a plain
# substring test on the lowered text is an exact (and much cheaper) stand-in for a case-insensitive search.
ASCII_LOOKALIKES = "\u0130\u0131\u017f\u212a"
_LOOKALIKE = re.compile(f"[{ASCII_LOOKALIKES}]")


def ascii_lowered(text: str) -> str | None:
    """``text.lower()``, or None when the text holds a character that case-insensitive matching folds to ASCII."""
    return None if _LOOKALIKE.search(text) else text.lower()


# Necessary pieces of the case-insensitive secret patterns: the keyword pattern needs a keyword ending just
# before an optional quote, spaces and ":" or "="; the bearer pattern needs the word itself.
_KEYWORD_HINT = re.compile(r"pass|pwd|secret|token|key", re.I)
_KEYWORD_ASSIGNMENT = re.compile(r"""(?:password|passwd|pwd|secret|token|key)["']?\s*[:=]""")
_BEARER_HINT = re.compile(r"bearer", re.I)


def _may_hold_keyword(text: str, lowered: str | None) -> bool:
    if lowered is None:
        return bool(_KEYWORD_HINT.search(text))
    return bool(_KEYWORD_ASSIGNMENT.search(lowered))


def _may_hold_bearer(text: str, lowered: str | None) -> bool:
    return bool(_BEARER_HINT.search(text)) if lowered is None else "bearer" in lowered


# Each pattern comes with a cheap test for a piece of text that every match of it contains; a text failing
# the test cannot change, so the costly substitution is skipped.
_SECRET_PATTERNS: tuple[tuple[re.Pattern[str], str, Callable[[str, str | None], bool]], ...] = (
    (
        re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.S),
        REDACTED,
        lambda text, _: "-----BEGIN " in text,
    ),
    (
        re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@", re.I),
        rf"\1{REDACTED}@",
        lambda text, _: "://" in text and "@" in text,
    ),
    (re.compile(r"(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}", re.I), rf"\1{REDACTED}", _may_hold_bearer),
    (
        re.compile(
            r"""(\b(?:password|passwd|pwd|secret|client[_-]?secret|token|access[_-]?token|api[_-]?key|"""
            r"""access[_-]?key|secret[_-]?key)["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"'}]+)""",
            re.I,
        ),
        rf"\1{REDACTED}",
        _may_hold_keyword,
    ),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), REDACTED, lambda text, _: "sk-" in text),
    (
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
        REDACTED,
        lambda text, _: "gh" in text or "github_pat_" in text,
    ),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), REDACTED, lambda text, _: "xox" in text),
    (re.compile(r"\bAKIA[0-9A-Z]{16}\b"), REDACTED, lambda text, _: "AKIA" in text),
    (re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"), REDACTED, lambda text, _: "AIza" in text),
)


def redact(text: str) -> str:
    """``text`` with API keys, bearer tokens, passwords and private keys replaced by "[redacted]"."""
    lowered = ascii_lowered(text)
    for pattern, replacement, may_match in _SECRET_PATTERNS:
        if may_match(text, lowered):
            text, replaced = pattern.subn(replacement, text)
            if replaced:
                lowered = ascii_lowered(text)
    return text


_BLOCK_TAG = re.compile(rf"</?\s*(?:{SNAPSHOT_TAG}|{COVERAGE_TAG})\s*>", re.I)


def defused(text: str) -> str:
    """Redacted, and with our own block tags defused so quoted text cannot end the snapshot early."""
    return _BLOCK_TAG.sub(lambda tag: tag.group(0).replace("<", "(").replace(">", ")"), redact(text))
