"""JSONL read a line at a time: the same lines as ``split("\\n")``, from a text or a file read chunk by chunk,
one copy of each key across lines, and the values let go as their messages are built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from compressor.errors import ConversationFormatError
from compressor.formats.chat import MESSAGES_READER
from compressor.formats.lines import Lines, decode_line
from compressor.formats.registry import reader_for
from compressor.formats.shape import Shape
from compressor.formats.source import read_lines, read_source

#: Texts of JSON lines: blank ones, "\r\n", and separators "\n" alone does not split on.
SPLIT_TEXTS = [
    "1",
    "1\n",
    "\n1",
    "1\n2",
    "1\n\n2\n",
    '"x"\r\n"y\u2028z"\n\n',
    "\n\n\n3",
    ' {"a": "\u00e9\u4e0a"} \n\t\n[1, 2]\n\x0c\n\u00a0\n4',
    "1\n[2,\n3",
    "\ufeff1\n2",
    "\ufeff\ufeff1\n2",
    "\ufeff\ufeff\ufeff1\n2",
]


def _split(text: str) -> list[tuple[int, Any]]:
    """What each non-blank line of ``split`` holds once the loader has dropped a byte order mark and one more."""
    lines = text.removeprefix("\ufeff").removeprefix("\ufeff").split("\n")
    return [(number, json.loads(line)) for number, line in enumerate(lines, 1) if line.strip()]


class TestLinesAreTheLinesOfSplit:
    @pytest.mark.parametrize("text", SPLIT_TEXTS)
    def test_a_text(self, text: str) -> None:
        try:
            expected: Any = _split(text)
        except json.JSONDecodeError:
            expected = None
        try:
            document = read_source(text.encode(), "run.jsonl")
        except ConversationFormatError:
            assert expected is None
        else:
            assert document.lines is not None and list(document.lines) == expected

    @pytest.mark.parametrize("text", SPLIT_TEXTS)
    @pytest.mark.parametrize("chunk_bytes", [1, 2, 3, 7, 1024])
    def test_a_file_read_chunk_by_chunk(self, tmp_path: Path, text: str, chunk_bytes: int) -> None:
        path = tmp_path / "run.jsonl"
        path.write_text(text, encoding="utf-8")
        try:
            expected: Any = (_split(text), False)
        except json.JSONDecodeError:
            expected = None  # left to the whole-text path, which names the line
        read = read_lines(path, chunk_bytes)
        assert (read if read is None else (list(read[0]), read[1])) == expected


#: Lines as a JSONL file may hold them, good and bad: each is read in place exactly as it would be alone.
LINES = [
    '{"role": "user", "content": "a"}',
    '  {"a": 1}  \r',
    "123",
    "1e999",
    '"text"',
    '{"a": ',
    '{"a": 1} {"b": 2}',
    '{"a": 1} x',
    "\u00a0{}",
    "[1, 2,",
    '{"a": "\u00e9"}',
    "nul",
]


class TestDecodeLine:
    @pytest.mark.parametrize("line", LINES)
    @pytest.mark.parametrize("after", ["", "\n", '\n  1}\n{"c": 3}', "\n]"])
    def test_a_line_read_in_place_is_the_line_read_alone(self, line: str, after: str) -> None:
        text = "\n" + line + after
        start, end = 1, 1 + len(line)
        try:
            expected: Any = json.loads(line)
        except json.JSONDecodeError as error:
            with pytest.raises(json.JSONDecodeError) as raised:
                decode_line(json.JSONDecoder(), text, start, end)
            assert (raised.value.msg, raised.value.colno) == (error.msg, error.colno)
        else:
            assert decode_line(json.JSONDecoder(), text, start, end) == expected


class TestJsonlValues:
    def test_lines_share_their_keys_and_keep_their_values(self) -> None:
        text = '{"role": "user", "content": "a"}\n{"role": "assistant", "content": "b", "x": {"role": 1}}\n'
        document = read_source(text.encode(), "run.jsonl")
        assert document.lines is not None
        (_, first), (_, second) = document.lines
        assert first == {"role": "user", "content": "a"}
        assert second == {"role": "assistant", "content": "b", "x": {"role": 1}}
        key_of = {id(key) for value in (first, second, second["x"]) for key in value if key == "role"}
        assert len(key_of) == 1

    def test_a_torn_last_line_is_left_out_and_said(self) -> None:
        document = read_source(b'{"role": "user", "content": "a"}\n{"role": "assis', "run.jsonl")
        assert document.lines is not None and len(document.lines) == 1 and document.truncated_tail


def _lines(*pairs: tuple[int, Any]) -> Lines:
    lines = Lines()
    for number, value in pairs:
        lines.append(number, value)
    return lines


class TestConsumedLines:
    def test_a_parsed_jsonl_file_is_emptied_as_its_messages_are_built(self) -> None:
        lines = _lines((1, {"role": "user", "content": "a"}), (3, {"role": "assistant", "content": "b"}))
        shape = Shape.of_lines(lines, "run", consume=True)
        assert (
            shape.objects[1] == {"role": "assistant", "content": "b"} and reader_for(shape) is MESSAGES_READER
        )
        (conversation,) = MESSAGES_READER.read(shape)
        assert [m.content for m in conversation.messages] == [
            "a",
            "b",
        ] and conversation.source_format == "jsonl"
        assert len(lines) == 0 and not shape.objects and list(shape.located()) == []

    def test_lines_handed_in_are_left_as_they_are(self) -> None:
        lines: list[tuple[int, Any]] = [(1, {"role": "user", "content": "a"})]
        (conversation,) = MESSAGES_READER.read(Shape.of_lines(lines, "run"))
        assert conversation.messages[0].content == "a" and lines == [(1, {"role": "user", "content": "a"})]


class TestLines:
    def test_pairs_are_made_on_demand_with_each_lines_own_number(self) -> None:
        plain = _lines((1, "a"), (2, "b"), (3, "c"))
        gapped = _lines((1, "a"), (2, "b"), (5, "c"), (9, "d"))
        assert list(plain) == [(1, "a"), (2, "b"), (3, "c")] and plain[-1] == (3, "c")
        assert list(gapped) == [(1, "a"), (2, "b"), (5, "c"), (9, "d")]
        assert gapped[2] == (5, "c") and gapped[-1] == (9, "d") and gapped[1:3] == [(2, "b"), (5, "c")]
        assert [gapped.number(index) for index in range(4)] == [1, 2, 5, 9]
        for lines in (plain, gapped):
            with pytest.raises(IndexError):
                lines[len(lines)]

    def test_taking_hands_out_every_pair_then_holds_nothing(self) -> None:
        lines = _lines((2, {"a": 1}), (4, {"b": 2}))
        assert list(lines.taking()) == [(2, {"a": 1}), (4, {"b": 2})]
        assert len(lines) == 0 and list(lines) == []
