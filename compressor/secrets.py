"""Secrets in text — API keys, tokens, passwords, private keys — found so a summary or a message can be flagged.

Invariant: a ``Finding`` says what kind of secret sits where, and its ``preview`` never holds the secret itself:
at most a few leading and trailing characters around an ellipsis. Pure functions; nothing is changed or logged.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .messages import Message

ELLIPSIS = "…"


@dataclass(frozen=True)
class Finding:
    """One secret: its kind, a plain label, where it is (``start``/``end`` of the secret in the text), a masked preview."""

    kind: str
    label: str
    start: int
    end: int
    preview: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "label": self.label,
            "start": self.start,
            "end": self.end,
            "preview": self.preview,
        }


@dataclass(frozen=True)
class _Rule:
    kind: str
    label: str
    pattern: re.Pattern[str]
    group: int = 0  # the group holding the secret itself
    name_group: int | None = None  # for assignments: the variable name, shown in the preview


_ASSIGNED_NAMES = (
    r"password|passwd|passphrase|secret|client[_-]?secret|secret[_-]?key|private[_-]?key|"
    r"api[_-]?key|apikey|access[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|token"
)

# Most specific first: where two rules match overlapping text, the earlier rule's finding is kept.
_RULES: tuple[_Rule, ...] = (
    _Rule(
        "private_key",
        "private key block",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.S,
        ),
    ),
    _Rule("anthropic_key", "Anthropic API key", re.compile(r"(?<![\w-])sk-ant-[A-Za-z0-9_-]{16,}")),
    _Rule("openai_key", "OpenAI-style API key (sk-…)", re.compile(r"(?<![\w-])sk-[A-Za-z0-9_-]{16,}")),
    _Rule(
        "aws_access_key",
        "AWS access key id",
        re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])"),
    ),
    _Rule(
        "github_token",
        "GitHub token",
        re.compile(r"(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"),
    ),
    _Rule("slack_token", "Slack token", re.compile(r"(?<![\w-])xox[abposr]-[A-Za-z0-9-]{10,}")),
    _Rule("google_api_key", "Google API key", re.compile(r"(?<![\w-])AIza[0-9A-Za-z_-]{35,}")),
    _Rule(
        "url_credentials",
        "password in a URL",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:([^/\s@]{3,})@", re.I),
        group=1,
    ),
    _Rule(
        "bearer_token",
        "bearer token",
        re.compile(r"\bbearer\s+([A-Za-z0-9._~+/-]{12,}=*)", re.I),
        group=1,
    ),
    _Rule(
        "assignment",
        "secret assigned to a name",
        # The match starts at the secret-like word; the whole identifier is recovered by walking back
        # (a leading lazy ``[\w-]*?`` here made the scan try every position of every text).
        re.compile(
            rf"""((?:{_ASSIGNED_NAMES}))["']?\s*[:=]\s*(?:"([^"\n]*)"|'([^'\n]*)'|([^\s,;&"'(){{}}\[\]<>]+))""",
            re.I,
        ),
        group=-1,  # whichever of groups 2–4 matched
        name_group=1,
    ),
)

# Cheap substring tests (on lower-cased text) that must hold before a rule's regex is worth running.
_HINTS: dict[str, tuple[str, ...]] = {
    "private_key": ("private key",),
    "anthropic_key": ("sk-ant-",),
    "openai_key": ("sk-",),
    "aws_access_key": ("akia", "asia"),
    "github_token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "slack_token": ("xox",),
    "google_api_key": ("aiza",),
    "url_credentials": ("://",),
    "bearer_token": ("bearer",),
    "assignment": ("pass", "secret", "key", "token"),
}

_PLACEHOLDER = re.compile(
    r"^(?:\**|x+|\.+|-+|none|null|nil|true|false|undefined|changeme|redacted|\[redacted\]|<[^>]*>|"
    r"\$\{?[\w.]+\}?|\{\{.*\}\}|%\(?\w+\)?s?|your[_-].*|example.*|placeholder.*|\[secret omitted.*)$",
    re.I,
)
_REFERENCE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|^[A-Z][A-Z0-9_]*$")  # config.key, API_KEY
#: A template filled in elsewhere (``${DB_PASSWORD:-x}``, ``{{ api_key }}``, ``<%= ENV %>``, ``%(key)s``): no secret.
_TEMPLATE = re.compile(r"\$\{|\{\{|\{%|<%|%\(")
#: Code, not a value: a camelCase name (``validatePassword``) or a word of the language or of its types.
_CAMEL = re.compile(r"^[a-z]+(?:[A-Z][a-z]*)+$")
_CODE_WORDS = frozenset(
    "await async new function lambda this self cls return yield string str number int float bool boolean "
    "bytes any object unknown void optional".split()
)
_MIN_ASSIGNED = 4


def mask(secret: str) -> str:
    """A preview that cannot be the secret: a little of each end of long values, nothing of short ones."""
    if len(secret) >= 20:
        return f"{secret[:4]}{ELLIPSIS}{secret[-2:]}"
    if len(secret) >= 10:
        return f"{secret[:2]}{ELLIPSIS}"
    return ELLIPSIS


def _assigned_value(match: re.Match[str]) -> tuple[str, int, int] | None:
    for group in (2, 3, 4):
        value = match.group(group)
        if value is not None:
            start, end = match.span(group)
            stripped = value.strip()
            if len(stripped) < _MIN_ASSIGNED or _PLACEHOLDER.match(stripped):
                return None
            if _TEMPLATE.search(stripped):
                return None  # a placeholder a template fills in
            if group == 4 and _REFERENCE.match(stripped):
                return None  # code naming where the secret comes from, not the secret
            if group == 4 and (
                _CAMEL.match(stripped) or stripped in _CODE_WORDS or match.string[end : end + 1] == "("
            ):
                return (
                    None  # code: a call, a camelCase name, a keyword or a type (`isValidPassword = check(…)`)
                )
            return value, start, end
    return None


def _identifier(text: str, match: re.Match[str]) -> str | None:
    """The whole name ending in the matched secret-like word, or None when it is part of a path or attribute."""
    start = match.start(1)
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_-"):
        start -= 1
    if start > 0 and text[start - 1] in "./":
        return None
    return text[start : match.end(1)]


def _findings(rule: _Rule, text: str) -> list[Finding]:
    out: list[Finding] = []
    for match in rule.pattern.finditer(text):
        name = None
        if rule.name_group is not None:
            name = _identifier(text, match)
            if name is None:
                continue
        if rule.group == -1:
            found = _assigned_value(match)
            if found is None:
                continue
            value, start, end = found
        else:
            value, (start, end) = match.group(rule.group), match.span(rule.group)
        if rule.kind == "private_key":
            preview = (
                value[: value.index("-----", 5) + 5] + ELLIPSIS
            )  # the BEGIN line names the key type only
        elif rule.name_group is not None:
            preview = f"{name}={mask(value)}"
        else:
            preview = mask(value)
        out.append(Finding(rule.kind, rule.label, start, end, preview))
    return out


def find_secrets(text: str) -> list[Finding]:
    """Every secret-looking value in ``text``, in order of position; overlaps are reported once."""
    taken: list[tuple[int, int]] = []
    kept: list[Finding] = []
    lowered = text.lower()
    for rule in _RULES:
        if not any(hint in lowered for hint in _HINTS[rule.kind]):
            continue
        for finding in _findings(rule, text):
            if any(finding.start < end and start < finding.end for start, end in taken):
                continue
            taken.append((finding.start, finding.end))
            kept.append(finding)
    return sorted(kept, key=lambda f: (f.start, f.end))


def find_secrets_in_messages(messages: Sequence[Message]) -> list[tuple[int, Finding]]:
    """(message index, finding) for each secret in the messages' text and their tool-call arguments.

    Positions in a finding are relative to the text it was found in (the content, or one call's arguments).
    """
    out: list[tuple[int, Finding]] = []
    for index, message in enumerate(messages):
        texts = [message.text, *(call.arguments for call in message.tool_calls or ())]
        for text in texts:
            out.extend((index, finding) for finding in find_secrets(text))
    return out


__all__ = ["Finding", "find_secrets", "find_secrets_in_messages", "mask"]
