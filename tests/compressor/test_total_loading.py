"""Total loading (issue 15): every value that parses as JSON either loads or gets one line and exit 2, never a
traceback; what loads is printed and written as valid JSON in valid UTF-8; one bad dump never hides the others.

The streams here are real UTF-8 text streams (``io.TextIOWrapper``), so a lone surrogate that reached a print
would raise here as it does on a terminal.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compressor.cli import EXIT_BAD_INPUT, EXIT_OK, main
from compressor.dumps import index_dumps, read_dump
from compressor.errors import ConversationFormatError, DumpFormatError
from compressor.formats import load_conversations
from tests.compressor.test_dumps import our_record
from tests.conftest import FIXTURES, SAMPLES, fixture

BIG = "1" + "0" * 4400  # more digits than Python turns into an int (4,300)


def strict_json(text: str) -> Any:
    """Parse as JSON the standard way: NaN, Infinity and -Infinity are not JSON."""
    return json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in JSON output"))


def cli(*argv: str) -> tuple[int, str, str]:
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    code = main(list(argv), out=out, err=err)
    out.flush()
    err.flush()
    return code, out.buffer.getvalue().decode("utf-8"), err.buffer.getvalue().decode("utf-8")


def conversation(**changes: Any) -> list[dict[str, Any]]:
    """A small run worth compacting; ``changes`` patch the reply's usage, the request or the tool output."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a careful coding agent."},
        {"role": "user", "content": changes.get("request", "Fix the parser.")},
    ]
    for step in range(3):
        messages.append({"role": "assistant", "content": f"step {step}", "tool_calls": [
            {"id": f"c{step}", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]})  # fmt: skip
        messages.append(
            {"role": "tool", "tool_call_id": f"c{step}", "content": changes.get("output", "out\n" * 200)}
        )
    messages.append(
        {
            "role": "assistant",
            "content": "done",
            "usage_metadata": changes.get("usage", {"total_tokens": 900}),
        }
    )
    return messages


def written(text: str, path: Path) -> Path:
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


def _deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


def text_of(value: Any) -> str:
    """JSON text as a hostile writer makes it: NaN and Infinity as Python spells them, surrogates as escapes."""
    return json.dumps(value).replace('"@BIG@"', BIG)


# (name, the file's text, "loads" or the words of the one-line error)
INPUTS: list[tuple[str, str, str]] = [
    ("integer-of-4401-digits-in-usage", text_of(conversation(usage={"total_tokens": "@BIG@"})), "4,300 digits"),
    ("integer-of-4401-digits-anywhere", text_of([{"role": "user", "content": "x", "n": "@BIG@"}]), "4,300 digits"),
    ("integer-of-4401-digits-in-jsonl", '{"role": "user", "content": "x"}\n{"role": "user", "n": ' + BIG + "}\n",
     "line 2: holds an integer"),
    ("1e999-in-usage", text_of(conversation(usage={"total_tokens": 1e999})), "must be a finite number"),
    ("Infinity-in-usage", text_of(conversation(usage={"input_tokens": float("inf")})), "must be a finite number"),
    ("-Infinity-in-usage", text_of(conversation(usage={"output_tokens": float("-inf")})), "must be a finite number"),
    ("NaN-in-usage", text_of(conversation(usage={"total_tokens": float("nan")})), "must be a finite number"),
    ("10^40-tokens", text_of(conversation(usage={"total_tokens": 10**40})), "more than any context window"),
    ("10^400-tokens", text_of(conversation(usage={"total_tokens": 10**400})), "must be a finite number"),
    ("NaN-outside-usage", text_of([{"role": "user", "content": "x", "score": float("nan")}]), "loads"),
    ("list-as-part-type", text_of(conversation(request=[{"type": ["text"], "text": "hi"}])), "type: must be a string"),
    ("object-as-part-type", text_of(conversation(request=[{"type": {"a": 1}, "text": "hi"}])), "type: must be a string"),
    ("number-as-part-type", text_of(conversation(request=[{"type": 7, "text": "hi"}])), "type: must be a string"),
    ("lone-surrogate-in-content", text_of(conversation(request="fix \ud800 this")), "loads"),
    ("lone-surrogate-in-tool-output", text_of(conversation(output="\udfff" * 50)), "loads"),
    ("lone-surrogate-in-a-call-id", text_of(conversation()).replace('"c1"', '"c1\\ud800"'), "not valid Unicode"),
    ("lone-surrogate-in-a-record-name",
     text_of([{"task_id": "t\udc80", "traj": conversation()}]), "loads"),
    ("nested-10000-deep", "[" * 10_000 + "]" * 10_000, "nested deeper than"),
    # the hostile corpus of this session (issue 15's audit): each ran through every command and page
    ("integer-of-4401-digits-in-a-part", text_of(conversation(request=[{"type": "text", "text": "hi", "n": "@BIG@"}])),
     "4,300 digits"),
    ("1e308-tokens-in-usage", text_of(conversation(usage={"total_tokens": 1e308})), "more than any context window"),
    ("boolean-tokens-in-usage", text_of(conversation(usage={"total_tokens": True})), "must be a number"),
    ("lone-surrogate-in-an-object-key", text_of([{"role": "user", "content": "x", "\ud800": 1}]), "not valid Unicode"),
    ("lone-surrogate-in-a-role", text_of([{"role": "us\ud800er", "content": "x"}]), "unknown role"),
    ("lone-surrogate-in-a-tool-name", text_of(conversation()).replace('"bash"', '"ba\\ud800sh"'), "not valid Unicode"),
    ("lone-surrogate-in-tool-arguments", text_of(conversation()).replace('\\"ls\\"', '\\"l\\\\ud800s\\"'),
     "loads"),
    ("two-high-surrogates", text_of(conversation(request="\udbff\udbff")), "loads"),
    ("nested-800-deep-in-a-part", text_of(conversation(request=[{"type": "text", "text": "hi", "x": _deep(800)}])),
     "nested deeper than"),
    ("null-as-part-type", text_of(conversation(request=[{"type": None, "text": "hi"}])), "loads"),
    ("list-as-part-text", text_of(conversation(request=[{"type": "text", "text": ["a"]}])), "loads"),
    ("NaN-as-content", text_of([{"role": "user", "content": float("nan")}]), "must be a string or a list of parts"),
    ("timestamps-of-1e308", text_of([{"role": "user", "content": "x", "timestamp": 1e308},
                                     {"role": "assistant", "content": "y", "timestamp": -1e308}]), "loads"),
    ("10^40-tokens-in-openai-usage", text_of([{"role": "user", "content": "x"}, {"role": "assistant", "content": "y",
                                              "usage": {"prompt_tokens": 10**40, "completion_tokens": 1}}]), "loads"),
]  # fmt: skip
IDS = [name for name, _, _ in INPUTS]


class TestEveryJsonValueLoadsOrGetsOneLine:
    @pytest.mark.parametrize(("name", "text", "expect"), INPUTS, ids=IDS)
    def test_the_library_loads_it_or_raises_the_one_format_error(
        self, name: str, text: str, expect: str, tmp_path: Path
    ) -> None:
        path = written(text, tmp_path / "run.json")
        if expect == "loads":
            assert load_conversations(path)
            return
        with pytest.raises(ConversationFormatError) as caught:
            load_conversations(path)
        assert expect in str(caught.value) and "\n" not in str(caught.value)

    @pytest.mark.parametrize(("name", "text", "expect"), INPUTS, ids=IDS)
    @pytest.mark.parametrize("command", ["inspect", "inspect --json", "compact --json", "simulate --json"])
    def test_each_command_exits_0_with_valid_json_or_2_with_one_line(
        self, command: str, name: str, text: str, expect: str, tmp_path: Path
    ) -> None:
        path = written(text, tmp_path / "run.json")
        argv = [*command.split(), str(path)]
        if command.startswith("compact"):
            argv += ["--force", "--dump-dir", str(tmp_path / "dumps"), "--out", str(tmp_path / "out.json")]
        if command.startswith("simulate"):
            argv += ["--summary", "ratio:0.1", "--conversation", "0"]
        code, out, err = cli(*argv)
        if expect != "loads":
            assert (code, out) == (EXIT_BAD_INPUT, "")
            assert len(err.splitlines()) == 1 and err.startswith("compaction-lab: ") and expect in err
            return
        assert code == EXIT_OK, err
        if "--json" in argv:
            assert all(strict_json(line) for line in out.splitlines())
        for file in tmp_path.rglob("*"):
            if file.is_file() and file.suffix in (".json", ".jsonl") and file != path:
                for line in (
                    file.read_text(encoding="utf-8").splitlines()
                    if file.suffix == ".jsonl"
                    else [file.read_text("utf-8")]
                ):
                    strict_json(line)

    def test_a_surrogate_written_out_reads_back_as_the_same_text(self, tmp_path: Path) -> None:
        path = written(text_of(conversation(request="fix \ud800 this")), tmp_path / "run.json")
        code, _, _ = cli("compact", str(path), "--force", "--out", str(tmp_path / "out.json"))
        assert code == EXIT_OK
        (again,) = load_conversations(tmp_path / "out.json")
        assert again.messages[0].content == "fix \ud800 this"


# Real files of several readers, each mutated the way the hostile corpus mutates: every token count, every part type.
READERS = [
    FIXTURES / "formats" / "good" / "openjiuwen.json",
    FIXTURES / "formats" / "good" / "messages.jsonl",
    FIXTURES / "formats" / "claude_code" / "session-with-compaction.jsonl",
    FIXTURES / "formats" / "cline" / "api_conversation_history.json",
    SAMPLES / "transcripts" / "claude-code-session.jsonl",
    FIXTURES / "formats" / "claude_code" / "headless-stream.jsonl",
    FIXTURES / "formats" / "claude_code" / "session-with-api-errors.jsonl",
    FIXTURES / "formats" / "codex_exec" / "exec-fix-test.jsonl",
    FIXTURES / "formats" / "codex_exec" / "exec-legacy-csv-header.jsonl",
    FIXTURES / "formats" / "goose" / "20250918_143012.jsonl",
    FIXTURES / "formats" / "goose" / "k7Qm2xTb.jsonl",
    FIXTURES / "formats" / "goose" / "session-export-20251108_3.json",
    FIXTURES / "formats" / "langchain" / "file-chat-history.json",
    FIXTURES / "formats" / "langchain" / "langsmith-messages.json",
    FIXTURES / "formats" / "pydantic_ai" / "support-run.json",
    FIXTURES / "formats" / "pydantic_ai" / "older-usage-names.json",
    FIXTURES / "formats" / "pydantic_ai" / "chat-session-wrapped.json",
    FIXTURES / "formats" / "ai_sdk" / "model-messages-v5.json",
    FIXTURES / "formats" / "ai_sdk" / "core-messages-v4.json",
    FIXTURES / "formats" / "ai_sdk" / "ui-messages-v5.json",
    FIXTURES / "formats" / "continue" / "8d3c5a7e-2b41-4f0e-9c6d-1a2b3c4d5e6f.json",
    FIXTURES / "formats" / "continue" / "2f9b1c44-5e6a-4d7b-8c9d-0e1f2a3b4c5d.json",
    FIXTURES / "formats" / "roo_code" / "api_conversation_history.json",
    FIXTURES / "formats" / "copilot_chat" / "2d8e4f6a-0b1c-4d3e-9f5a-7b6c8d0e1f23.json",
    FIXTURES / "formats" / "copilot_chat" / "5b7d9f1b-3d5f-4b7d-9f1b-3d5f7b9d1f62.jsonl",
    FIXTURES / "formats" / "amazon_q" / "ledger-split.json",
]


def _walk(value: Any, change: Callable[[Any, Any], Any], key: Any = None) -> Any:
    value = change(value, key)
    if isinstance(value, dict):
        return {k: _walk(v, change, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(item, change, key) for item in value]
    return value


def _counts(new: Any) -> Callable[[Any, Any], Any]:
    def change(value: Any, key: Any) -> Any:
        counted = isinstance(key, str) and "token" in key.lower()
        return new if counted and isinstance(value, int | float) and not isinstance(value, bool) else value

    return change


def _part_types(new: Any) -> Callable[[Any, Any], Any]:
    def change(value: Any, key: Any) -> Any:
        is_part = isinstance(value, dict) and key == "content" and isinstance(value.get("type"), str)
        return {**value, "type": new} if is_part else value

    return change


MUTATIONS = {
    "counts-NaN": _counts(float("nan")),
    "counts-Infinity": _counts(float("inf")),
    "counts-4401-digits": _counts("@BIG@"),
    "counts-10^40": _counts(10**40),
    "part-types-list": _part_types(["text"]),
    "part-types-object": _part_types({"type": "text"}),
}


class TestRealFilesMutated:
    @pytest.mark.parametrize("mutation", list(MUTATIONS))
    @pytest.mark.parametrize("source", READERS, ids=lambda p: p.name)
    def test_no_traceback_and_valid_json(self, source: Path, mutation: str, tmp_path: Path) -> None:
        raw = fixture(source).read_text(encoding="utf-8")
        lines = source.suffix == ".jsonl"
        values = (
            [json.loads(line) for line in raw.splitlines() if line.strip()] if lines else [json.loads(raw)]
        )
        mutated = [text_of(_walk(value, MUTATIONS[mutation])) for value in values]
        path = written("\n".join(mutated) if lines else mutated[0], tmp_path / f"mutated{source.suffix}")
        code, out, err = cli("inspect", "--json", str(path))
        assert code in (EXIT_OK, EXIT_BAD_INPUT)
        if code == EXIT_BAD_INPUT:
            assert len(err.splitlines()) == 1 and err.startswith("compaction-lab: ")
        else:
            assert all(strict_json(line) for line in out.splitlines())


def dump_text(**changes: Any) -> str:
    record = our_record()
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        holder = record
        for part in parents:
            holder = holder[part]
        holder[last] = value
    return text_of(record)


# (file name, its text, whether it is listed; else words of the reason it is broken)
DUMPS: list[tuple[str, str, str]] = [
    ("1800000000000_good.json", dump_text(), "listed"),
    ("1800000000001_surrogate-session.json", dump_text(session_id="s\ud800"), "listed"),
    ("1800000000002_deep.json", "[" * 50_000 + "]" * 50_000, "nested deeper than"),
    ("1800000000003_deep-object.json", '{"a":' * 3_000 + "1" + "}" * 3_000, "nested deeper than"),
    ("1800000000004_ts-1e308.json", dump_text(timestamp=1e308), "timestamp"),
    ("1800000000005_ts-minus-1e308.json", dump_text(timestamp=-1e308), "timestamp"),
    ("1800000000006_ts-NaN.json", dump_text(timestamp=float("nan")), "timestamp"),
    ("1800000000007_tokens-10^40.json", dump_text(benefit__tokens_before=10**40), "benefit.tokens_before"),
    ("1800000000008_ratio-NaN.json", dump_text(benefit__reduction_ratio=float("nan")), "reduction_ratio"),
    ("1800000000009_ratio-Infinity.json", dump_text(benefit__reduction_ratio=float("inf")), "reduction_ratio"),
    ("1800000000010_big-integer.json", dump_text(trigger__context_max="@BIG@"), "4,300 digits"),
    ("1800000000011_part-type-list.json",
     dump_text(context_after__messages=[{"role": "user", "content": [{"type": ["x"]}]}]), "listed"),
    ("1800000000012_usage-NaN.json", dump_text(compression_response__usage={"total_tokens": float("nan")}), "listed"),
]  # fmt: skip


class TestOneBadDumpNeverHidesTheOthers:
    @pytest.fixture
    def folder(self, tmp_path: Path) -> Path:
        for name, text, _ in DUMPS:
            written(text, tmp_path / name)
        written(dump_text(), tmp_path / os.fsdecode(b"1800000000013_name-\xff-not-utf8.json"))
        return tmp_path

    def test_the_listing_shows_the_good_ones_and_names_why_each_other_is_broken(self, folder: Path) -> None:
        index = index_dumps(folder)
        listed = sorted(Path(row["path"]).name for row in index.dumps)
        assert listed == sorted(name for name, _, expect in DUMPS if expect == "listed")
        reasons = {Path(item["path"]).name: item["error"] for item in index.broken}
        for name, _, expect in DUMPS:
            if expect != "listed":
                assert expect in reasons[name], (name, reasons[name])
        assert any("not valid UTF-8" in reason for reason in reasons.values())
        assert all("\n" not in reason for reason in reasons.values())

    def test_the_cli_prints_valid_json_and_a_readable_table(self, folder: Path) -> None:
        code, out, _ = cli("dumps", str(folder), "--json")
        document = strict_json(out)
        assert code == EXIT_OK and len(document["dumps"]) == 4 and len(document["broken"]) == len(DUMPS) - 3
        code, out, _ = cli("dumps", str(folder))
        assert code == EXIT_OK and out.startswith("4 dumps, 10 unreadable") and "\\ud800" in out

    @pytest.mark.parametrize(("name", "text", "expect"), DUMPS, ids=[name for name, _, _ in DUMPS])
    def test_reading_one_dump_gives_a_record_or_the_one_dump_error(
        self, name: str, text: str, expect: str, tmp_path: Path
    ) -> None:
        path = written(text, tmp_path / name)
        if expect == "listed" and "part-type" not in name:
            record = read_dump(path)
            strict_json(json.dumps(record.summary_row()))
            return
        with pytest.raises(DumpFormatError) as caught:
            read_dump(path)
        assert "\n" not in str(caught.value)
