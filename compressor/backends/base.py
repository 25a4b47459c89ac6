"""The one small interface every model backend implements, and the reply value it returns.

Invariant: ``complete`` either returns a ModelReply or raises a BackendError (BackendTimeout included)
whose ``kind`` follows SPEC §11; backends never retry — the compactor owns the retry policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ..messages import Message, ToolDef

BACKEND_KINDS: tuple[str, ...] = ("offline", "openai", "replay")


@dataclass(frozen=True)
class ModelReply:
    """What a model answered: the first choice's text ('' when it holds none), usage and the parsed body."""

    content: str
    usage: dict[str, Any] | None = None
    raw: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"content": self.content, "usage": self.usage, "raw": self.raw}


@runtime_checkable
class Backend(Protocol):
    """A model the compactor can ask for a compaction reply."""

    #: Shown to users wherever a result is displayed, e.g. "offline (extractive)".
    label: str
    #: One of BACKEND_KINDS.
    kind: str

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        """Answer one compaction request; raise BackendError on failure."""
        ...
