"""JSONL read a line at a time: the same lines as ``split("\\n")``, and one copy of each key across lines."""

from __future__ import annotations

from typing import Any

import pytest

from compressor.formats.chat import MESSAGES_READER
from compressor.formats.registry import reader_for
from compressor.formats.shape import Shape
from compressor.formats.source import _split_lines, read_source


class TestSplitLines:
    @pytest.mark.parametrize(
        "text", ["", "a", "a\n", "\n", "a\nb", "a\n\nb\n", "x\r\ny\u2028z\n\n", "\n\n\n"]
    )
    def test_the_lines_of_split(self, text: str) -> None:
        lines = list(_split_lines(text))
        assert [raw for _, raw, _ in lines] == text.split("\n")
        assert [number for number, _, _ in lines] == list(range(1, len(lines) + 1))
        assert [last for _, _, last in lines] == [False] * (len(lines) - 1) + [True]


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
