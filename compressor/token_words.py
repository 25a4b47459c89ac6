"""A text's tiktoken count as the sum of its words' counts, each distinct word encoded once per process.

Invariant: ``WordCounts(encode).count(text) == len(encode(text))`` for every text, for cl100k_base and
o200k_base. A text is cut only before a space whose previous character is not whitespace. In both split
patterns such a space always starts a new piece: the only alternatives that can hold a space anywhere but
first are the all-whitespace ones, and the character before is not whitespace. Each part, encoded alone,
gives the same pieces as inside the text: a part ends in a non-space, so the end of the part changes
nothing that the space after it did not (``(?!\\S)`` holds before a space as at the end; ``\\s++$`` cannot
end at a non-space). Byte-pair merging never crosses a piece, so the counts add up exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import islice

#: Before this space: a character that is not whitespace. Python's ``\S`` is narrower than the encodings'
#: (``str.isspace`` holds for every Unicode White_Space character and a few more), so a cut here is safe.
_WORD_CUT = re.compile(r" (?<=\S )")
#: Longer parts are encoded as they come and not kept (a long unbroken run rarely repeats).
_LONGEST_KEPT = 64
#: A text of more words than this first looks up its first words (this many, less one) to choose how to count it.
_SAMPLED = 16
#: How many of those unseen words such a text teaches (each is one more encode, of a few characters).
_LEARNT = 3


class _Counted(dict[str, int]):
    """Counts of parts, each encoded with ``lead`` before it on its first lookup; emptied when it holds ``most``."""

    def __init__(self, encode: Callable[[str], list[int]], lead: str, most: int) -> None:
        super().__init__()
        self._encode = encode
        self._lead = lead
        self._most = most

    def __missing__(self, part: str) -> int:
        tokens = len(self._encode(self._lead + part))
        if len(part) <= _LONGEST_KEPT:
            if len(self) >= self._most:
                self.clear()
            self[part] = tokens
        return tokens


class WordCounts:
    """``count(text)``: the number of tokens ``encode`` gives ``text``, from the counts of its words."""

    def __init__(self, encode: Callable[[str], list[int]], most: int = 1 << 16) -> None:
        self._encode = encode
        self._first = _Counted(encode, "", most)
        self._spaced = _Counted(encode, " ", most)

    def count(self, text: str) -> int:
        head = _WORD_CUT.split(text, _SAMPLED)
        spaced = self._spaced
        if len(head) <= _SAMPLED:
            return self._first[head[0]] + sum(map(spaced.__getitem__, islice(head, 1, None)))
        # A long text whose first words are more than a third unseen (ids, hashes, a new file) is cheaper to encode
        # whole than word by word. A few are learnt, so a vocabulary that does repeat is soon taken by words.
        unseen = [part for part in islice(head, 1, _SAMPLED) if part not in spaced]
        if 3 * len(unseen) >= _SAMPLED:
            for part in unseen[:_LEARNT]:
                spaced[part]  # looking a part up learns its count
            return len(self._encode(text))
        rest = _WORD_CUT.split(head.pop())
        return (
            self._first[head[0]]
            + sum(map(spaced.__getitem__, islice(head, 1, None)))
            + sum(map(spaced.__getitem__, rest))
        )
