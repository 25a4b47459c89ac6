"""Shared test fixtures: where the reference fixtures live, and a fake model with a reply queue."""

from __future__ import annotations

import gzip
import json
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


FIXTURES = REPO / "tests" / "fixtures"
UPSTREAM = FIXTURES / "upstream"  # copied from ../shared/fixtures: what openJiuwen itself decided
SAMPLES = (
    FIXTURES / "samples"
)  # copied from ../shared/samples (SOURCES.md there says where each file comes from)
TRANSCRIPTS = SAMPLES / "transcripts"
OPENJIUWEN_DUMPS = SAMPLES / "openjiuwen-dumps"

# The sample transcripts whose formats the loaders read today, in the order the tests iterate them.
READ_TRANSCRIPTS = (
    "claude-code-session.jsonl",
    "engram-claude-code-diffusion.jsonl",
    "openai-chat-tau-bench-airline.json",
    "swe-agent-function-calling.traj",
    "openhands-eval-output.jsonl",
    "gemini-cli-stream.jsonl",
)


def fixture(path: Path) -> Path:
    """``path`` if it exists; a missing fixture fails loudly, never skips."""
    if not path.exists():
        raise FileNotFoundError(f"test fixture missing: {path.relative_to(REPO)}")
    return path


def span_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(fixture(UPSTREAM / "upstream_span_cases.json").read_text())[
        "cases"
    ]
    return cases


def compaction_cases() -> list[dict[str, Any]]:
    with gzip.open(fixture(UPSTREAM / "upstream_compaction_cases.json.gz"), "rt", encoding="utf-8") as handle:
        cases: list[dict[str, Any]] = json.load(handle)["cases"]
    return cases


@dataclass
class FakeModel:
    """A backend answering from a queue; each item is a reply string or an exception to raise."""

    replies: list[Any]
    label: str = "fake model"
    kind: str = "fake"
    requests: list[list[Any]] = field(default_factory=list)

    async def complete(self, messages: Sequence[Any], tools: Sequence[Any]) -> Any:
        from compressor.backends.base import ModelReply

        self.requests.append(list(messages))
        if not self.replies:
            raise AssertionError("FakeModel ran out of replies")
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return ModelReply(content=reply)


@pytest.fixture
def fake_model() -> type[FakeModel]:
    return FakeModel


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp directory another (unprivileged) user can reach, unlike pytest's 0700 tmp_path."""
    root = Path(tempfile.mkdtemp(prefix="compaction-lab-test-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        for folder in [root, *root.rglob("*")]:
            if folder.is_dir():
                folder.chmod(0o755)
        shutil.rmtree(root)
