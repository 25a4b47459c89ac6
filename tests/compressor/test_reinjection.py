"""State reinjection (SPEC §12): which read files come back after a compaction, and how they are shown."""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.dumps import read_dump
from compressor.messages import Conversation, Message
from compressor.reinjection import (
    FILE_CUT_MARKER,
    MAX_FILES,
    OPENJIUWEN_READ_TOOLS,
    PER_FILE_CHARS,
    READ_FILE_TOOLS,
    SECTION_CHAR_CAP,
    SECTION_CUT_MARKER,
    UNAVAILABLE_BUILDERS,
    WITH_CLAUDE_CODE_READ,
    ReinjectedFile,
    Reinjection,
    build_reinjection,
    completed_rounds,
)
from compressor.tokens import get_counter
from tests.conftest import SAMPLES, compaction_cases

_counter = iter(range(1_000_000))


def user(text: str = "please fix it") -> Message:
    return Message(role="user", content=text)


def say(text: str = "done") -> Message:
    return Message(role="assistant", content=text)


def call(*calls: tuple[str, str, dict[str, Any]]) -> Message:
    return Message.model_validate(
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": cid, "name": name, "arguments": json.dumps(args)} for cid, name, args in calls
            ],
        }
    )


def result(call_id: str, content: str) -> Message:
    return Message(role="tool", tool_call_id=call_id, content=content)


def read(path: str, content: str, *, as_json: bool = False, **args: Any) -> list[Message]:
    """An assistant read_file call and its result (plain text, or openJiuwen's JSON result)."""
    cid = f"r{next(_counter)}"
    body = json.dumps({"file_path": path, "content": content}) if as_json else content
    return [call((cid, "read_file", {"file_path": path, **args})), result(cid, body)]


def reinject(original: list[Message], kept: list[Message] | None = None, **kw: Any) -> Reinjection:
    value = build_reinjection(original, kept if kept is not None else [], **kw)
    assert value is not None
    return value


class TestCompletedRounds:
    def test_a_round_ends_at_an_assistant_without_tool_calls(self) -> None:
        assert completed_rounds([user(), say(), user(), say()]) == [(0, 2), (2, 4)]

    def test_a_round_ends_when_every_call_of_the_last_assistant_has_its_result(self) -> None:
        messages = [user(), call(("a", "grep", {}), ("b", "grep", {})), result("b", "x"), result("a", "y")]
        assert completed_rounds(messages) == [(0, 4)]

    def test_an_unanswered_call_leaves_the_round_open(self) -> None:
        messages = [user(), say(), user(), call(("a", "grep", {}))]
        assert completed_rounds(messages) == [(0, 2)]

    def test_a_user_message_restarts_the_round_only_when_nothing_is_pending(self) -> None:
        restart = [user("a"), user("b"), say()]
        assert completed_rounds(restart) == [(1, 3)]
        pending = [user("a"), call(("a", "grep", {})), user("<system-reminder> wait"), result("a", "x")]
        assert completed_rounds(pending) == [(0, 4)]


class TestWhichFilesComeBack:
    def test_a_file_read_in_a_completed_round_comes_back(self) -> None:
        value = reinject([user(), *read("src/a.py", "one\ntwo\n"), say()])
        assert value.paths == ("src/a.py",)
        assert value.files[0].lines_returned == 2

    def test_nothing_to_recover_is_none(self) -> None:
        assert build_reinjection([user(), say()], []) is None
        assert build_reinjection([], []) is None

    def test_a_read_in_an_unfinished_round_is_not_recovered(self) -> None:
        cid = "open"
        original = [user(), *read("src/a.py", "x"), call((cid, "read_file", {"file_path": "src/b.py"}))]
        assert reinject(original).paths == ("src/a.py",)

    def test_one_entry_per_path_holding_the_newest_read(self) -> None:
        original = [user(), *read("src/a.py", "old"), say(), *read("src/a.py", "new\nnew"), say()]
        value = reinject(original)
        assert value.paths == ("src/a.py",)
        assert value.files[0].text == "new\nnew"

    def test_output_is_chronological(self) -> None:
        original = [user(), *read("first.py", "1"), *read("second.py", "2"), *read("first.py", "3"), say()]
        assert reinject(original).paths == ("second.py", "first.py")

    def test_a_json_result_still_visible_in_the_kept_messages_hides_its_path(self) -> None:
        kept_read = read("src/a.py", "same", as_json=True)
        original = [user(), *read("src/a.py", "older"), *read("src/b.py", "b"), *kept_read]
        assert reinject(original, kept=[original[0], *kept_read]).paths == ("src/b.py",)

    def test_a_kept_plain_text_result_does_not_hide_its_path(self) -> None:
        # the text does not name the file, so openJiuwen recovers it anyway (reference case compact000)
        kept_read = read("src/a.py", "plain text")
        original = [user(), *kept_read]
        assert reinject(original, kept=original).paths == ("src/a.py",)

    def test_any_kept_json_result_naming_the_path_hides_it(self) -> None:
        kept = [call(("g", "grep", {})), result("g", json.dumps({"file_path": "src/a.py", "matches": 3}))]
        assert build_reinjection([user(), *read("src/a.py", "x")], kept) is None

    @pytest.mark.parametrize(
        "path",
        [
            "web/node_modules/x/index.js",
            "repo/.git/config",
            "pkg/__pycache__/m.pyc",
            "C:\\w\\Node_Modules\\x.js",
        ],
    )
    def test_vendored_and_generated_paths_are_skipped(self, path: str) -> None:
        assert build_reinjection([user(), *read(path, "x")], []) is None

    def test_the_json_file_path_wins_over_the_arguments(self) -> None:
        original = [
            user(),
            call(("c", "read_file", {"path": "rel.py"})),
            result("c", json.dumps({"file_path": "/abs/rel.py", "content": "x"})),
        ]
        assert reinject(original).paths == ("/abs/rel.py",)

    def test_the_path_argument_is_used_when_file_path_is_absent(self) -> None:
        original = [user(), call(("c", "read_file", {"path": "via_path.py"})), result("c", "x")]
        assert reinject(original).paths == ("via_path.py",)

    def test_a_printed_tool_output_with_a_data_dict_is_read_like_json(self) -> None:
        # pydantic's str() of a tool output model: "field=value field=value"
        printed = (
            "success=True data={'file_path': 'src/d.py', 'content': 'a\\nb\\nc', 'line_count': 7} error=None"
        )
        original = [user(), call(("c", "read_file", {"file_path": "ignored.py"})), result("c", printed)]
        value = reinject(original)
        assert value.paths == ("src/d.py",)
        assert value.files[0].text == "a\nb\nc"
        assert value.files[0].lines_returned == 7

    def test_an_empty_result_or_a_call_without_a_path_is_skipped(self) -> None:
        original = [user(), *read("empty.py", ""), call(("n", "read_file", {})), result("n", "text")]
        assert build_reinjection(original, []) is None

    def test_other_tools_are_ignored(self) -> None:
        original = [user(), call(("g", "grep", {"file_path": "a.py"})), result("g", "x")]
        assert build_reinjection(original, []) is None

    def test_claude_codes_read_tool_counts_only_when_asked_for_and_is_marked_our_extension(self) -> None:
        # cause E: openJiuwen recovers read_file only; Claude Code's Read is our extension, off by default
        original = [user(), call(("c", "Read", {"file_path": "/w/a.py"})), result("c", "x")]
        assert READ_FILE_TOOLS == OPENJIUWEN_READ_TOOLS == ("read_file",)
        assert build_reinjection(original, []) is None
        extended = reinject(original, read_tools=WITH_CLAUDE_CODE_READ)
        assert extended.paths == extended.extension_paths == ("/w/a.py",)
        assert extended.files[0].to_dict()["extension"] is True
        # sized as openJiuwen lays out a read_file entry
        plain = reinject([user(), *read("/w/a.py", "x")])
        assert extended.openjiuwen_tokens(get_counter("cl100k_base")) == plain.openjiuwen_tokens(
            get_counter()
        )


class TestLimits:
    def test_at_most_five_files(self) -> None:
        original = [user()]
        for n in range(8):
            original += read(f"f{n}.py", "small")
        value = reinject(original)
        assert len(value.files) == MAX_FILES
        assert value.paths == ("f3.py", "f4.py", "f5.py", "f6.py", "f7.py")

    def test_the_file_that_exhausts_the_budget_is_still_taken(self) -> None:
        # each big file charges 15,000 of the 50,000: three leave 5,000, so a fourth is taken and a fifth is not
        original = [user()]
        for n in range(5):
            original += read(f"big{n}.py", "y" * 20_000)
        value = reinject(original)
        assert value.paths == ("big1.py", "big2.py", "big3.py", "big4.py")
        assert all(item.budget_charge == PER_FILE_CHARS for item in value.files)

    def test_a_long_file_keeps_its_first_and_last_halves(self) -> None:
        content = "A" * 10_000 + "M" * 5_000 + "Z" * 10_000
        item = reinject([user(), *read("long.py", content)]).files[0]
        assert item.truncated and item.chars == 25_000
        head, tail = item.text.split(FILE_CUT_MARKER)
        assert head == "A" * 7_500 and tail == "Z" * 7_500

    def test_a_file_of_exactly_the_limit_is_kept_whole(self) -> None:
        item = reinject([user(), *read("edge.py", "x" * PER_FILE_CHARS)]).files[0]
        assert not item.truncated and item.text == "x" * PER_FILE_CHARS

    def test_the_section_is_capped_around_a_marker(self) -> None:
        original = [user(), *read("a.py", "a" * 9_000), *read("b.py", "b" * 9_000)]
        value = reinject(original)
        section = value.text.split('<section name="read_file">\n', 1)[1].rsplit("\n</section>", 1)[0]
        head, tail = section.split(SECTION_CUT_MARKER)
        assert len(head) + len(tail) == SECTION_CHAR_CAP
        assert head.startswith("Recently read file: a.py") and tail.endswith("b" * 100)
        assert value.section_truncated

    def test_a_short_section_is_not_cut(self) -> None:
        value = reinject([user(), *read("a.py", "short")])
        assert SECTION_CUT_MARKER not in value.text and not value.section_truncated


class TestTheMessage:
    def test_shape(self) -> None:
        value = reinject([user(), *read("src/a.py", "l1\nl2\nl3", offset=10, limit=3)])
        assert value.message.role == "user" and value.message.is_internal
        text = value.text
        assert text.startswith("<recovered_context>\n<instruction>\n")
        assert text.endswith("</section>\n</recovered_context>")
        assert (
            '\n</instruction>\n\n<section name="read_file">\nRecently read file: src/a.py\nLines returned: 3\nPartial read'
            in text
        )
        assert text.rstrip().endswith("l1\nl2\nl3\n</section>\n</recovered_context>")

    def test_line_count_comes_from_the_json_result_when_present(self) -> None:
        body = json.dumps({"file_path": "a.py", "content": "one line", "line_count": 40})
        original = [user(), call(("c", "read_file", {"file_path": "a.py"})), result("c", body)]
        assert reinject(original).files[0].lines_returned == 40
        odd = json.dumps({"file_path": "a.py", "content": "x", "line_count": "many"})
        original = [user(), call(("c", "read_file", {"file_path": "a.py"})), result("c", odd)]
        value = reinject(original)
        assert value.files[0].lines_returned is None and "Lines returned: unknown" in value.text

    def test_a_full_read_has_no_partial_note(self) -> None:
        value = reinject([user(), *read("a.py", "x")])
        assert not value.files[0].partial and "Partial read" not in value.text

    def test_session_state_builders_are_reported_unavailable(self) -> None:
        value = reinject([user(), *read("a.py", "x")])
        assert value.unavailable == UNAVAILABLE_BUILDERS == ("plan", "plan_mode", "todo", "task_status")

    def test_to_dict_is_json_and_holds_the_message(self) -> None:
        value = reinject([user(), *read("a.py", "x")])
        data = json.loads(json.dumps(value.to_dict()))
        assert data["message"]["content"] == value.text
        assert data["files"][0]["path"] == "a.py" and data["unavailable"][0] == "plan"

    def test_the_input_is_not_mutated(self) -> None:
        original = [user(), *read("a.py", "x")]
        snapshot = [m.model_dump() for m in original]
        reinject(original, kept=original[:1])
        assert [m.model_dump() for m in original] == snapshot


# -- the reference: openJiuwen's own recovered_context messages -------------------------------------------

_REF_SECTION_MARKER = "\n...[STATE_REINJECTION_TRUNCATED]...\n"
_REF_FILE_MARKER = "\n...[READ_FILE_TRUNCATED]...\n"
_REF_PARTIAL = "Note: only part of this file was available."


def _reference_cap(text: str, limit: int = SECTION_CHAR_CAP) -> str:
    if len(text) <= limit:
        return text
    head = text[: limit // 2]
    return head + _REF_SECTION_MARKER + text[len(text) - (limit - len(head)) :]


def _in_reference_wording(files: tuple[ReinjectedFile, ...]) -> str:
    """Our selection rendered with openJiuwen's markers, so the whole visible section can be compared."""
    blocks = []
    for item in files:
        lines = [f"Recently read file: {item.path}", f"Lines returned: {item.lines_returned}"]
        if item.partial:
            lines.append(_REF_PARTIAL)
        lines += ["", item.text.replace(FILE_CUT_MARKER, _REF_FILE_MARKER)]
        blocks.append(_reference_cap("\n".join(lines)))
    return _reference_cap("\n\n".join(blocks))


def _is_block(message: Message, prefix: str) -> bool:
    return isinstance(message.content, str) and message.content.startswith(prefix)


CASES = compaction_cases()


class TestReferenceCases:
    def test_the_fixture_has_cases_with_a_recovered_context(self) -> None:
        compacted = [c for c in CASES if c["expected"]["compacted"]]
        assert len(CASES) == 12 and len(compacted) == 7

    @pytest.mark.parametrize("case", [c for c in CASES if c["expected"]["compacted"]], ids=lambda c: c["id"])
    def test_same_files_lines_and_visible_text_as_openjiuwen(self, case: dict[str, Any]) -> None:
        conversation = Conversation.from_messages(
            case["conversation"]["messages"], case["conversation"]["tools"]
        )
        after = [Message.model_validate(m) for m in case["expected"]["compacted"]]
        expected = [m for m in after if _is_block(m, "<recovered_context>")]
        # kept = what stays verbatim: everything but the memory block and the recovered context
        kept = [
            m
            for m in after
            if not _is_block(m, "<recovered_context>") and not _is_block(m, "<memory_block_current>")
        ]

        value = build_reinjection(conversation.messages, kept)

        if not expected:
            assert value is None
            return
        assert value is not None
        body = expected[0].text.split('<section name="read_file">\n', 1)[1].rsplit("\n</section>", 1)[0]
        assert _in_reference_wording(value.files) == body
        # and the message around the section has the reference's layout
        assert expected[0].text.startswith("<recovered_context>\n<instruction>\n")
        assert value.text.endswith("\n</section>\n</recovered_context>")


class TestOpenJiuwensSampleDumps:
    @pytest.mark.parametrize("name", ["compact000", "compact001", "compact015"])
    def test_the_dumped_recovered_context_is_reproduced(self, name: str) -> None:
        (path,) = sorted((SAMPLES / "openjiuwen-dumps" / name).glob("*.json"))
        dump = read_dump(path)
        dropped = (dump.memory_message, dump.reinjection_message)
        kept = [m for m in dump.after if not any(m is d for d in dropped)]

        value = build_reinjection(dump.before, kept)

        if dump.reinjection_message is None:
            assert value is None
            return
        assert value is not None
        body = dump.reinjection_message.text.split('<section name="read_file">\n', 1)[1].rsplit(
            "\n</section>", 1
        )[0]
        assert _in_reference_wording(value.files) == body
