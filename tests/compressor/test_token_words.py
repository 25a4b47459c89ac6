"""Texts counted word by word: the sum of the words' counts is tiktoken's own count, for both encodings, on
texts built to sit on every edge of the split patterns, on random texts and on every text of the bundled runs.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from compressor.formats import load_conversations
from compressor.token_words import WordCounts
from compressor.tokens import get_counter, load_encoding
from tests.compressor.test_token_chunks import ALPHABET, ENCODINGS, VARIED

SAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "samples" / "transcripts"

#: Unicode's White_Space characters: the encodings' ``\s``. Python's ``\S`` must exclude every one of them.
WHITE_SPACE = [*range(0x9, 0xE), 0x20, 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F]
WHITE_SPACE += [0x205F, 0x3000]

#: Spaces next to every other kind of character, including whitespace that only one side calls whitespace.
EDGES = list(" \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2009\u2028\u202f\u3000'sSdT1 2.,!?文😀\u0301ÀǅΩ<|>")


def one_shot(name: str, text: str) -> int:
    return len(load_encoding(name).encode(text, disallowed_special=()))


def words(name: str, **kwargs: int) -> WordCounts:
    return WordCounts(load_encoding(name).encode_ordinary, **kwargs)


def test_python_whitespace_covers_the_encodings_whitespace() -> None:
    assert all(chr(point).isspace() for point in WHITE_SPACE)


@pytest.mark.parametrize("name", ENCODINGS)
class TestWordCountEqualsOneShot:
    def test_varied_texts(self, name: str) -> None:
        counts = words(name)
        for text in VARIED + [text[:n] for text in VARIED for n in (1, 2, 3, 17, 101)]:
            assert counts.count(text) == one_shot(name, text), text[:60]

    def test_spaces_beside_every_kind_of_character(self, name: str) -> None:
        counts = words(name)
        for before in EDGES:
            for after in EDGES:
                for text in (f"{before} {after}", f"a{before} {after}b", f"{before}  {after} x {before}"):
                    assert counts.count(text) == one_shot(name, text), repr(text)

    def test_random_texts(self, name: str) -> None:
        counts = words(name)
        rng = random.Random(21)
        alphabet = ALPHABET + EDGES + [" "] * 12
        for _ in range(3000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 120)))
            assert counts.count(text) == one_shot(name, text), repr(text)

    def test_long_texts_take_either_path_and_agree(self, name: str) -> None:
        # Unseen words (ids) are encoded whole; a repeating vocabulary is taken word by word. Both are exact,
        # and a cache small enough to be cleared over and over changes nothing.
        rng = random.Random(5)
        counts = words(name, most=50)
        vocabulary = ["alpha", "beta", "上下文", "'s", "42", "x.y", "\n", "\tz"]
        for number in range(300):
            ids = " ".join(f"{rng.getrandbits(40):010x}" for _ in range(rng.randrange(17, 90)))
            prose = " ".join(rng.choice(vocabulary) for _ in range(rng.randrange(17, 400)))
            for text in (ids, prose, f"{prose} {ids}", f"{ids} {prose}"):
                assert counts.count(text) == one_shot(name, text), number

    def test_every_text_of_the_bundled_runs(self, name: str) -> None:
        counter, counts = get_counter(name), words(name)
        texts = 0
        for path in sorted(SAMPLES.rglob("*")):
            if not path.is_file() or path.suffix not in {".json", ".jsonl"}:
                continue
            try:
                conversations = load_conversations(path)
            except Exception as error:  # a sample that is meant not to read is not this test's business
                print(f"{path.name}: {error}", file=sys.stderr)
                continue
            for conversation in conversations:
                for message in [*conversation.system, *conversation.messages]:
                    for text in counter.pieces(message)[0]:
                        texts += 1
                        assert counts.count(text) == one_shot(name, text), path.name
        assert texts > 5_000


def test_the_counter_counts_by_words_and_still_equals_one_shot() -> None:
    counter = get_counter("cl100k_base")
    text = "please compress the context window " * 50
    assert counter.tok(text) == one_shot("cl100k_base", text)
    assert counter.wrapped_tokens("<|start|>user\n", text, "<|end|>") == one_shot(
        "cl100k_base", f"<|start|>user\n{text}<|end|>"
    )
