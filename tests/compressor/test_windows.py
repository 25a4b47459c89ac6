"""Context capacity from the run's own model: openJiuwen's table first, names as agents log them, our additions."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from compressor.analysis import analyze
from compressor.messages import Conversation
from compressor.windows import lab_windows, model_windows, resolve_context_max, run_model_window


class TestRunModel:
    @pytest.mark.parametrize(
        ("logged", "matched"),
        [
            ("gpt-4o", "gpt-4o"),
            ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
            ("anthropic/claude-haiku-4-5@20251001", "claude-haiku-4-5"),
            ("models/gemini-2.5-pro", "gemini-2.5-pro"),
        ],
    )
    def test_names_as_agents_log_them_find_openjiuwens_entry(self, logged: str, matched: str) -> None:
        found = run_model_window(logged)
        assert found is not None
        tokens, name, _ = found
        assert (tokens, name) == (model_windows()[matched], matched)

    def test_a_model_openjiuwen_lacks_comes_from_our_table_and_says_so(self) -> None:
        capacity = resolve_context_max(run_model="claude-opus-4-1-20250805")
        assert (capacity.tokens, capacity.source, capacity.from_run) == (200_000, "model", True)
        assert "not in openJiuwen's table" in capacity.note and "Anthropic" in capacity.note

    def test_an_unknown_model_keeps_the_default(self) -> None:
        capacity = resolve_context_max(run_model="house-model-7")
        assert (capacity.tokens, capacity.source, capacity.from_run) == (200_000, "default", False)

    def test_an_explicit_capacity_or_a_chosen_model_wins_over_the_file(self) -> None:
        assert resolve_context_max(16_000, run_model="gpt-4o").tokens == 16_000
        assert resolve_context_max(None, "gpt-3.5-turbo", run_model="gpt-4o").model == "gpt-3.5-turbo"

    def test_analyze_reads_the_model_from_the_conversation(self) -> None:
        run = Conversation.from_messages([{"role": "user", "content": "hi"}], metadata={"model": "gpt-4o"})
        analysis = analyze(run)
        assert (analysis.context_max, analysis.capacity.from_run) == (128_000, True)
        assert "the model the file names" in analysis.capacity.describe()


class TestOurTable:
    def test_every_entry_has_a_source_and_none_shadows_openjiuwen(self) -> None:
        document = json.loads(
            resources.files("compressor")
            .joinpath("data", "model_context_windows_lab.json")
            .read_text("utf-8")
        )
        assert document["models"]
        ours = lab_windows()
        theirs = {name.lower() for name in model_windows()}
        for name, (tokens, note) in ours.items():
            assert tokens > 0 and note.strip(), name
            assert name.lower() not in theirs, f"{name} is in openJiuwen's table already"
