"""Long texts tokenised in pieces: cut only where the encodings' pre-tokeniser itself cuts, so the sum is exact.

Invariant: ``chunk_bounds`` cuts a text only at a place where both cl100k_base's and o200k_base's split
patterns start a new piece whatever surrounds it, so the pieces' counts add up to the one-shot count; only a
stretch of ``LONGEST_CHARS`` with no such place (one giant word) is cut anyway, and no chunk is longer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

#: Texts up to twice this many characters are encoded in one go; longer ones in chunks of about this size.
CHUNK_CHARS = 256 * 1024
#: The longest chunk. A stretch this long without a safe cut (one giant word, a run of digits or of spaces) is
#: cut where it stands: its count may then differ from the one-shot count by about a token per cut, where one
#: encode of it would run for minutes (byte-pair merging is quadratic in the length of one piece).
LONGEST_CHARS = 2 * CHUNK_CHARS

# A safe cut is before one separator character that sits between two letters (ASCII or CJK), e.g. "a b",
# "文，压". In both patterns a letter run never takes a separator, and the separator is the optional prefix
# of the letter run after it, so a piece starts exactly at the separator, whatever comes before or after
# the three characters; no lookahead of either pattern reaches past a letter. The apostrophe is left out
# (contractions), as are digits (grouped in threes) and whitespace other than one space (runs and newlines).
_LETTER = "A-Za-z\u4e00-\u9fff"
_SAFE_CUT = re.compile(f"(?<=[{_LETTER}])[ ,.;:!?，。、；：！？](?=[{_LETTER}])")


def chunk_bounds(
    text: str, size: int = CHUNK_CHARS, longest: int = LONGEST_CHARS
) -> Iterator[tuple[int, int]]:
    """Half-open ranges covering ``text`` in order, each about ``size`` characters and at most ``longest``, cut
    at safe places; a stretch of ``longest`` characters without one is cut ``size`` characters in."""
    start = 0
    length = len(text)
    while length - start > size:
        found = _SAFE_CUT.search(text, start + size, start + max(longest, size + 2))
        if found is None and length - start <= longest:
            break
        cut = found.start() if found is not None else start + size
        yield start, cut
        start = cut
    yield start, length


def count_in_chunks(
    tok: Callable[[str], int],
    text: str,
    *,
    prefix: str = "",
    suffix: str = "",
    size: int = CHUNK_CHARS,
    longest: int = LONGEST_CHARS,
) -> int:
    """``tok(prefix + text + suffix)`` without building that string or encoding more than a chunk at once.

    The prefix joins the first chunk and the suffix the last, so every cut stays inside ``text``.
    """
    total = 0
    bounds = list(chunk_bounds(text, size, longest))
    last = len(bounds) - 1
    for number, (begin, end) in enumerate(bounds):
        piece = text[begin:end]
        if number == 0:
            piece = prefix + piece
        if number == last:
            piece = piece + suffix
        total += tok(piece)
    return total
