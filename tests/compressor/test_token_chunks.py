"""Long texts counted in chunks: the sum of the chunks' counts is the one-shot count, for both encodings."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from compressor.messages import Message
from compressor.token_chunks import CHUNK_CHARS, LONGEST_CHARS, chunk_bounds, count_in_chunks
from compressor.tokens import TiktokenCounter, get_counter, load_encoding

ENCODINGS = ("cl100k_base", "o200k_base")

#: Texts chosen to sit on every edge of the split patterns: CJK with and without spaces and full-width
#: punctuation, runs of spaces, tabs and newlines, contractions, digits, case changes, marks, emoji, code.
VARIED = [
    "context summary compress span tail prefix trigger ratio 上下文 压缩 " * 40,
    "上下文压缩，保留最近的消息。然后、继续；总结：完成！好吗？" * 30,
    "a  b   c    d\t\te\n\nf \n g\r\n h     " * 40,
    "I'm sure they'll say it's done, we've seen 'em. DON'T stop, it'S fine " * 30,
    "1234567 89 0.5 3,14 a1b2c3 x=42 y: 7; 2024-12-01T11:15:21Z " * 30,
    "CamelCaseWord HTTPServer iPhone eBay ÀÉÎõü Ǆemo ǅemo café naïve e\u0301 a\u0300b " * 30,
    "emoji 😀 👍🏽 and 🇨🇳 flags, tabs\tand  double  spaces, «quotes» “smart” — dashes " * 30,
    "def f(x):\n    return x ** 2  # square\n\n\nclass A:\n\tpass\n" * 40,
    "日本語のテキストと한국어 텍스트, and Русский текст. 混合 text 文 a 文 b。c，d " * 30,
    "   leading and trailing spaces   " * 50 + "      ",
    "x" * 3000 + " y" * 500,
]

#: Characters a random text is drawn from: letters of several scripts, separators, spaces, digits, marks.
ALPHABET = list("abcXYZ'文压缩 ,.;:!?，。、；：！？\t\n\r0129-_/\\\"()😀é\u0301Ωж")


def one_shot(name: str, text: str) -> int:
    return len(load_encoding(name).encode(text, disallowed_special=()))


class TestChunkedCountEqualsOneShot:
    @pytest.mark.parametrize("name", ENCODINGS)
    @pytest.mark.parametrize("size", [1, 2, 7, 50, 333])
    @pytest.mark.parametrize("text", VARIED, ids=range(len(VARIED)))
    def test_varied_texts(self, name: str, size: int, text: str) -> None:
        encoding = load_encoding(name)
        counted = count_in_chunks(
            lambda piece: len(encoding.encode(piece, disallowed_special=())), text, size=size
        )
        assert counted == one_shot(name, text)

    @pytest.mark.parametrize("name", ENCODINGS)
    def test_random_texts(self, name: str) -> None:
        encoding = load_encoding(name)
        rng = random.Random(15)
        for _ in range(300):
            text = "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(1, 400)))
            size = rng.randrange(1, 60)
            counted = count_in_chunks(
                lambda piece: len(encoding.encode(piece, disallowed_special=())), text, size=size
            )
            assert counted == one_shot(name, text), (text, size)

    @pytest.mark.parametrize("name", ENCODINGS)
    def test_prefix_and_suffix_join_the_first_and_last_chunk(self, name: str) -> None:
        encoding = load_encoding(name)
        text = VARIED[0] + VARIED[1]
        counted = count_in_chunks(
            lambda piece: len(encoding.encode(piece, disallowed_special=())),
            text,
            prefix="<|start|>assistant\n",
            suffix="<|end|>",
            size=64,
        )
        assert counted == one_shot(name, f"<|start|>assistant\n{text}<|end|>")


class TestChunkBounds:
    def test_bounds_cover_the_text_in_order_and_cut_it(self) -> None:
        text = VARIED[0] * 10
        bounds = list(chunk_bounds(text, 100))
        assert bounds[0][0] == 0 and bounds[-1][1] == len(text)
        assert all(end == begin for (_, end), (begin, _) in pairwise(bounds))
        assert len(bounds) > len(text) // 200
        assert max(end - begin for begin, end in bounds) < 200

    def test_a_stretch_without_a_safe_cut_stays_whole(self) -> None:
        text = "7" * 1000 + "     " * 100
        assert list(chunk_bounds(text, 10)) == [(0, len(text))]


class TestGiantWords:
    """A stretch with no safe cut longer than ``longest`` is cut anyway: never one giant encode, and the count
    then stays within a token per cut of the one-shot count."""

    @pytest.mark.parametrize("name", ENCODINGS)
    @pytest.mark.parametrize(
        "text",
        [
            "a" * 100_000,
            "".join(random.Random(5).choice("abcdefghijklmnopqrstuvwxyz") for _ in range(100_000)),
            "7" * 100_000,
            " " * 100_000,
            "上下文压缩" * 20_000,
            "word " * 5_000 + "x" * 60_000 + " word" * 5_000,
        ],
        ids=["one-letter", "letters", "digits", "spaces", "cjk", "words-around-a-giant-word"],
    )
    def test_cut_where_it_stands_within_a_token_per_cut(self, name: str, text: str) -> None:
        encoding = load_encoding(name)
        bounds = list(chunk_bounds(text, 5_000, 20_000))
        assert max(end - begin for begin, end in bounds) <= 20_000
        counted = count_in_chunks(
            lambda piece: len(encoding.encode(piece, disallowed_special=())), text, size=5_000, longest=20_000
        )
        assert abs(counted - one_shot(name, text)) <= len(bounds) - 1

    def test_a_giant_word_reaches_the_encoder_in_pieces(self) -> None:
        counter = RecordingCounter("cl100k_base")
        text = "z" * (3 * LONGEST_CHARS)
        assert counter.tok(text) > 0 and counter.longest <= LONGEST_CHARS


class RecordingCounter(TiktokenCounter):
    """A real counter that remembers the longest string it handed to the encoder."""

    longest = 0

    def _tok_whole(self, text: str) -> int:
        self.longest = max(self.longest, len(text))
        return super()._tok_whole(text)


class TestCounters:
    def long_text(self) -> str:
        rng = random.Random(3)
        words = "context summary compress span 上下文 压缩 it's 42,".split()
        text = " ".join(rng.choice(words) for _ in range(3 * CHUNK_CHARS // 5))
        assert len(text) > 2 * CHUNK_CHARS
        return text

    @pytest.mark.parametrize("name", ENCODINGS)
    def test_tok_of_a_long_text_is_exact_and_never_one_giant_encode(self, name: str) -> None:
        text = self.long_text()
        counter = RecordingCounter(name)
        counted = counter.tok(text)
        priced = counter.message_tokens(Message(role="assistant", content=text))
        many = counter.message_tokens_many([Message(role="assistant", content=text)])
        assert counter.longest < 2 * CHUNK_CHARS
        assert counted == one_shot(name, text)
        assert priced == many[0] == one_shot(name, f"<|start|>assistant\n{text}<|end|>")

    def test_short_texts_are_encoded_whole(self) -> None:
        counter = RecordingCounter("cl100k_base")
        message = Message(role="user", content=VARIED[1])
        assert counter.message_tokens(message) == one_shot(
            "cl100k_base", f"<|start|>user\n{VARIED[1]}<|end|>"
        )
        assert counter.longest == len(f"<|start|>user\n{VARIED[1]}<|end|>")

    def test_string_length_counter_prices_a_long_message_as_one_string(self) -> None:
        text = self.long_text()
        counter = get_counter("string_length")
        message = Message(role="user", content=text)
        assert counter.message_tokens(message) == len(f"<|start|>user\n{text}<|end|>") // 3
