"""Recognisers for the evidence in free text: file paths, error lines, identifiers, numbers with units, and the
sentences that state a constraint, a decision or an open item.

Invariant: pure functions of their text, deterministic, and cheap on the common case (a quick test decides
before any splitting); the ledger, the scorer and the offline backend all read text through these.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

# -- paths -----------------------------------------------------------------------------------------

# fmt: off
_EXTENSIONS = frozenset({
    "py", "pyi", "pyx", "ipynb", "js", "jsx", "ts", "tsx", "mjs", "cjs", "json", "jsonl", "yaml", "yml",
    "toml", "ini", "cfg", "conf", "md", "rst", "txt", "csv", "tsv", "html", "htm", "css", "scss", "less",
    "go", "rs", "java", "kt", "kts", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "sh", "bash", "zsh",
    "fish", "ps1", "sql", "xml", "lock", "env", "swift", "scala", "lua", "pl", "vue", "svelte", "gradle",
    "proto", "tf", "log", "patch", "diff",
})
# fmt: on
BARE_NAMES = frozenset({"Makefile", "Dockerfile", "Justfile", "Procfile", "Gemfile", "README", "LICENSE"})
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I)
_TOKEN_SPLIT = re.compile(r"[\s\"'`()\[\]{}<>,;=|]+")
_COMPONENT = re.compile(r"[\w.@+-]+")
_DOMAIN = re.compile(r"[\w-]+(?:\.[\w-]+)*\.(?:com|org|net|io|ai|dev|edu|gov|co|app|so|me|xyz|sh|cloud)")
_ROOT_FOLDERS = frozenset(
    {"tmp", "usr", "etc", "var", "opt", "home", "Users", "mnt", "srv", "private", "workspace"}
)
_PROJECT_FOLDERS = frozenset(
    {
        "src",
        "tests",
        "test",
        "lib",
        "docs",
        "app",
        "apps",
        "packages",
        "scripts",
        "configs",
        "config",
        "bin",
        "cmd",
        "internal",
        "pkg",
        "examples",
        "benchmarks",
        "tools",
    }
)
_NAME_MARK = re.compile(r"[_.\d-]")
# ``path.py:12``, ``path.py:12:5`` and ``tests/x.py::test_name`` name a place in a file: the file is the path.
_PLACE = re.compile(r"^([^:]+\.[A-Za-z0-9]+):(?::?[\w\[\]-]*)*$")


def looks_like_path(token: str) -> bool:
    """A token that names a file or folder: an extension we know, a known bare name, or a path with slashes."""
    if "/" not in token and "." not in token and token not in BARE_NAMES:
        return False  # the common case, decided before any splitting
    if not 2 <= len(token) <= 200 or "://" in token:
        return False
    parts = token.split("/")
    last = parts[-1] or (parts[-2] if len(parts) > 1 else "")
    has_extension = "." in last.strip(".") and last.rsplit(".", 1)[-1].lower() in _EXTENSIONS
    if len(parts) == 1:
        return has_extension or token in BARE_NAMES
    inner = [part for part in parts if part]
    if not inner or not all(_COMPONENT.fullmatch(part) for part in inner):
        return False
    if all(part.replace(".", "").isdigit() for part in inner):
        return False  # a date or a version, not a path
    anchored = token.startswith(("/", "./", "../", "~/"))
    if not anchored and _DOMAIN.fullmatch(inner[0]):
        return False  # a web address without its scheme
    if has_extension or last in BARE_NAMES:
        return True
    if anchored:
        # "/build" is as likely a slash command as a folder; "/tmp", "/Users/x" and "./build" are folders.
        return len(inner) > 1 or token.startswith(("./", "../", "~/")) or inner[0] in _ROOT_FOLDERS
    # "a/b/c" without an extension is a folder only when it reads like one, not like "read/write/execute" or
    # "GPT-2/Qwen/LLaMA".
    return token.count("/") >= 2 and (
        token.endswith("/")
        or inner[0] in _PROJECT_FOLDERS
        or (token.islower() and any(_NAME_MARK.search(part) for part in inner))
    )


def path_tokens(text: str) -> list[str]:
    """Path-looking tokens in free text, in order (URLs excluded; ``file.py:12`` gives ``file.py``)."""
    found: list[str] = []
    for raw in _TOKEN_SPLIT.split(_URL.sub(" ", text)):
        token = raw.rstrip(".:!?*").lstrip(":*")  # a leading dot belongs to the name (".venv", ".env")
        if ":" in token:
            place = _PLACE.match(token)
            if place is None:
                continue
            token = place.group(1)
        if looks_like_path(token):
            found.append(token)
    return found


def path_key(path: str) -> str:
    """A path as compared: no leading ``./``, no doubled or trailing slash."""
    key = re.sub(r"/{2,}", "/", path.strip())
    while key.startswith("./"):
        key = key[2:]
    return key.rstrip("/") or key


# -- error lines -----------------------------------------------------------------------------------

# An error report ("ValueError: …", "error: …", "Traceback", "FAILED …"), not source code that merely
# mentions errors: numbered listing lines and except/raise/def lines are skipped.
_ERROR = re.compile(
    r"\btraceback\b|\w*(?:error|exception)\s*:|\b(?:failed|failure|fatal|panicked)\b|\bERR!", re.I
)
_ZERO_FAILURES = re.compile(r"\b(?:0|no) (?:failed|failures?|errors?)\b", re.I)
_CODE_LINE = re.compile(r"^\s*(?:\d+\s*[:|→]|(?:except|raise|def|class|import|from|catch|throw)\b|#|//)")
# Under re.IGNORECASE these four characters (İ ı ſ K) equal ASCII letters, so a lowered text holding one
# may hide a keyword from a plain substring test: such texts take the regex path.
_LOOKALIKE = re.compile("[\u0130\u0131\u017f\u212a]")
_ERROR_HINT = re.compile(
    r"traceback|fail|fatal|panicked|err!|(?:error|exception)\s*:|\b(?:0|no) errors?\b", re.I
)
_ERROR_WORDS = ("traceback", "fail", "fatal", "panicked", "err!", "0 error", "no error")
_ERROR_COLON = re.compile(r"(?:error|exception)\s*:")
#: Characters kept of one error line.
ERROR_CHARS = 200


def may_hold_error(text: str) -> bool:
    """False only when no line of ``text`` can be an error line (an exact, cheap pre-test)."""
    if _LOOKALIKE.search(text):
        return bool(_ERROR_HINT.search(text))
    lowered = text.lower()
    return any(word in lowered for word in _ERROR_WORDS) or bool(_ERROR_COLON.search(lowered))


def is_error_line(line: str) -> bool:
    return bool(_ERROR.search(_ZERO_FAILURES.sub("", line))) and not _CODE_LINE.match(line)


def flat(text: str, limit: int | None = None) -> str:
    """Whitespace collapsed to single spaces; cut to ``limit`` characters with an ellipsis."""
    collapsed = " ".join(text.split())
    if limit is None or len(collapsed) <= limit:
        return collapsed
    return collapsed[: limit - 1] + "…"


def error_lines(text: str) -> list[str]:
    """The error lines of a tool result, whitespace collapsed and trimmed, in order."""
    if not may_hold_error(text):
        return []
    return [
        flat(line, ERROR_CHARS) for line in text.splitlines() if may_hold_error(line) and is_error_line(line)
    ]


#: Error lines shorter than this, or a bare exception name ("RuntimeError:"), say nothing a summary could keep.
ERROR_MIN_CHARS = 12
_BARE_EXCEPTION = re.compile(r"[\w.]*(?:Error|Exception)\s*:?")


def telling_error(line: str) -> bool:
    """An error line worth a ledger entry: not a traceback's header, not a bare exception name."""
    if "traceback (most recent call last)" in line.lower() or _BARE_EXCEPTION.fullmatch(line.strip()):
        return False
    return len(line.strip().rstrip(":")) >= ERROR_MIN_CHARS


# -- identifiers -----------------------------------------------------------------------------------

_WEB_URL = re.compile(r"\bhttps?://[^\s<>\"'`()\[\]{}|\\^]+", re.I)
_SSH_REMOTE = re.compile(r"\bgit@[\w.-]+:[\w./~-]+")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
_HEX = re.compile(r"(?<![\w./-])[0-9a-f]{7,64}(?![\w-])")
_TICKET = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{1,7}\b")
_ISSUE_REF = re.compile(r"(?:(?<=\s)|^|(?<=[(\[]))(?:[\w.-]+/[\w.-]+)?#\d{2,7}\b")
_PAPER = re.compile(r"\b(?:arXiv|doi|CVE|RFC|PEP)[: ]\s?[\w.:/-]*\d[\w.:/-]*", re.I)
#: JIRA-shaped names that are standards or models, not tickets.
_NOT_TICKETS = frozenset({"UTF", "SHA", "ISO", "GPT", "MD", "AES", "RSA", "HTTP", "TLS", "SSL", "IEEE", "ES"})
_ID_HINT = re.compile(r"[0-9]|://|git@")


def identifiers(text: str) -> list[str]:
    """URLs, ssh remotes, UUIDs, hashes, tickets, issue references and paper/standard ids, in order of kind."""
    if not _ID_HINT.search(text):
        return []
    found: list[str] = [url.rstrip(".,:;!?") for url in _WEB_URL.findall(text)]
    found += _SSH_REMOTE.findall(text)
    rest = _WEB_URL.sub(" ", _SSH_REMOTE.sub(" ", text))
    found += _UUID.findall(rest)
    rest = _UUID.sub(" ", rest)
    for token in _HEX.findall(rest):
        if any(c.isdigit() for c in token) and any(c.isalpha() for c in token):
            found.append(token)
    found += [t for t in _TICKET.findall(rest) if t.split("-", 1)[0] not in _NOT_TICKETS]
    found += [ref.strip() for ref in _ISSUE_REF.findall(rest)]
    found += [paper.rstrip(".,:;") for paper in _PAPER.findall(rest)]
    return found


def identifier_key(identifier: str) -> str:
    """An identifier as compared: lower case; a URL without its scheme, ``www.`` and trailing slash."""
    key = identifier.strip().lower()
    if "://" in key:
        key = key.split("://", 1)[1]
        key = key.removeprefix("www.").rstrip("/")
    return key


def is_hex_identifier(key: str) -> bool:
    return bool(re.fullmatch(r"[0-9a-f]{7,64}", key))


# -- numbers with units ----------------------------------------------------------------------------

# fmt: off
_UNIT_ALIASES: dict[str, str] = {
    "%": "%", "percent": "%", "pct": "%",
    "x": "x", "×": "x",
    "ns": "ns", "us": "us", "µs": "us", "μs": "us", "ms": "ms",
    "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
    "min": "min", "mins": "min", "minute": "min", "minutes": "min",
    "h": "h", "hr": "h", "hrs": "h", "hour": "h", "hours": "h", "day": "d", "days": "d",
    "b": "b", "k": "k", "m": "m", "t": "t", "bn": "b",
    "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "kib": "kib", "mib": "mib", "gib": "gib",
    "byte": "bytes", "bytes": "bytes",
    "tok/s": "tok/s", "tokens/s": "tok/s", "it/s": "it/s", "req/s": "req/s", "rps": "req/s", "qps": "qps",
    "fps": "fps", "hz": "hz", "khz": "khz", "mhz": "mhz", "ghz": "ghz", "px": "px", "dpi": "dpi",
    "usd": "usd", "eur": "eur",
}
_COUNT_NOUNS = (
    "token", "tokens", "tok", "param", "params", "parameters", "step", "steps", "epoch", "epochs", "layer",
    "layers", "head", "heads", "line", "lines", "file", "files", "test", "tests", "passed", "failed", "error",
    "errors", "warning", "warnings", "skipped", "message", "messages", "call", "calls", "row", "rows", "item",
    "items", "char", "chars", "characters", "word", "words", "gpu", "gpus", "core", "cores", "thread",
    "threads", "sample", "samples", "example", "examples", "request", "requests", "commit", "commits", "task",
    "tasks", "component", "components", "phase", "phases", "compaction", "compactions",
)
# fmt: on
_SINGULAR = {
    noun: noun.rstrip("s") if noun.endswith("s") and noun not in ("passed",) else noun
    for noun in _COUNT_NOUNS
}
_SINGULAR.update(
    {"tok": "token", "params": "param", "parameters": "param", "chars": "char", "characters": "char"}
)
_UNITS = frozenset({*_UNIT_ALIASES, *_COUNT_NOUNS})
_ATTACHED_ONLY = frozenset({"x", "b", "k", "m", "t", "s", "h"})  # "3s", "20x", "7B"; "3 s" reads as prose
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# Any word after a number, read whole (possessive), then looked up: one pass, no alternation of every unit.
_QUANTITY = re.compile(
    rf"(?P<currency>[$€£])?(?<![\w.,:/#-])(?P<value>{_NUMBER})(?P<space>[ \u00a0]?)"
    r"(?P<unit>%|×|[A-Za-zµμ]++(?:/s)?+)(?![\w/])"
)
_CURRENCY = re.compile(rf"(?P<currency>[$€£])(?P<value>{_NUMBER})(?![\w.,])")
_CURRENCY_UNITS = {"$": "usd", "€": "eur", "£": "gbp"}


def _canonical_value(text: str) -> str:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return text
    normal = value.normalize()
    return format(normal, "f") if normal == normal.to_integral() else format(normal, "f").rstrip("0")


def _canonical_unit(unit: str) -> str:
    lowered = unit.lower()
    if lowered in _UNIT_ALIASES:
        return _UNIT_ALIASES[lowered]
    return _SINGULAR.get(lowered, lowered)


_DIGIT = re.compile(r"\d")
# A progress bar or a test runner's progress column: its figures change every line and mean nothing after.
PROGRESS = re.compile(r"█|\d+(?:\.\d+)?it/s\]|\[\s*\d+%\]|%\|")


def quantities(text: str) -> list[tuple[str, str]]:
    """``(as written, canonical "value unit")`` for every number with a unit or a currency sign, in order."""
    if not _DIGIT.search(text):
        return []
    found: list[tuple[int, str, str]] = []
    for match in _QUANTITY.finditer(text):
        unit = match.group("unit")
        lowered = unit.lower()
        if lowered not in _UNITS or (match.group("space") and lowered in _ATTACHED_ONLY):
            continue
        if unit in ("m", "M") and text[match.end() : match.end() + 1] == ":":
            continue
        currency = match.group("currency")
        canonical = f"{_canonical_value(match.group('value'))} {_canonical_unit(unit)}"
        if currency:
            canonical = f"{_CURRENCY_UNITS[currency]} {canonical}"
        found.append((match.start(), match.group(0).strip(), canonical))
    for match in _CURRENCY.finditer(text):
        canonical = f"{_canonical_value(match.group('value'))} {_CURRENCY_UNITS[match.group('currency')]}"
        found.append((match.start(), match.group(0), canonical))
    return [(written, canonical) for _, written, canonical in sorted(found)]


# -- sentences that state something --------------------------------------------------------------

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
CONSTRAINT = re.compile(
    r"\b(?:must(?:n't| not)?|never|always|don't|do not|should(?:n't| not)?|make sure|avoid|prefer|"
    r"only use|no longer)\b",
    re.I,
)
DECISION = re.compile(
    r"\b(?:decided|decision|decide to|chose|opted|going with|go with|we'll use|i'll use|let's use|"
    r"instead of|rather than|switch(?:ed)? to|settled on|approach is|plan is)\b",
    re.I,
)
OPEN_ITEM = re.compile(
    r"^\s*(?:[-*]\s*\[ \]|todo\b|next(?: step)?s?\s*:|next,|remaining\s*:|still need|still to do|"
    r"left to do|pending\s*:)|\b(?:TODO|FIXME)\b",
    re.I,
)
#: Characters kept of one stated sentence.
SENTENCE_CHARS = 200


def sentences(text: str) -> list[str]:
    """The sentences and lines of a text, whitespace collapsed and trimmed; markdown list marks dropped."""
    out = []
    for piece in _SENTENCE_SPLIT.split(text):
        sentence = flat(piece.strip().lstrip("#>").strip(), SENTENCE_CHARS)
        if len(sentence) >= 8:
            out.append(sentence)
    return out


# -- commands written as code in a summary ---------------------------------------------------------

# fmt: off
COMMAND_WORDS = frozenset({
    "git", "gh", "uv", "uvx", "pip", "pip3", "python", "python3", "pytest", "ruff", "mypy", "npm", "npx", "pnpm",
    "yarn", "node", "deno", "bun", "cargo", "rustc", "go", "make", "cmake", "docker", "kubectl", "helm", "ls",
    "cat", "grep", "rg", "sed", "awk", "find", "head", "tail", "cd", "mkdir", "rm", "cp", "mv", "curl", "wget",
    "bash", "sh", "zsh", "echo", "export", "source", "sleep", "kill", "pkill", "ps", "which", "chmod", "tar",
    "ssh", "scp", "rsync", "java", "mvn", "gradle", "dotnet", "ruby", "bundle", "rake", "php", "composer", "swift",
    "xcodebuild", "poetry", "conda", "brew", "apt", "apt-get", "sudo", "systemctl", "journalctl", "timeout", "env",
    "jq", "wc", "sort", "diff", "patch", "tree", "touch", "nohup", "tox", "nox", "black", "isort", "flake8",
})
# fmt: on
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[ \t]*\n(.*?)\n[ \t]*```", re.S)
_INLINE = re.compile(r"(?<!`)`([^`\n]{2,400})`(?!`)")
_SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "terminal"})


def _reads_as_command(text: str) -> bool:
    first = text.split(None, 1)[0] if text.split() else ""
    return (
        first in COMMAND_WORDS or first.startswith(("./", "~/")) or bool(re.fullmatch(r"[A-Z_]+=\S*", first))
    )


def code_commands(text: str) -> list[str]:
    """Commands a text writes as code: shell fences, and inline code starting with a command we know."""
    if "`" not in text:
        return []
    found: list[str] = []
    for language, body in _FENCE.findall(text):
        lines = [line.strip() for line in body.strip().splitlines()]
        lines = [line[2:] if line.startswith("$ ") else line for line in lines]
        block = "\n".join(lines).strip()
        if language.lower() in _SHELL_FENCES and block and _reads_as_command(block):
            found.append(block)
    for code in _INLINE.findall(_FENCE.sub(" ", text)):
        code = code.strip().removeprefix("$ ")
        if " " in code and _reads_as_command(code):
            found.append(code)
    return found
