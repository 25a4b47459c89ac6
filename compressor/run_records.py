"""What a reader records of a run besides its messages: the agent's own compactions and how the file was read.

Invariant: values are frozen once built (``compressor.messages`` re-exports both; they are part of a Conversation).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

#: The ``Message.metadata`` key a reader puts on a message a recorded compaction kept verbatim and the agent sent
#: again right beside its summary (e.g. Claude Code 2.1's ``preservedSegment``); its value names the compaction.
KEPT_BY_COMPACTION = "kept_by_compaction"


class RecordedCompaction(BaseModel):
    """A compaction the agent itself made and its file records: where its summary sits and what it says."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: int = Field(ge=0, description="index in Conversation.messages of the message carrying the summary")
    source: str = Field(description="what recorded it, e.g. 'claude-code', 'codex', 'openhands'")
    summary: str
    tokens_before: int | None = Field(default=None, description="context tokens before, when the file says")
    tokens_after: int | None = Field(default=None, description="context tokens after, when the file says")

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()


class Reading(BaseModel):
    """One interpretation a reader made of a file, as a code and a count (e.g. tool results read from user text)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    code: str
    count: int = 1
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()
