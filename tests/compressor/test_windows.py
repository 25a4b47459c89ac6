"""Context capacity from the run's own model: openJiuwen's table first, names as agents log them, our additions."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from compressor.analysis import analyze, run_window_of
from compressor.formats import load_conversation
from compressor.messages import Conversation
from compressor.replay import simulate, sweep
from compressor.windows import lab_windows, model_windows, resolve_context_max, run_model_window
from tests.conftest import FIXTURES


class TestRunModel:
    @pytest.mark.parametrize(
        ("logged", "matched"),
        [
            ("gpt-4o", "gpt-4o"),
            ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
            ("anthropic/claude-haiku-4-5@20251001", "claude-haiku-4-5"),
            ("models/gemini-2.5-pro", "gemini-2.5-pro"),
            # a prefix before a name that itself ends in -preview: before, only the name without both was tried
            ("models/gemini-3-flash-preview", "gemini-3-flash-preview"),
            ("google/gemini-3-pro-preview", "gemini-3-pro-preview"),
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

    @pytest.mark.parametrize(
        "logged",
        ["gpt-5.1-codex-max", "openai/gpt-5.1-codex-max", "gpt-5.1-codex", "gpt-5.2-codex", "gpt-5.3-codex"],
    )
    def test_codex_models_openjiuwen_lacks_have_their_published_window(self, logged: str) -> None:
        """Codex logs these names; before, their runs were analysed in the 200,000 default."""
        capacity = resolve_context_max(run_model=logged)
        assert (capacity.tokens, capacity.source) == (400_000, "model")
        assert "not in openJiuwen's table" in capacity.note

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


class TestRecordedWindow:
    """A window the run's own file records (Codex ``model_context_window``, Copilot, Goose, Qwen, Amazon Q) is the
    window its agent had: it wins over the table's window for the model, never over a capacity or model chosen."""

    def test_the_recorded_window_wins_over_the_model_table(self) -> None:
        capacity = resolve_context_max(run_model="gpt-4o", run_window=272_000)
        assert (capacity.tokens, capacity.source, capacity.from_run) == (272_000, "recorded", True)
        assert capacity.describe() == "272,000 tokens (the window the file records for gpt-4o)"
        assert (
            resolve_context_max(run_window=64_000).describe() == "64,000 tokens (the window the file records)"
        )

    def test_a_chosen_capacity_or_model_wins_over_the_recorded_window(self) -> None:
        assert resolve_context_max(16_000, run_model="gpt-4o", run_window=272_000).source == "explicit"
        assert resolve_context_max(None, "gpt-3.5-turbo", run_window=272_000).model == "gpt-3.5-turbo"

    @pytest.mark.parametrize("window", [None, 0, -5])
    def test_no_usable_window_falls_back_to_the_model(self, window: int | None) -> None:
        assert resolve_context_max(run_model="gpt-4o", run_window=window).source == "model"

    def test_a_codex_rollout_is_replayed_in_the_window_codex_had(self) -> None:
        # gpt-5-codex is 400,000 in the table; the rollout's token_count says Codex gave it 272,000
        run = load_conversation(
            next((FIXTURES / "formats" / "codex").glob("rollout-2025-10-14T09-00-00-*.jsonl"))
        )
        assert (run.metadata["context_window"], run.metadata["model"]) == (272_000, "gpt-5-codex")
        assert analyze(run).capacity == resolve_context_max(run_model="gpt-5-codex", run_window=272_000)
        assert simulate(run).capacity.tokens == 272_000
        assert sweep(run, ratios=[0.8], keeps=[0]).capacity.tokens == 272_000

    def test_metadata_that_is_not_a_whole_positive_number_is_no_window(self) -> None:
        for value in ("272000", 1.5, True, 0):
            run = Conversation.from_messages(
                [{"role": "user", "content": "hi"}], metadata={"context_window": value}
            )
            assert run_window_of(run) is None


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
