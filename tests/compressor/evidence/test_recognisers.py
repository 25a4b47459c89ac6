"""Recognisers: what counts as a path, an error line, an identifier, a number with its unit, a command written
as code, and a stated sentence; each rule as a table of texts and what it finds."""

from __future__ import annotations

import pytest

from compressor.evidence.recognisers import (
    code_commands,
    error_lines,
    identifier_key,
    identifiers,
    path_key,
    path_tokens,
    quantities,
    sentences,
    telling_error,
)


class TestPaths:
    @pytest.mark.parametrize(
        ("text", "paths"),
        [
            ("edit src/app/main.py now", ["src/app/main.py"]),
            ("see `/Users/ana/proj/README.md`.", ["/Users/ana/proj/README.md"]),
            ("the .venv/lib/site.py file", [".venv/lib/site.py"]),  # a leading dot is part of the name
            ("failing at tests/test_x.py::test_a", ["tests/test_x.py"]),
            ("line src/a.py:12:5 is wrong", ["src/a.py"]),
            ("**/srv/data/out.csv**", ["/srv/data/out.csv"]),
            ("a Makefile and a Dockerfile", ["Makefile", "Dockerfile"]),
            ("folders ./build and src/pkg/sub", ["./build", "src/pkg/sub"]),
            ("in /tmp and /Users/ana", ["/tmp", "/Users/ana"]),
        ],
    )
    def test_paths_found(self, text: str, paths: list[str]) -> None:
        assert path_tokens(text) == paths

    @pytest.mark.parametrize(
        "text",
        [
            "read/write/execute rights",
            "GPT-2/Qwen/LLaMA models",
            "run /build next",  # a slash command, not a folder
            "https://example.com/a/b.py",
            "arxiv.org/abs/2506.17298",
            "version 1.2/3.4/5.6",
            "os.path.join and torch.nn.functional",
            "localhost:8000 and git@github.com:o/r.git",
        ],
    )
    def test_not_paths(self, text: str) -> None:
        assert path_tokens(text) == []

    def test_keys_drop_the_dot_slash_and_trailing_slash(self) -> None:
        assert path_key("./src//app/") == "src/app"
        assert path_key("/srv/x") == "/srv/x"


class TestErrorLines:
    def test_error_reports_not_source_that_mentions_errors(self) -> None:
        text = (
            "    12→    raise ValueError('x')\nexcept KeyError:\nValueError: empty line at 3\n"
            "FAILED tests/t.py::test_a - AssertionError\nok: 3 passed, 0 failed\nerror: could not compile `demo`"
        )
        assert error_lines(text) == [
            "ValueError: empty line at 3",
            "FAILED tests/t.py::test_a - AssertionError",
            "error: could not compile `demo`",
        ]

    def test_long_lines_are_trimmed(self) -> None:
        (line,) = error_lines("RuntimeError: " + "x" * 500)
        assert len(line) == 200 and line.endswith("…")

    @pytest.mark.parametrize(
        ("line", "telling"),
        [
            ("Traceback (most recent call last):", False),
            ("RuntimeError:", False),
            ("RuntimeError: out of memory", True),
            ("fatal: not a git repository", True),
        ],
    )
    def test_telling_errors(self, line: str, telling: bool) -> None:
        assert telling_error(line) is telling


class TestIdentifiers:
    def test_every_kind(self) -> None:
        text = (
            "See https://github.com/o/r/pull/12, remote git@github.com:o/r.git, run "
            "3f2a1bc9 and id 123e4567-e89b-12d3-a456-426614174000 for PROJ-481 and #9796 (arXiv:2409.02908)."
        )
        assert identifiers(text) == [
            "https://github.com/o/r/pull/12",
            "git@github.com:o/r.git",
            "123e4567-e89b-12d3-a456-426614174000",
            "3f2a1bc9",
            "PROJ-481",
            "#9796",
            "arXiv:2409.02908",
        ]

    @pytest.mark.parametrize("text", ["UTF-8 and SHA-256", "deadbeef cafe", "plain words only", "1234567"])
    def test_not_identifiers(self, text: str) -> None:
        assert identifiers(text) == []

    def test_url_keys_drop_scheme_www_and_trailing_slash(self) -> None:
        assert identifier_key("https://www.Example.com/Docs/") == "example.com/docs"
        assert identifier_key("ABC1234") == "abc1234"


class TestQuantities:
    @pytest.mark.parametrize(
        ("text", "canonical"),
        [
            ("took 3.50s", ["3.5 s"]),
            ("1,000 steps and 2 warnings", ["1000 step", "2 warning"]),
            ("91.1% faster, 20x less", ["91.1 %", "20 x"]),
            ("727 tok/s at $0.25", ["727 tok/s", "0.25 usd"]),
            ("a 7B model on 1.2T tokens", ["7 b", "1.2 t"]),
            ("16 GB RAM, 296.23 MiB", ["16 gb", "296.23 mib"]),
            ("5 passed, 1 failed in 0.48 seconds", ["5 passed", "1 failed", "0.48 s"]),
        ],
    )
    def test_numbers_with_units(self, text: str, canonical: list[str]) -> None:
        assert [c for _, c in quantities(text)] == canonical

    @pytest.mark.parametrize(
        "text", ["version v5.10", "at 02:10 on 2026-03-09", "3 s later", "MATH-500", "step 3"]
    )
    def test_numbers_without_units_are_not_quantities(self, text: str) -> None:
        assert quantities(text) == []


class TestCodeCommands:
    def test_shell_fences_and_inline_commands(self) -> None:
        text = (
            "Run `uv run pytest -q` then `foo bar` and `git status`.\n"
            "```bash\n$ make test\n```\n```python\nprint('x')\n```"
        )
        assert code_commands(text) == ["make test", "uv run pytest -q", "git status"]

    def test_a_single_word_in_backticks_is_not_a_command(self) -> None:
        assert code_commands("the `ls` tool and `pytest`") == []


def test_sentences_are_flat_and_drop_heading_marks() -> None:
    assert sentences("# Title here\nDo not touch it.  Keep   going!\n- short") == [
        "Title here",
        "Do not touch it.",
        "Keep going!",
    ]
