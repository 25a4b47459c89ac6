"""Whether an artifact survives in a summary: one matching rule per category, each naming how it matched.

Invariant: a summary is read once (``SummaryIndex``) and every rule is a pure function of the artifact, that
index and the ledger's own paths; a rule returns a match code or None, never a score to threshold later.

| category    | exact                                      | normalised (code)                                      |
|-------------|--------------------------------------------|--------------------------------------------------------|
| paths       | the path (no ``./``, no trailing ``/``)    | a longer path ending in it (extended); a tail of ≥ 2 parts that no other path of the ledger shares (suffix); its file name when unique in the ledger (basename); for a folder, a path inside it (inside) |
| commands    | the whole command, whitespace collapsed    | without ``cd DIR &&``, ``2>&1``, a trailing ``| head``/``| tail`` or a heredoc body (normalised) |
| errors      | the line, case/whitespace folded           | its first 60 characters (prefix); its message after ``Type:``, or the line with digits blurred (normalised); one summary sentence naming two or more, and 40 %, of its code names (``no_cuda``, ``TrainingArguments``), or holding 70 % of its words (paraphrase) |
| identifiers | the id, case folded; a URL without scheme  | a hash's 7+ character prefix, or a longer hash it starts (prefix) |
| numbers     | the same value and unit (``1,000 steps`` = ``1000 step``, ``3.50s`` = ``3.5 s``) | — |
| tools       | the tool's name as a word: case-sensitive (``Bash``, ``Read``) unless it reads as code (``read_file``, ``TodoWrite``: case folded) | — |
| constraints, todos, decisions | the sentence, case/whitespace folded | one summary sentence holding ≥ 60 % (and ≥ 3) of its content words (paraphrase) |

Commands (and plain tool names) are case-sensitive; everything else is compared case-insensitively. A command,
tool name or identifier must stand as a word of its own (``ls`` is not found inside ``tools``), a path as a whole
path (``/srv/app`` is not found inside ``/srv/application``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property
from typing import Literal

from . import recognisers as rec
from .artifacts import PROSE, Artifact, Category

MatchKind = Literal["exact", "extended", "suffix", "basename", "inside", "normalised", "prefix", "paraphrase"]
MATCH_KINDS: tuple[MatchKind, ...] = (
    "exact",
    "extended",
    "suffix",
    "basename",
    "inside",
    "normalised",
    "prefix",
    "paraphrase",
)
#: Share of an item's content words one summary sentence must hold for a paraphrase match, and the least count.
PARAPHRASE_SHARE = 0.6
PARAPHRASE_WORDS = 3
#: Characters of a long error line that, found in the summary, count as the error kept (summaries trim them).
ERROR_PREFIX = 60
#: Characters an error's message (after ``Type:``) needs before it may stand for the whole line.
ERROR_MESSAGE_MIN = 16
#: Share of an error's code names one summary sentence must hold (two at least) to count as a paraphrase of it.
ERROR_NAMES_SHARE = 0.4

# fmt: off
_STOPWORDS = frozenset("""
a an the and or but if then else of to in on at by for with from into onto over under as is are was were be been
being it its this that these those there here we you i he she they them our your my me us do does did done not no
so than too very can could should would will shall may might must just also only all any some each every more most
such via per up out about after before again once now new use used using make made get got let lets
""".split())
# fmt: on
_WORD = re.compile(r"[a-z0-9][a-z0-9_'-]*")
_DIGITS = re.compile(r"\d+")
_CD_PREFIX = re.compile(r"^(?:cd\s+\S+\s*(?:&&|;)\s*)+")
_FILTER_SUFFIX = re.compile(r"(?:\s*\|\s*(?:head|tail)(?:\s+-n)?(?:\s+-?\d+)?\s*|\s+2>&1)+$")
_PATH_GLUE = re.compile(r"[\w./-]")
_HEREDOC = re.compile(r"<<-?\s*['\"]?\w+['\"]?")


def _stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str) -> frozenset[str]:
    return frozenset(
        _stem(w.strip("'-")) for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOPWORDS
    )


_CODE_NAME = re.compile(r"[A-Za-z_][\w.]*\w")


def code_names(text: str) -> frozenset[str]:
    """The names in a text that read as code (``no_cuda``, ``TrainingArguments``, ``torch.compile``), lower case."""
    return frozenset(
        token.lower()
        for token in _CODE_NAME.findall(text)
        if "_" in token.strip("_")
        or "." in token
        or (any(c.isupper() for c in token[1:]) and any(c.islower() for c in token))
    )


def fold(text: str) -> str:
    """Lower case, whitespace collapsed, markdown code and emphasis marks dropped."""
    return " ".join(text.lower().replace("`", "").replace("**", "").split())


def _bounded(haystack: str, needle: str) -> bool:
    """``needle`` occurs in ``haystack`` not glued to a word character on a side where it has one itself."""
    if not needle:
        return False
    start = haystack.find(needle)
    glue_left, glue_right = needle[0].isalnum() or needle[0] == "_", needle[-1].isalnum() or needle[-1] == "_"
    while start >= 0:
        before = haystack[start - 1] if start else " "
        end = start + len(needle)
        after = haystack[end] if end < len(haystack) else " "
        if not (glue_left and (before.isalnum() or before == "_")) and not (
            glue_right and (after.isalnum() or after == "_")
        ):
            return True
        start = haystack.find(needle, start + 1)
    return False


def command_core(key: str) -> str:
    """A collapsed command without what does not change what it runs: a leading ``cd DIR &&``, ``2>&1`` and a
    trailing ``| head``/``| tail``; a heredoc keeps only its first line."""
    core = key
    heredoc = _HEREDOC.search(core)
    if heredoc:
        core = core[: heredoc.end()]
    core = _CD_PREFIX.sub("", core)
    return _FILTER_SUFFIX.sub("", core).strip()


class SummaryIndex:
    """A summary (or any kept text) read once, in every form the rules compare against; each form is built on
    first use (a long kept text is mostly asked for a few misses)."""

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def flat(self) -> str:
        return " ".join(self.text.split())

    @cached_property
    def plain(self) -> str:
        return self.flat.replace("`", "")

    @cached_property
    def folded(self) -> str:
        return fold(self.text)

    @cached_property
    def blurred(self) -> str:
        return _DIGITS.sub("0", self.folded)

    @cached_property
    def paths(self) -> set[str]:
        return {rec.path_key(p) for p in rec.path_tokens(self.text)}

    @cached_property
    def by_name(self) -> dict[str, list[str]]:
        names: dict[str, list[str]] = {}
        for path in sorted(self.paths):
            names.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        return names

    @cached_property
    def identifiers(self) -> set[str]:
        return {rec.identifier_key(i) for i in rec.identifiers(self.text)}

    @cached_property
    def hexes(self) -> list[str]:
        return sorted(i for i in self.identifiers if rec.is_hex_identifier(i))

    @cached_property
    def quantities(self) -> set[str]:
        return {canonical for _, canonical in rec.quantities(self.text)}

    @cached_property
    def sentences(self) -> list[str]:
        return rec.sentences(self.text)

    @cached_property
    def postings(self) -> dict[str, list[int]]:
        found: dict[str, list[int]] = {}
        for number, sentence in enumerate(self.sentences):
            for word in content_words(sentence):
                found.setdefault(word, []).append(number)
        return found

    @cached_property
    def name_postings(self) -> dict[str, set[int]]:
        found: dict[str, set[int]] = {}
        for number, sentence in enumerate(self.sentences):
            for name in code_names(sentence):
                found.setdefault(name, set()).add(number)
        return found

    def names_together(self, names: frozenset[str], share: float = ERROR_NAMES_SHARE) -> bool:
        """Whether one summary sentence names two or more of ``names`` and at least ``share`` of them (a dotted
        name also counts by its head: ``TrainingArguments`` for ``TrainingArguments.__init__``)."""
        hits: Counter[int] = Counter()
        for name in names:
            found = self.name_postings.get(name) or self.name_postings.get(name.split(".", 1)[0]) or set()
            hits.update(found)
        if not hits:
            return False
        best = hits.most_common(1)[0][1]
        return best >= 2 and best >= share * len(names)

    def paraphrased(self, text: str, share: float = PARAPHRASE_SHARE) -> bool:
        words = content_words(text)
        if len(words) < PARAPHRASE_WORDS:
            return False
        hits: Counter[int] = Counter()
        for word in words:
            hits.update(self.postings.get(word, ()))
        if not hits:
            return False
        best = hits.most_common(1)[0][1]
        return best >= PARAPHRASE_WORDS and best >= share * len(words)


class PathDepths:
    """For each path of a ledger, how many trailing parts it takes to name it alone among the ledger's paths."""

    def __init__(self, keys: Iterable[str]) -> None:
        parted = {key: key.strip("/").split("/") for key in keys}
        tails: Counter[str] = Counter()
        for parts in parted.values():
            tails.update("/".join(parts[-k:]) for k in range(1, len(parts) + 1))
        self.depth: dict[str, int] = {}
        for key, parts in parted.items():
            self.depth[key] = next(
                (k for k in range(1, len(parts) + 1) if tails["/".join(parts[-k:])] == 1), len(parts)
            )


def match_path(item: Artifact, summary: SummaryIndex, depths: PathDepths) -> MatchKind | None:
    key = item.key
    if key in summary.paths:
        return "exact"
    parts = key.strip("/").split("/")
    depth = depths.depth.get(key, len(parts))
    for token in summary.by_name.get(parts[-1], ()):
        if token.endswith("/" + key.lstrip("/")):
            return "extended"
        token_parts = token.strip("/").split("/")
        k = len(token_parts)
        if k < len(parts) and depth <= k and parts[-k:] == token_parts:
            return "basename" if k == 1 else "suffix"
    if _path_in(summary.flat, key):
        return "exact"
    folder = "." not in parts[-1].strip(".") and parts[-1] not in rec.BARE_NAMES
    return "inside" if folder and _path_in(summary.flat, key.rstrip("/") + "/", head=True) else None


def _path_in(text: str, path: str, *, head: bool = False) -> bool:
    """``path`` written in ``text`` as a whole path, not as the start or the end of a longer one (``head``: as
    the start of one, e.g. a folder's ``/srv/app/``)."""
    start = text.find(path)
    while start >= 0:
        before = text[start - 1] if start else " "
        end = start + len(path)
        after = text[end] if end < len(text) else " "
        sentence_end = after == "." and (end + 1 == len(text) or text[end + 1].isspace())
        if not _PATH_GLUE.match(before) and (head or sentence_end or not _PATH_GLUE.match(after)):
            return True
        start = text.find(path, start + 1)
    return False


def match_command(item: Artifact, summary: SummaryIndex) -> MatchKind | None:
    key = item.key
    if _bounded(summary.flat, key) or _bounded(summary.plain, key):
        return "exact"
    core = command_core(key)
    if core != key and len(core) >= 4 and (_bounded(summary.flat, core) or _bounded(summary.plain, core)):
        return "normalised"
    return None


def match_error(item: Artifact, summary: SummaryIndex) -> MatchKind | None:
    key = item.key
    if key in summary.folded:
        return "exact"
    if len(key) > ERROR_PREFIX and key[:ERROR_PREFIX] in summary.folded:
        return "prefix"
    _, colon, message = key.partition(": ")
    if colon and len(message) >= ERROR_MESSAGE_MIN and message in summary.folded:
        return "normalised"
    if _DIGITS.sub("0", key) in summary.blurred:
        return "normalised"
    names = code_names(item.text)
    if len(names) >= 2 and summary.names_together(names):
        return "paraphrase"
    return "paraphrase" if summary.paraphrased(key, 0.7) else None


def match_identifier(item: Artifact, summary: SummaryIndex) -> MatchKind | None:
    key = item.key
    if key in summary.identifiers or _bounded(summary.folded, key):
        return "exact"
    if rec.is_hex_identifier(key):
        for found in summary.hexes:
            if key.startswith(found) or found.startswith(key):
                return "prefix"
    return None


def match_tool(item: Artifact, summary: SummaryIndex) -> MatchKind | None:
    name = item.text
    distinctive = "_" in name or any(c.isdigit() for c in name) or any(c.isupper() for c in name[1:])
    found = _bounded(summary.folded, name.lower()) if distinctive else _bounded(summary.flat, name)
    return "exact" if found else None


def match_prose(item: Artifact, summary: SummaryIndex) -> MatchKind | None:
    if fold(item.key) in summary.folded:
        return "exact"
    return "paraphrase" if summary.paraphrased(item.text) else None


def _match_number(item: Artifact, summary: SummaryIndex) -> MatchKind | None:
    return "exact" if item.key in summary.quantities else None


Rule = Callable[[Artifact, SummaryIndex], "MatchKind | None"]
#: The rule of each category but paths (which also needs the ledger's other paths).
RULES: dict[Category, Rule] = {
    "commands": match_command,
    "errors": match_error,
    "identifiers": match_identifier,
    "numbers": _match_number,
    "tools": match_tool,
    **dict.fromkeys(PROSE, match_prose),
}


def match(item: Artifact, summary: SummaryIndex, depths: PathDepths) -> MatchKind | None:
    """How ``item`` survives in ``summary`` (None: it does not); ``depths`` covers the ledger's paths."""
    if item.category == "paths":
        return match_path(item, summary, depths)
    return RULES[item.category](item, summary)


def path_depths(items: Sequence[Artifact]) -> PathDepths:
    return PathDepths(item.key for item in items if item.category == "paths")
