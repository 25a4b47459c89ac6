"""The replay backend: answers every request with the reply recorded in a compaction dump.

Invariant: a replay never touches the network and always returns the same recorded text, so a past
compaction can be re-run under other settings and differ only by what the settings change.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from ..errors import DumpFormatError
from ..messages import Message, ToolDef
from .base import ModelReply


class ReplayBackend:
    """Answers with ``reply``; ``source`` names where it came from (a dump file name)."""

    kind = "replay"

    def __init__(self, reply: str, *, source: str = "") -> None:
        self.reply = reply
        self.source = source
        self.label = f"replay of {source}" if source else "replay of a recorded reply"

    @classmethod
    def from_dump(cls, path: str | Path) -> ReplayBackend:
        """The recorded ``compression_response.raw_content`` of a dump JSON file."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise DumpFormatError(
                str(path), f"cannot be read ({exc.strerror or type(exc).__name__})"
            ) from None
        except (UnicodeDecodeError, ValueError) as exc:
            raise DumpFormatError(str(path), f"is not JSON ({exc})") from None
        response = data.get("compression_response") if isinstance(data, dict) else None
        raw = response.get("raw_content") if isinstance(response, dict) else None
        if not isinstance(raw, str):
            raise DumpFormatError(str(path), "has no compression_response.raw_content text to replay")
        return cls(raw, source=path.name)

    async def complete(self, messages: Sequence[Message], tools: Sequence[ToolDef]) -> ModelReply:
        return ModelReply(content=self.reply)
