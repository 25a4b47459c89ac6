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
from .replay import (
    CompactionEvent,
    LiveCostEstimate,
    Outcome,
    Recommendation,
    Simulation,
    Step,
    SummaryModel,
    Sweep,
    estimate_live_cost,
    recommend,
    simulate,
    sweep,
)
from .spans import Span, build_span, effective_keep, last_user_index
from .tokens import TokenCounter, get_counter, profile
from .trigger import Decision, decide
from .windows import resolve_context_max

__version__ = "0.1.0"

__all__ = [
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
]
