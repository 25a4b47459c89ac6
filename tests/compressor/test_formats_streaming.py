"""Files holding one top-level array are parsed element by element, JSONL files line by line from chunks; the
result and the errors are unchanged."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations, source
from compressor.formats.lines import Values, shared_keys_decoder
from compressor.formats.problems import FormatProblem, Loc
from compressor.formats.source import check_depth, read_array, read_lines, read_source
from compressor.messages import Conversation

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

#: Small chunk sizes put every chunk boundary somewhere awkward: inside numbers, strings, escapes, UTF-8.
CHUNK_SIZES = (1, 2, 3, 5, 7, 64)

MIXED = [
    {"role": "system", "content": "You are a careful coding agent."},
    {"role": "user", "content": '上下文 压缩 😀 summary\n\tindented "quoted" \\ back\\slash \u2028 sep'},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_1", "type": "function", "name": "bash", "arguments": '{"command": "ls"}'}
        ],
        "usage_metadata": {"input_tokens": 12345, "output_tokens": 6, "total_tokens": 12351, "ratio": 1.5e-3},
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "a.py\nb.py", "metadata": {"ok": True, "n": None}},
]


def write(tmp_path: Path, text: str | bytes, name: str = "conversation.json") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


class TestElementsAreTheWholeParse:
    @pytest.mark.parametrize("chunk_bytes", CHUNK_SIZES)
    def test_any_chunk_size_gives_what_one_parse_gives(self, tmp_path: Path, chunk_bytes: int) -> None:
        text = json.dumps(MIXED, ensure_ascii=False, indent=1)
        assert read_array(write(tmp_path, text), chunk_bytes) == json.loads(text)

    @pytest.mark.parametrize("chunk_bytes", CHUNK_SIZES)
    @pytest.mark.parametrize(
        "text",
        [
            "[]",
            " \n[ \t]\r\n",
            '[12345, -0.5e+10, 1E3, true, false, null, "x"]',
            '[[1, [2, [3]]], {}, {"a": {"b": []}}]',
            '["\\ud83d\\ude00", "\\u4e0a"]',
            "[1e5]",
            '[{"a": 1, "a": 2}]',
        ],
    )
    def test_scalars_nesting_escapes_and_whitespace(
        self, tmp_path: Path, text: str, chunk_bytes: int
    ) -> None:
        assert read_array(write(tmp_path, text), chunk_bytes) == json.loads(text)

    def test_an_element_much_larger_than_a_chunk(self, tmp_path: Path) -> None:
        big = [{"role": "user", "content": "压缩 words " * 50_000}, {"role": "assistant", "content": "ok"}]
        assert read_array(write(tmp_path, json.dumps(big, ensure_ascii=False)), 1024) == big

    def test_a_byte_order_mark_is_skipped(self, tmp_path: Path) -> None:
        assert read_array(write(tmp_path, b"\xef\xbb\xbf[1, 2]"), 2) == [1, 2]

    def test_repeated_keys_are_one_string(self, tmp_path: Path) -> None:
        values = read_array(write(tmp_path, json.dumps(MIXED)), 16)
        assert values is not None
        roles = [next(key for key in value if key == "role") for value in values]
        assert all(key is roles[0] for key in roles)

    def test_repeated_roles_and_part_types_are_one_string(self, tmp_path: Path) -> None:
        parts = {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}
        values = read_array(write(tmp_path, json.dumps([*MIXED, parts, *MIXED])), 16)
        assert values is not None and values == [*MIXED, parts, *MIXED]
        users = [value["role"] for value in values if value["role"] == "user"]
        assert len(users) == 3 and all(role is users[0] for role in users)
        texts = [part["type"] for part in values[len(MIXED)]["content"]]
        assert texts[0] is texts[1]

    def test_only_short_string_roles_and_types_are_shared(self, tmp_path: Path) -> None:
        long = "r" * 41
        odd = [{"role": long}, {"role": long}, {"role": 7, "type": ["x"]}, {"type": None}]
        values = read_array(write(tmp_path, json.dumps(odd)), 4)
        assert values == odd and values is not None
        assert values[0]["role"] is not values[1]["role"]

    @settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        values=st.lists(
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                lambda inner: (
                    st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
                ),
                max_leaves=8,
            ),
            max_size=5,
        ),
        chunk_bytes=st.integers(min_value=1, max_value=40),
    )
    def test_any_array_round_trips(self, tmp_path: Path, values: list[Any], chunk_bytes: int) -> None:
        text = json.dumps(values, ensure_ascii=False)
        assert read_array(write(tmp_path, text), chunk_bytes) == json.loads(text)


class TestOtherFilesAreLeftToTheWholeTextPath:
    @pytest.mark.parametrize(
        "text",
        [
            b"",
            b"   \n",
            b'{"messages": []}',
            b"[1]\n[2]\n",  # JSONL whose lines are arrays
            b"[1, 2",
            b"[1, 2,]",
            b"[1 2]",
            b'["unterminated]',
            b"[1]]",
            b"\xef\xbb\xbf\xef\xbb\xbf[1]",
            b'["\xe9"]',
            b"[" * 5_000 + b"]" * 5_000,
        ],
    )
    def test_anything_but_one_well_formed_array_gives_none(self, tmp_path: Path, text: bytes) -> None:
        for chunk_bytes in (1, 7, 1024):
            assert read_array(write(tmp_path, text), chunk_bytes) is None

    def test_a_missing_file_or_a_directory_gives_none(self, tmp_path: Path) -> None:
        assert read_array(tmp_path / "missing.json") is None
        assert read_array(tmp_path) is None


BROKEN_ARRAYS = [
    '[{"role": "user", "content": "hi"},\n {"role": "user" "content": "x"}]',
    '[{"role": "user", "content": "hi"},\n {"role": "user", "content": "cut',
    '[{"role": "user", "content": "hi"},\n',
    '[{"role": "user", "content": "hi"}]\n{"role": "user"}',
    '[{"role": "user", "content": "hi"}]]',
    '[{"role": "user", "content": "hi"},]',
    '[{"role": "robot", "content": "hi"}]',
    "[1, 2]",
    "[]",
    "[" * 300 + "]" * 300,
]


#: JSONL the chunked reader leaves to the whole-text path: each error must name the same line.
BROKEN_LINES = [
    b'{"role": "user", "content": "hi"}\n\n{"role": "user" "content": "x"}\n',
    b'{"role": "user", "content": "hi"}\n{"role": "cut\n{"role": "user", "content": "x"}',
    b'{"role": "user", "content": "hi"}\n' + b"[" * 300 + b"]" * 300 + b"\n",
    b'{"role": "user", "content": "hi"}\n{"n": 1' + b"0" * 5000 + b"}\n",
    b'{"role": "user", "content": "hi"}\n\n{"role": "user", "content": "\xe9"}\n',
    b"\n  \n\t\n",
    b"",
    b'{\n  "role": "user",\n  "content": "hi"\n}\n{"x": 1}\n',
    b'{\n  "role": "user",\n  "content": "hi"\n}\n',
]


class TestLoadingIsUnchanged:
    def test_a_file_loads_like_its_value(self, tmp_path: Path) -> None:
        path = write(tmp_path, json.dumps(MIXED, ensure_ascii=False))
        assert load_conversation(path) == load_conversation(copy.deepcopy(MIXED), name="conversation.json")

    @pytest.mark.parametrize("text", BROKEN_ARRAYS)
    def test_errors_name_the_same_place_as_for_the_text(self, tmp_path: Path, text: str) -> None:
        path = write(tmp_path, text)
        with pytest.raises(ConversationFormatError) as from_file:
            load_conversation(path, name="chat.json")
        with pytest.raises(ConversationFormatError) as from_text:
            load_conversation(text, name="chat.json")
        assert str(from_file.value) == str(from_text.value)

    def test_a_callers_list_is_never_emptied(self) -> None:
        given = copy.deepcopy(MIXED)
        load_conversation(given)
        assert given == MIXED

    @pytest.mark.parametrize("text", BROKEN_LINES)
    @pytest.mark.parametrize("name", ["run.jsonl", "run.ndjson"])
    def test_jsonl_is_left_to_the_whole_text_where_it_goes_wrong(
        self, tmp_path: Path, text: bytes, name: str
    ) -> None:
        path = write(tmp_path, text, name)
        assert read_lines(path, 3) is None
        assert _loaded(path, name) == _loaded(text, name)

    @pytest.mark.parametrize("chunk_bytes", CHUNK_SIZES)
    def test_jsonl_read_chunk_by_chunk_is_the_whole_parse(self, tmp_path: Path, chunk_bytes: int) -> None:
        text = "\n".join(json.dumps(value, ensure_ascii=False) for value in MIXED) + '\n\n{"role": "us'
        read = read_lines(write(tmp_path, text, "run.jsonl"), chunk_bytes)
        whole = read_source(text.encode(), "run.jsonl")
        assert read is not None and whole.lines is not None and read[1] and whole.truncated_tail
        assert list(read[0]) == list(whole.lines) == list(enumerate(MIXED, 1))

    def test_a_jsonl_file_loads_like_its_bytes(self, tmp_path: Path) -> None:
        text = "\n".join(json.dumps(value, ensure_ascii=False) for value in MIXED)
        path = write(tmp_path, text, "run.jsonl")
        assert load_conversation(path) == load_conversation(text.encode(), name="run.jsonl")

    def test_a_parsed_file_is_marked_as_the_loaders_own(self, tmp_path: Path) -> None:
        assert read_source(write(tmp_path, json.dumps(MIXED))).parsed
        assert not read_source(copy.deepcopy(MIXED)).parsed


def _loaded(source: Path | bytes, name: str) -> list[Conversation] | str:
    try:
        return load_conversations(source, name=name)
    except ConversationFormatError as error:
        return str(error)


class TestRealFilesLoadAsTheirWholeText:
    @pytest.mark.parametrize(
        "path",
        sorted([*FIXTURES.rglob("*.json"), *FIXTURES.rglob("*.jsonl"), *FIXTURES.rglob("*.ndjson")]),
        ids=lambda path: str(path.relative_to(FIXTURES)),
    )
    def test_a_file_gives_what_its_bytes_give(self, path: Path) -> None:
        # The bytes are parsed whole; the file, when it is one array, element by element, when JSONL, from chunks.
        from_file = _loaded(path, path.name)
        assert from_file == _loaded(path.read_bytes(), path.name)
        if isinstance(from_file, str):
            assert "\n" not in from_file and from_file.startswith(path.name + ": ")

    def test_the_samples_include_arrays_read_element_by_element(self) -> None:
        arrays = [path for path in FIXTURES.rglob("*.json") if read_array(path)]
        assert len(arrays) >= 5

    def test_the_samples_include_jsonl_read_from_chunks(self) -> None:
        assert len([path for path in FIXTURES.rglob("*.jsonl") if read_lines(path)]) >= 10

    def test_parsed_elements_are_plain_values_for_every_reader(self, tmp_path: Path) -> None:
        values = read_array(write(tmp_path, json.dumps(MIXED)))
        assert values is not None and all(isinstance(value, dict) for value in values)
        # the container is a lean ``Values``; its elements are what json.loads gives
        assert json.loads(json.dumps(list(values))) == MIXED and copy.deepcopy(values) == MIXED
        assert [dict(value) for value in values] == MIXED and {**values[0]} == MIXED[0]


class TestSmallFilesAreParsedWhole:
    """A JSON file up to ``WHOLE_TEXT_BYTES`` is parsed in one call, a JSONL file's lines without shared keys;
    above it, element by element, and with shared keys."""

    def test_a_small_file_is_parsed_whole_and_a_large_one_by_elements(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = write(tmp_path, json.dumps(MIXED))
        assert type(read_source(path).value) is list
        monkeypatch.setattr(source, "WHOLE_TEXT_BYTES", path.stat().st_size - 1)
        assert isinstance(read_source(path).value, Values)

    def test_a_small_jsonl_file_is_read_without_sharing_keys(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        made: list[int] = []

        def counted() -> json.JSONDecoder:
            made.append(1)
            return shared_keys_decoder()

        monkeypatch.setattr(source, "shared_keys_decoder", counted)
        text = "\n".join(json.dumps(value) for value in MIXED) + "\n"
        path = write(tmp_path, text, "run.jsonl")
        small = read_lines(path)
        assert small is not None and not made
        monkeypatch.setattr(source, "WHOLE_TEXT_BYTES", path.stat().st_size - 1)
        large = read_lines(path)
        assert large is not None and made == [1]
        assert list(small[0]) == list(large[0]) == list(enumerate(MIXED, 1))

    @pytest.mark.parametrize(
        "path",
        sorted(
            path
            for path in [
                *FIXTURES.rglob("*.json"),
                *FIXTURES.rglob("*.traj"),
                *FIXTURES.rglob("*.jsonl"),
                *FIXTURES.rglob("*.ndjson"),
            ]
            if path.stat().st_size <= source.WHOLE_TEXT_BYTES
        ),
        ids=lambda path: str(path.relative_to(FIXTURES)),
    )
    def test_either_way_a_file_loads_the_same(self, path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        whole = _loaded(path, path.name)
        monkeypatch.setattr(source, "WHOLE_TEXT_BYTES", -1)
        assert _loaded(path, path.name) == whole


def _reference_depth(value: Any) -> int:
    """Levels of lists and objects, the outermost counted as 1 (0 for a scalar)."""
    if isinstance(value, dict):
        return 1 + max(map(_reference_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_reference_depth, value), default=0)
    return 0


NESTED = st.recursive(
    st.none() | st.integers() | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4),
    max_leaves=30,
)


class TestDepthCheck:
    @settings(max_examples=300)
    @given(value=NESTED, limit=st.integers(min_value=0, max_value=8))
    def test_raises_exactly_when_nesting_passes_the_limit(self, value: Any, limit: int) -> None:
        too_deep = limit < 1 or _reference_depth(value) > limit
        try:
            check_depth(value, Loc(), limit)
        except FormatProblem as problem:
            assert too_deep and str(problem).endswith(f"nested deeper than {limit} levels")
        else:
            assert not too_deep

    def test_a_cycle_ends_at_the_limit(self) -> None:
        looped: list[Any] = []
        looped.append({"again": looped})
        with pytest.raises(FormatProblem, match="nested deeper than 10 levels"):
            check_depth(looped, Loc(), 10)

    def test_a_wide_array_is_walked_whole(self) -> None:
        wide: list[Any] = [{"role": "user", "content": "x"}] * 50_000 + [[[[{"deep": [1]}]]]]
        check_depth(wide, Loc(), 6)
        with pytest.raises(FormatProblem):
            check_depth(wide, Loc(), 5)
