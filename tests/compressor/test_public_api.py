"""The public API is exactly what ``__all__`` says: derived from the module (httpx style) and pinned."""

from __future__ import annotations

from types import ModuleType

import compressor

EXPECTED = {
    "Analysis",
    "Attempt",
    "BackendError",
    "BackendTimeout",
    "CompactionEvent",
    "CompactionResult",
    "CompressorError",
    "ConfigError",
    "Conversation",
    "ConversationFormatError",
    "CurrentRoundCompressor",
    "CurrentRoundCompressorConfig",
    "Decision",
    "DumpFormatError",
    "DumpIndex",
    "DumpRecord",
    "ErrorKind",
    "LiveCostEstimate",
    "Message",
    "MessageRow",
    "ModelClientConfig",
    "ModelRequestConfig",
    "Outcome",
    "Recommendation",
    "Reinjection",
    "Simulation",
    "Span",
    "Step",
    "SummaryModel",
    "Sweep",
    "TokenCounter",
    "ToolCall",
    "ToolDef",
    "__version__",
    "analyze",
    "build_reinjection",
    "build_span",
    "classify",
    "decide",
    "effective_keep",
    "estimate_live_cost",
    "get_counter",
    "index_dumps",
    "last_user_index",
    "load_conversation",
    "load_conversations",
    "profile",
    "read_dump",
    "recommend",
    "resolve_context_max",
    "simulate",
    "sweep",
    "write_dump",
}
INCLUDED_PRIVATE = {"__version__"}


def test_all_is_every_public_name_of_the_module() -> None:
    public = [
        name
        for name, value in vars(compressor).items()
        if (not name.startswith("_") or name in INCLUDED_PRIVATE) and not isinstance(value, ModuleType)
    ]
    assert compressor.__all__ == sorted(public)


def test_all_is_pinned() -> None:
    assert set(compressor.__all__) == EXPECTED


def test_the_replay_values_are_exported() -> None:
    from compressor import replay

    for name in (
        "Simulation",
        "Step",
        "CompactionEvent",
        "Outcome",
        "Sweep",
        "Recommendation",
        "SummaryModel",
    ):
        assert getattr(compressor, name) is getattr(replay, name)
