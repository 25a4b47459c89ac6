"""compaction-lab's compressor: a faithful re-implementation of openJiuwen 0.1.19.post2's CurrentRoundCompressor.

Invariant: this package never imports streamlit, plotly or pandas; every number the dashboard shows is
computed here and returned as a value with ``to_dict()``.
"""

from .analysis import Analysis, MessageRow, analyze
from .compactor import Attempt, CompactionResult, CurrentRoundCompressor
from .config import CurrentRoundCompressorConfig, ModelClientConfig, ModelRequestConfig
from .dumps import DumpIndex, DumpRecord, index_dumps, read_dump, write_dump
from .errors import (
    BackendError,
    BackendTimeout,
    CompressorError,
    ConfigError,
    ConversationFormatError,
    DumpFormatError,
    ErrorKind,
    classify,
)
from .formats import load_conversation, load_conversations
from .messages import Conversation, Message, ToolCall, ToolDef
from .reinjection import Reinjection, build_reinjection
from .simulate import simulate
from .spans import Span, build_span, effective_keep, last_user_index
from .sweep import sweep
from .tokens import TokenCounter, get_counter, profile
from .trigger import Decision, decide
from .windows import resolve_context_max

__version__ = "0.1.0"

__all__ = [
    "Analysis",
    "Attempt",
    "BackendError",
    "BackendTimeout",
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
    "Message",
    "MessageRow",
    "ModelClientConfig",
    "ModelRequestConfig",
    "Reinjection",
    "Span",
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
    "get_counter",
    "index_dumps",
    "last_user_index",
    "load_conversation",
    "load_conversations",
    "profile",
    "read_dump",
    "resolve_context_max",
    "simulate",
    "sweep",
    "write_dump",
]
