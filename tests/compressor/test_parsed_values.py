"""A file's parsed top-level values held lean (``formats.lines.Values``) and the shared-keys decoder: every value
reads back equal, keys in order, and files read through them load exactly as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation
from compressor.formats.lines import Values, shared_keys_decoder
from compressor.formats.source import read_array, read_lines

VALUES: list[object] = [
    {"role": "user", "content": "hello"},
    {"content": "keys the other way", "role": "user"},  # not the plain order: kept as it is
    {"role": "assistant", "content": "hi", "name": "bot"},
    {"role": 3, "content": "a number for a role"},
    {"role": "user", "content": ["a", "list"]},
    "a bare string",
    7,
    None,
    {"role": "tool", "content": "result"},
]


class TestValues:
    def test_every_value_reads_back_equal_with_its_keys_in_order(self) -> None:
        values = Values(VALUES)
        assert len(values) == len(VALUES)
        assert list(values) == VALUES
        assert [list(v) if isinstance(v, dict) else v for v in values] == [
            list(v) if isinstance(v, dict) else v for v in VALUES
        ]
        assert values[-1] == VALUES[-1] and values[1:3] == VALUES[1:3]
        with pytest.raises(IndexError):
            values[len(VALUES)]

    def test_only_plain_messages_are_made_again(self) -> None:
        values = Values(VALUES)
        as_themselves = [i for i, value in enumerate(VALUES) if values[i] is value]
        assert as_themselves == [1, 2, 3, 4, 5, 6, 7]

    def test_taking_hands_out_each_value_once_and_empties(self) -> None:
        values = Values(VALUES)
        assert list(values.taking()) == VALUES
        assert len(values) == 0

    def test_past_255_roles_the_rest_are_kept_as_they_are(self) -> None:
        many = [{"role": f"role-{n}", "content": "x"} for n in range(300)]
        values = Values(many)
        assert list(values) == many
        assert values[299] is many[299] and values[0] is not many[0]


class TestDecoder:
    def test_objects_equal_json_loads_keys_in_order(self) -> None:
        text = json.dumps(
            [{"b": 1, "a": {"x": [1, {"y": None}]}, "role": "user"}, {"a": 2, "b": 3}, {"__class__": 1}, {}]
        )
        decoded = shared_keys_decoder().decode(text)
        assert decoded == json.loads(text)
        assert [list(item) for item in decoded] == [list(item) for item in json.loads(text)]
        assert all(type(item) is dict for item in decoded)


class TestFilesReadThroughThem:
    def messages(self) -> list[dict[str, object]]:
        return [{"role": "user" if n % 2 == 0 else "assistant", "content": f"ok {n}"} for n in range(50)]

    def test_an_array_and_jsonl_load_the_same_conversation(self, tmp_path: Path) -> None:
        array, lines = tmp_path / "run.json", tmp_path / "run.jsonl"
        array.write_text(json.dumps(self.messages()), encoding="utf-8")
        lines.write_text("".join(json.dumps(m) + "\n" for m in self.messages()), encoding="utf-8")
        read = read_array(array)
        assert isinstance(read, Values) and list(read) == self.messages()
        parsed = read_lines(lines)
        assert parsed is not None and [value for _, value in parsed[0]] == self.messages()
        from_array, from_lines = load_conversation(array), load_conversation(lines)
        assert list(from_array.messages) == list(from_lines.messages)
        assert [m.content for m in from_array.messages] == [m["content"] for m in self.messages()]

    def test_a_bad_plain_message_is_still_named(self, tmp_path: Path) -> None:
        path = tmp_path / "bad.json"
        path.write_text(json.dumps([*self.messages(), {"role": "wizard", "content": "x"}]), encoding="utf-8")
        with pytest.raises(ConversationFormatError, match=r"\[50\].role: unknown role 'wizard'"):
            load_conversation(path)
