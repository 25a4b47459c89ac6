"""The key guard: one list of a key's written forms, and every way out of the process cleaned with it.

What is left after scrubbing is checked with tests/support/key_forms.py, which computes the forms independently
of the guard (base64, hex, percent, JSON and HTML escapes, halves): a form the guard forgot shows up as a failure,
not as a blind spot shared by the code and its test.
"""

from __future__ import annotations

import base64
import io
import json
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from compressor.cli import EXIT_BAD_INPUT, main
from compressor.dumps import DebugLog, DumpWriteError, write_dump
from compressor.jsontext import encodable, inert_escapes, json_text, may_hold_surrogates, writable_value
from compressor.keyguard import REDACTED, KeyGuard, key_problem, normalised
from tests.compressor.test_dumps import our_record
from tests.support.key_forms import spellings as key_spellings

KEY = "sk-canary-7f3a9c2e5b1d4068a2c4e6f8"
HALF = len(KEY) // 2

#: (name, how a careless endpoint, log or proxy writes the key)
FORMS: list[tuple[str, str]] = [
    ("plain", KEY),
    ("upper-cased", "INVALID KEY " + KEY.upper()),
    ("json-string", json.dumps(KEY)),
    ("unicode-escaped", "".join(f"\\u{ord(c):04x}" for c in KEY)),
    ("unicode-escaped-upper", "".join(f"\\u{ord(c):04X}" for c in KEY)),
    ("partly-unicode-escaped", KEY[:3] + "".join(f"\\u{ord(c):04x}" for c in KEY[3:9]) + KEY[9:]),
    ("percent-all", "".join(f"%{ord(c):02X}" for c in KEY)),
    ("percent-mixed-case", "".join(f"%{ord(c):02x}" if i % 3 else c for i, c in enumerate(KEY))),
    ("url-quoted-in-a-query", "https://gw.example/v1?key=" + urllib.parse.quote(KEY, safe="")),
    ("c-hex-escaped", "".join(f"\\x{ord(c):02x}" for c in KEY)),
    ("html-entities", "".join(f"&#{ord(c)};" for c in KEY)),
    ("html-hex-entities", "".join(f"&#x{ord(c):x};" for c in KEY)),
    ("json-slash-escape", KEY.replace("-", "\\u002d")),
    ("base64", base64.b64encode(KEY.encode()).decode()),
    ("base64-basic-auth", base64.b64encode(f"admin:{KEY}".encode()).decode()),
    ("base64-bearer-header", base64.b64encode(f"Authorization: Bearer {KEY}\r\n".encode()).decode()),
    ("urlsafe-base64", base64.urlsafe_b64encode(b"xy" + KEY.encode()).decode()),
    ("hex", KEY.encode().hex()),
    ("hex-upper-in-a-dump", "0x" + KEY.encode().hex().upper() + "00"),
    ("first-half", "the key starts " + KEY[:HALF] + "..."),
    ("second-half", "...and ends " + KEY[HALF:]),
    ("middle-half", "middle " + KEY[HALF // 2 : HALF // 2 + HALF] + " only"),
    ("python-bytes-repr", repr(f"Bearer {KEY}\r".encode())),
    ("with-the-carriage-return", f"Illegal header value b'Bearer {KEY}\\r'"),
    # an escaped key cut short (a 200-character preview, a truncated log line): half of it, still escaped
    ("unicode-escaped-first-half", "preview: " + "".join(f"\\u{ord(c):04x}" for c in KEY[:HALF]) + "…"),
    ("percent-escaped-second-half", "…" + "".join(f"%{ord(c):02X}" for c in KEY[HALF:])),
    ("double-escaped-first-half", "".join(f"\\\\u{ord(c):04x}" for c in KEY[:HALF])),
    (
        "escapes-of-three-kinds-mixed",
        KEY[:4]
        + "".join(f"%{ord(c):02x}" for c in KEY[4:12])
        + "".join(f"&#{ord(c)};" for c in KEY[12:20])
        + "".join(f"\\x{ord(c):02x}" for c in KEY[20:]),
    ),
]


def spellings(text: str) -> list[str]:
    return key_spellings(text, KEY)


class TestForms:
    @pytest.mark.parametrize(("name", "text"), FORMS, ids=[name for name, _ in FORMS])
    def test_each_form_is_found_and_redacted(self, name: str, text: str) -> None:
        guard = KeyGuard([KEY])
        assert guard.holds(text)
        scrubbed = guard.scrub(text)
        assert REDACTED in scrubbed
        assert spellings(scrubbed) == []
        assert not guard.holds(scrubbed)

    @pytest.mark.parametrize(("name", "text"), FORMS, ids=[name for name, _ in FORMS])
    def test_inside_json_the_text_stays_valid_json(self, name: str, text: str) -> None:
        document = json.dumps({"error": {"message": f"bad key {text}", "keys": [text]}})
        scrubbed = KeyGuard([KEY]).scrub(document)
        assert isinstance(json.loads(scrubbed), dict)

    def test_a_key_written_with_json_escapes_is_caught_after_parsing_too(self) -> None:
        escaped = "".join(f"\\u{ord(c):04x}" for c in KEY)
        value = json.loads('{"content": "the key is ' + escaped + '"}')
        assert value["content"].endswith(KEY)  # parsing made it plain
        assert KeyGuard([KEY]).scrub_value(value) == {"content": f"the key is {REDACTED}"}

    def test_scrub_value_reaches_object_keys_and_nested_lists(self) -> None:
        value = {KEY: [1, {"x": f"a {KEY} b"}, None, True, 2.5]}
        assert KeyGuard([KEY]).scrub_value(value) == {
            REDACTED: [1, {"x": f"a {REDACTED} b"}, None, True, 2.5]
        }

    def test_a_key_after_an_escaped_backslash_leaves_valid_json(self) -> None:
        document = json.dumps(["\\" + KEY, "\\\\" + KEY, "\n" + KEY])
        assert json.loads(KeyGuard([KEY]).scrub(document)) == [
            "\\" + REDACTED,
            "\\\\" + REDACTED,
            "\n" + REDACTED,
        ]

    def test_a_key_of_digits_inside_a_json_number_keeps_the_number_a_number(self) -> None:
        digits = "8675309123456"
        scrubbed = KeyGuard([digits]).scrub(json.dumps({"tokens": int(digits), "text": f"pin {digits}"}))
        assert json.loads(scrubbed) == {"tokens": 9999999999999, "text": "pin 9999999999999"}

    def test_ordinary_text_is_left_alone(self) -> None:
        text = json.dumps({"role": "user", "content": "sk- is a prefix; canary birds sing; 7f3a is hex"})
        assert KeyGuard([KEY]).scrub(text) == text

    def test_runs_shorter_than_half_the_key_are_not_redacted(self) -> None:
        text = f"prefix {KEY[: HALF - 1]} only"
        assert KeyGuard([KEY]).scrub(text) == text


class TestShortKeysAndNoKeys:
    def test_a_short_placeholder_key_is_redacted_only_as_a_whole_word(self) -> None:
        guard = KeyGuard(["EMPTY"])
        assert (
            guard.scrub('key EMPTY, "EMPTY", EMPTYING, NOTEMPTY')
            == f'key {REDACTED}, "{REDACTED}", EMPTYING, NOTEMPTY'
        )

    @pytest.mark.parametrize("keys", [[], [None], [""], ["\r\n\t"]])
    def test_no_key_guards_nothing(self, keys: list[str | None]) -> None:
        guard = KeyGuard(keys)
        assert not guard and guard.scrub(KEY) == KEY and not guard.holds(KEY)

    def test_the_repr_never_holds_a_key(self) -> None:
        assert KEY not in repr(KeyGuard([KEY])) and "1 key" in repr(KeyGuard([KEY]))


class TestUnsendableKeys:
    @pytest.mark.parametrize(
        ("key", "words"),
        [
            (KEY + "\r", "ends in a carriage return"),
            (KEY + "\n", "ends in a line feed"),
            ("\t" + KEY, "starts with a tab"),
            (KEY[:10] + "\x00" + KEY[10:], "holds a NUL character at character 11"),
            (KEY[:10] + "\x1b" + KEY[10:], "control character U+001B"),
            (KEY + "\u2028", "control character U+2028"),
            (KEY.replace("a", "\u0430", 1), "a non-ASCII character"),  # a Cyrillic а pasted for a Latin a
        ],
    )
    def test_a_key_no_header_can_carry_is_named_without_repeating_it(self, key: str, words: str) -> None:
        problem = key_problem(key)
        assert problem is not None and words in problem and "\n" not in problem
        assert KEY[:HALF] not in problem and KEY[HALF:] not in problem

    @pytest.mark.parametrize("key", [KEY, "EMPTY", "", "a b"])
    def test_a_plain_key_is_fine(self, key: str) -> None:
        assert key_problem(key) is None

    def test_normalising_strips_what_a_windows_env_file_adds(self) -> None:
        assert normalised(f" {KEY}\r") == KEY
        assert KeyGuard([KEY + "\r"]).scrub(f"echo {KEY}") == f"echo {REDACTED}"

    @pytest.mark.parametrize("where", ["--api-key", "API_KEY"])
    def test_the_cli_refuses_it_in_one_line_before_any_call(
        self, where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        source = tmp_path / "run.json"
        source.write_text(json.dumps([{"role": "user", "content": "hi"}]), encoding="utf-8")
        argv = ["compact", str(source), "--api-base", "http://127.0.0.1:9/v1", "--model", "m"]
        if where == "--api-key":
            argv += ["--api-key", KEY + "\r"]
        else:
            monkeypatch.setenv("API_KEY", KEY + "\t")
        out, err = io.StringIO(), io.StringIO()
        assert main(argv, out=out, err=err) == EXIT_BAD_INPUT
        (line,) = err.getvalue().splitlines()
        assert line.startswith(f"compaction-lab: {where}: the API key ends in") and "not sent" in line
        assert KEY[:HALF] not in out.getvalue() + err.getvalue()


class TestEveryWriterUsesTheGuard:
    @pytest.mark.parametrize(("name", "text"), FORMS, ids=[name for name, _ in FORMS])
    def test_a_dump_holding_any_form_is_refused_and_nothing_is_left(
        self, name: str, text: str, tmp_path: Path
    ) -> None:
        with pytest.raises(DumpWriteError) as caught:
            write_dump(tmp_path, our_record(marker=f" {text}"), secrets=[KEY])
        assert spellings(str(caught.value)) == []
        assert list(tmp_path.iterdir()) == []  # not even a temp file held it

    @pytest.mark.parametrize(("name", "text"), FORMS, ids=[name for name, _ in FORMS])
    def test_a_debug_record_holding_any_form_is_refused(self, name: str, text: str, tmp_path: Path) -> None:
        log = DebugLog(tmp_path, secrets=[KEY])
        assert log.record("compression_retry", error_message=f"HTTP 401: {text}") is False
        assert spellings(" ".join(log.errors)) == []
        assert not (tmp_path / "CurrentRoundCompressor.jsonl").exists()

    def test_the_cli_streams_are_scrubbed(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        # A file name is something the CLI repeats verbatim: here it carries the key's halves and its base64.
        monkeypatch.setenv("API_KEY", KEY)
        missing = tmp_path / f"{KEY[:HALF]}-{base64.b64encode(KEY.encode()).decode()}-{KEY[HALF:]}.json"
        out, err = io.StringIO(), io.StringIO()
        assert main(["inspect", str(missing)], out=out, err=err) == EXIT_BAD_INPUT
        assert "no such file" in err.getvalue() and REDACTED in err.getvalue()
        assert spellings(err.getvalue()) == []


class TestWritableText:
    @pytest.mark.parametrize("text", ["plain", "ünïcödé ✓", "lone \ud800 high", "lone \udfff low", "\udcff"])
    def test_encodable_text_always_encodes_and_reads_back_as_json(self, text: str) -> None:
        written = encodable(text)
        written.encode("utf-8")
        assert json.loads(f'"{written}"') == text

    def test_json_text_writes_no_nan_and_no_infinity(self) -> None:
        text = json_text({"a": float("nan"), "b": [float("inf"), -float("inf"), 1.5], "c": "x\ud800"})
        assert json.loads(text, parse_constant=lambda name: pytest.fail(name)) == {
            "a": None,
            "b": [None, None, 1.5],
            "c": "x\ud800",
        }
        text.encode("utf-8")

    def test_json_text_writes_an_unprintable_integer_as_null(self) -> None:
        assert json.loads(json_text({"n": 10**5000, "m": 7})) == {"n": None, "m": 7}

    @pytest.mark.parametrize(
        "value", [{"k\ud800": ["a\udfff", 1, None, 2.5]}, ["\udcff", {"x": {"y": "\ud800z"}}], "\ud800"]
    )
    def test_a_writable_value_holds_no_surrogate_and_each_string_reads_back(self, value: Any) -> None:
        written = writable_value(value)
        json.dumps(written, ensure_ascii=False).encode("utf-8")  # no surrogate left anywhere, keys included
        assert _strings(written) == [encodable(text) for text in _strings(value)]
        assert [json.loads(f'"{text}"') for text in _strings(written)] == _strings(value)

    def test_a_value_without_surrogates_is_kept_as_it_is(self) -> None:
        value = {"a": ["ünïcödé ✓", "😀", 1]}
        assert writable_value(value) == value

    @pytest.mark.parametrize(
        ("raw", "may"),
        [(b'"\\ud800"', True), (b'"\\uDFFF"', True), ("\ud800".encode("utf-8", "surrogatepass"), True),
         ('"\\ud800"', True), ("x\udfff", True), (b'"\\u00e9 \\u4e2d \\ud83d\\ude00"', True),
         (b'"\\u00e9 \\u4e2d"', False), ("😀".encode(), False), (b"plain", False), ("ünïcödé", False)],
    )  # fmt: skip
    def test_the_surrogate_check_is_false_only_where_none_can_parse(
        self, raw: bytes | str, may: bool
    ) -> None:
        assert may_hold_surrogates(raw) is may

    @pytest.mark.parametrize(
        ("text", "parsed"),
        [('{"c": "l\\ud800s"}', {"c": "l\\ud800s"}), ('{"c": "\\udfff"}', {"c": "\\udfff"}),
         ('{"c": "\\ud83d\\ude00"}', {"c": "😀"}), ('{"c": "\\\\ud800"}', {"c": "\\ud800"}),
         ('{"c": "\\ud800\\udc00 \\ud800"}', {"c": "\U00010000 \\ud800"}), ('{"c": "plain"}', {"c": "plain"})],
    )  # fmt: skip
    def test_json_text_with_inert_escapes_parses_to_no_lone_surrogate(self, text: str, parsed: Any) -> None:
        assert json.loads(inert_escapes(text)) == parsed
        json.dumps(json.loads(inert_escapes(text)), ensure_ascii=False).encode("utf-8")


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() for text in (*_strings(key), *_strings(item))]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []
