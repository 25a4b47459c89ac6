"""Matching rules, one table per category: what counts as kept, and how (the match code)."""

from __future__ import annotations

import pytest

from compressor.evidence.artifacts import Artifact
from compressor.evidence.matching import PathDepths, command_core
from compressor.quality import SummaryIndex, match


def item(category: str, key: str, text: str | None = None) -> Artifact:
    return Artifact(category=category, text=text or key, key=key, index=0, last_index=0)  # type: ignore[arg-type]


def kind(
    category: str, key: str, summary: str, *, others: tuple[str, ...] = (), text: str | None = None
) -> str | None:
    depths = PathDepths([key, *others]) if category == "paths" else PathDepths([])
    return match(item(category, key, text), SummaryIndex(summary), depths)


class TestPaths:
    @pytest.mark.parametrize(
        ("summary", "expected"),
        [
            ("edited /srv/app/src/upload/client.py today", "exact"),
            ("edited `src/upload/client.py`", "suffix"),
            ("edited client.py", "basename"),
            ("edited upload/client.py:12", "suffix"),
            ("edited /srv/app/src/upload/client.pyc", None),
            ("nothing about it", None),
        ],
    )
    def test_full_path_a_unique_tail_or_a_unique_name(self, summary: str, expected: str | None) -> None:
        assert kind("paths", "/srv/app/src/upload/client.py", summary) == expected

    def test_a_name_shared_with_another_file_needs_a_longer_tail(self) -> None:
        others = ("/srv/app/tests/client.py",)
        assert kind("paths", "/srv/app/src/upload/client.py", "edited client.py", others=others) is None
        assert (
            kind("paths", "/srv/app/src/upload/client.py", "edited upload/client.py", others=others)
            == "suffix"
        )

    def test_a_longer_path_ending_in_it_keeps_it(self) -> None:
        assert kind("paths", "src/a.py", "see /home/x/src/a.py") == "extended"

    def test_a_folder_is_kept_by_a_path_inside_it_a_file_is_not(self) -> None:
        assert kind("paths", "/srv/app", "in /srv/app/src/a.py") == "inside"
        assert kind("paths", "/srv/app", "we work in /srv/app.") == "exact"
        assert kind("paths", "/srv/app", "in /srv/application/a.py") is None
        assert kind("paths", "/srv/a.py", "in /srv/a.py/x") is None


class TestCommands:
    @pytest.mark.parametrize(
        ("command", "summary", "expected"),
        [
            ("pytest -q tests/a.py", "Ran `pytest -q tests/a.py`.", "exact"),
            ("pytest  -q\n tests/a.py", "ran pytest -q tests/a.py", "exact"),  # whitespace collapsed
            ("cd /srv && make test 2>&1 | tail -5", "ran make test", "normalised"),
            ("cat > a.txt << 'EOF'\nhello\nEOF", "wrote it with cat > a.txt << 'EOF'", "normalised"),
            ("Make Test", "ran make test", None),  # case matters
            ("ls", "the tools list", None),  # a word of its own
            ("ls", "then `ls` showed it", "exact"),
        ],
    )
    def test_whole_or_normalised(self, command: str, summary: str, expected: str | None) -> None:
        assert kind("commands", " ".join(command.split()), summary) == expected

    def test_the_core_of_a_command(self) -> None:
        assert command_core("cd /a && cd b; pytest -q 2>&1 | head -n 20") == "pytest -q"


class TestErrors:
    KEY = "failed tests/t.py::test_retry - timeouterror: upload timed out after 30s"

    @pytest.mark.parametrize(
        ("summary", "expected"),
        [
            ("FAILED tests/t.py::test_retry - TimeoutError: upload timed out after 30s", "exact"),
            ("The error: `TimeoutError: upload timed out after 30s`.", "normalised"),
            ("FAILED tests/t.py::test_retry - TimeoutError: upload timed o…", "prefix"),
            ("test_retry failed with a TimeoutError in tests/t.py", "paraphrase"),
            ("an upload problem", None),
        ],
    )
    def test_line_prefix_message_digits_or_paraphrase(self, summary: str, expected: str | None) -> None:
        assert kind("errors", self.KEY, summary) == expected

    def test_digits_blurred(self) -> None:
        assert kind(
            "errors", "e501 line too long (121 > 110 characters)", "E501 line too long (130 > 110 characters)"
        ) == ("normalised")

    def test_code_names_together_in_one_sentence(self) -> None:
        key = "typeerror: trainingarguments.__init__() got an unexpected keyword argument 'no_cuda'"
        text = "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'no_cuda'"
        assert kind("errors", key, "`no_cuda` kwarg in TrainingArguments: removed", text=text) == "paraphrase"
        assert kind("errors", key, "`no_cuda` was removed. TrainingArguments is fine.", text=text) is None


class TestIdentifiers:
    @pytest.mark.parametrize(
        ("key", "summary", "expected"),
        [
            ("github.com/o/r/issues/4", "see http://github.com/o/r/issues/4/", "exact"),
            ("3f2a1bc9d0", "commit 3f2a1bc", "prefix"),
            ("3f2a1bc", "commit 3f2a1bc9d0e1", "prefix"),
            ("proj-481", "ticket PROJ-481", "exact"),
            ("proj-481", "ticket PROJ-4812", None),
        ],
    )
    def test_case_folded_schemes_dropped_hash_prefixes(
        self, key: str, summary: str, expected: str | None
    ) -> None:
        assert kind("identifiers", key, summary) == expected


@pytest.mark.parametrize(
    ("key", "summary", "expected"),
    [
        ("1000 step", "after 1,000 steps", "exact"),
        ("3.5 s", "in 3.50s", "exact"),
        ("3.5 s", "in 3.5 ms", None),
        ("20 x", "20× faster", "exact"),
        ("20 x", "20 faster", None),
    ],
)
def test_numbers_need_their_value_and_unit(key: str, summary: str, expected: str | None) -> None:
    assert kind("numbers", key, summary) == expected


@pytest.mark.parametrize(
    ("name", "summary", "expected"),
    [
        ("Bash", "ran Bash twice", "exact"),
        ("Read", "we read it", None),
        ("read_file", "via Read_File", "exact"),
    ],
)
def test_tools_by_name(name: str, summary: str, expected: str | None) -> None:
    assert kind("tools", name.lower(), summary, text=name) == expected


class TestProse:
    SENTENCE = "Do not change the public API of the parser module."

    @pytest.mark.parametrize(
        ("summary", "expected"),
        [
            ("Rules: do NOT change   the public API of the parser module.", "exact"),
            ("- Keep the parser module's public API unchanged (user: do not change it).", "paraphrase"),
            ("The parser was rewritten.", None),
        ],
    )
    def test_folded_or_paraphrased_on_one_sentence(self, summary: str, expected: str | None) -> None:
        key = " ".join(self.SENTENCE.lower().split()).rstrip(".")
        assert kind("constraints", key, summary, text=self.SENTENCE) == expected

    def test_a_paraphrase_must_sit_in_one_sentence(self) -> None:
        key = "do not change the public api of the parser module"
        scattered = "The public side matters. Change nothing quickly. The module is the parser's API."
        assert kind("decisions", key, scattered, text=self.SENTENCE) is None
