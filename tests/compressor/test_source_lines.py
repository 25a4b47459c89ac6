"""JSONL read a line at a time: the same lines as ``split("\\n")``, and one copy of each key across lines."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.formats.chat import MESSAGES_READER
from compressor.formats.registry import reader_for
from compressor.formats.shape import Shape
from compressor.formats.source import _decode_line, _line_spans, read_source


class TestLineSpans:
    @pytest.mark.parametrize(
        "text", ["", "a", "a\n", "\n", "a\nb", "a\n\nb\n", "x\r\ny\u2028z\n\n", "\n\n\n"]
    )
    def test_the_lines_of_split(self, text: str) -> None:
        spans = list(_line_spans(text))
        assert [text[start:end] for _, start, end, _ in spans] == text.split("\n")
        assert [number for number, _, _, _ in spans] == list(range(1, len(spans) + 1))
        assert [last for _, _, _, last in spans] == [False] * (len(spans) - 1) + [True]


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
                _decode_line(json.JSONDecoder(), text, start, end)
            assert (raised.value.msg, raised.value.colno) == (error.msg, error.colno)
        else:
            assert _decode_line(json.JSONDecoder(), text, start, end) == expected


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


class TestConsumedLines:
    def test_a_parsed_jsonl_file_is_emptied_as_its_messages_are_built(self) -> None:
        lines: list[tuple[int, Any]] = [
            (1, {"role": "user", "content": "a"}),
            (3, {"role": "assistant", "content": "b"}),
        ]
        shape = Shape.of_lines(lines, "run", consume=True)
        assert (
            shape.objects[1] == {"role": "assistant", "content": "b"} and reader_for(shape) is MESSAGES_READER
        )
        (conversation,) = MESSAGES_READER.read(shape)
        assert [m.content for m in conversation.messages] == [
            "a",
            "b",
        ] and conversation.source_format == "jsonl"
        assert lines == [None, None] and not shape.objects and list(shape.located()) == []

    def test_lines_handed_in_are_left_as_they_are(self) -> None:
        lines: list[tuple[int, Any]] = [(1, {"role": "user", "content": "a"})]
        (conversation,) = MESSAGES_READER.read(Shape.of_lines(lines, "run"))
        assert conversation.messages[0].content == "a" and lines == [(1, {"role": "user", "content": "a"})]
