"""The public API is exactly what ``__all__`` says, and the library stays free of UI imports."""

from __future__ import annotations

import subprocess
import sys

import compressor

EXPECTED = {
    "Analysis", "Attempt", "BackendError", "BackendTimeout", "CompactionResult", "CompressorError", "ConfigError",
    "Conversation", "ConversationFormatError", "CurrentRoundCompressor", "CurrentRoundCompressorConfig", "Decision",
    "DumpFormatError", "DumpIndex", "DumpRecord", "ErrorKind", "Message", "MessageRow", "ModelClientConfig",
    "ModelRequestConfig", "Reinjection", "Span", "TokenCounter", "ToolCall", "ToolDef", "__version__", "analyze",
    "build_reinjection", "build_span", "classify", "decide", "effective_keep", "get_counter", "index_dumps",
    "last_user_index", "load_conversation", "load_conversations", "profile", "read_dump", "resolve_context_max",
    "simulate", "sweep", "write_dump",
}


def test_all_is_pinned() -> None:
    assert set(compressor.__all__) == EXPECTED


def test_every_name_in_all_exists() -> None:
    for name in compressor.__all__:
        assert hasattr(compressor, name), name


def test_the_library_imports_no_ui_packages() -> None:
    code = (
        "import sys, compressor, compressor.cli, compressor.simulate;"
        "bad = [m for m in ('streamlit', 'plotly', 'pandas') if m in sys.modules];"
        "print(','.join(bad))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""
