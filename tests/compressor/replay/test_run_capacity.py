"""A replay takes the capacity ``analyze()`` takes: with no context_max and no model given, the window of the model
the run's own file names, so Span & trigger, Tune, ``inspect``, ``simulate`` and the fleet say one number."""

from __future__ import annotations

import pytest

from compressor.analysis import analyze
from compressor.formats import load_conversations
from compressor.replay import simulate, sweep
from tests.conftest import READ_TRANSCRIPTS, TRANSCRIPTS, fixture


@pytest.mark.parametrize("name", READ_TRANSCRIPTS)
def test_simulate_and_sweep_take_the_runs_own_model_as_analyze_does(name: str) -> None:
    conversation = load_conversations(fixture(TRANSCRIPTS / name))[0]
    expected = analyze(conversation).capacity
    assert simulate(conversation, summary="ratio:0.1").capacity == expected
    assert sweep(conversation, ratios=(0.8,), summary="ratio:0.1").capacity == expected


def test_the_claude_code_session_names_its_model() -> None:
    """The case that differed: the bundled Claude Code session names its model, so its capacity is that model's
    window (as it happens the same 200,000 tokens), not the default."""
    conversation = load_conversations(fixture(TRANSCRIPTS / "claude-code-session.jsonl"))[0]
    capacity = simulate(conversation, summary="ratio:0.1").capacity
    assert (capacity.source, capacity.model, capacity.from_run) == ("model", "claude-opus-4-5-20251101", True)
    explicit = simulate(conversation, context_max=50_000, summary="ratio:0.1").capacity
    assert (explicit.tokens, explicit.source) == (50_000, "explicit")
