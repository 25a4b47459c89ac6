"""A hand-written span whose ledger is known item by item, a summary whose score is known exactly, and a small
run with two recorded compactions."""

from __future__ import annotations

import json

from compressor.messages import Conversation, Message, RecordedCompaction, ToolCall
from tests.conftest import TRANSCRIPTS

ENGRAM = TRANSCRIPTS / "engram-claude-code-diffusion.jsonl"


def call(call_id: str, name: str, **arguments: object) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


SPAN: list[Message] = [
    Message(
        role="user",
        content="Fix the flaky upload test in tests/test_upload.py. Do not change the public API. "
        "Never push to main.",
    ),
    Message(
        role="assistant",
        content="I'll look at src/upload/client.py first.",
        tool_calls=[
            call("c1", "Read", file_path="/srv/app/src/upload/client.py"),
            call("c2", "Bash", command="pytest -q tests/test_upload.py"),
        ],
    ),
    Message(role="tool", tool_call_id="c1", content="def upload(path, timeout=30): ..."),
    Message.model_validate(
        {
            "role": "tool",
            "tool_call_id": "c2",
            "is_error": True,
            "content": (
                "F.\nFAILED tests/test_upload.py::test_retry - TimeoutError: upload timed out after 30s\n"
                "1 failed, 1 passed in 2.50s"
            ),
        }
    ),
    Message(
        role="assistant",
        content=(
            "Decided to retry with backoff instead of a longer timeout. See https://github.com/acme/app/issues/412 "
            "and commit 3f2a1bc9."
        ),
        tool_calls=[
            call(
                "c3",
                "Edit",
                file_path="/srv/app/src/upload/client.py",
                old_string="timeout=30",
                new_string="timeout=30, retries=3 # see docs/retry.md",
            ),
            call(
                "c4",
                "TodoWrite",
                todos=[
                    {"content": "Run the full suite", "status": "pending"},
                    {"content": "Fix retry", "status": "completed"},
                ],
            ),
        ],
    ),
    Message(role="tool", tool_call_id="c3", content="edited"),
    Message(role="tool", tool_call_id="c4", content="ok"),
    Message(
        role="assistant",
        content="",
        tool_calls=[
            call("c5", "Bash", command="cd /srv/app && pytest -q tests/test_upload.py 2>&1 | tail -5"),
        ],
    ),
    Message(role="tool", tool_call_id="c5", content="2 passed in 1.20s"),
    Message(role="assistant", content="TODO: update CHANGELOG.md with the retry change."),
]

#: (category, key, first message, last message, mentions) of every artifact of SPAN, in ledger order.
LEDGER: list[tuple[str, str, int, int, int]] = [
    ("paths", "tests/test_upload.py", 0, 7, 3),
    (
        "paths",
        "/srv/app/src/upload/client.py",
        1,
        4,
        2,
    ),  # "src/upload/client.py" in message 1 is the same file
    ("paths", "/srv/app", 7, 7, 1),
    ("paths", "CHANGELOG.md", 9, 9, 1),
    ("commands", "pytest -q tests/test_upload.py", 1, 1, 1),
    ("commands", "cd /srv/app && pytest -q tests/test_upload.py 2>&1 | tail -5", 7, 7, 1),
    ("errors", "failed tests/test_upload.py::test_retry - timeouterror: upload timed out after 30s", 3, 3, 1),
    ("errors", "1 failed, 1 passed in 2.50s", 3, 3, 1),
    ("identifiers", "github.com/acme/app/issues/412", 4, 4, 1),
    ("identifiers", "3f2a1bc9", 4, 4, 1),
    ("numbers", "30 s", 3, 3, 1),
    ("numbers", "1 failed", 3, 3, 1),
    ("numbers", "1 passed", 3, 3, 1),
    ("numbers", "2.5 s", 3, 3, 1),
    ("numbers", "2 passed", 8, 8, 1),
    ("numbers", "1.2 s", 8, 8, 1),
    ("tools", "read", 1, 1, 1),
    ("tools", "bash", 1, 7, 2),
    ("tools", "edit", 4, 4, 1),
    ("tools", "todowrite", 4, 4, 1),
    ("constraints", "do not change the public api", 0, 0, 1),
    ("constraints", "never push to main", 0, 0, 1),
    ("todos", "run the full suite", 4, 4, 1),  # the open item of the todo list TodoWrite wrote
    ("todos", "todo: update changelog.md with the retry change", 9, 9, 1),
    ("decisions", "decided to retry with backoff instead of a longer timeout", 4, 4, 1),
]

SUMMARY = (
    "Fixed the retry in /srv/app/src/upload/client.py; tests in test_upload.py pass. Ran `pytest -q "
    "tests/test_upload.py`. Error: TimeoutError: upload timed out after 30s. Issue "
    "https://github.com/acme/app/issues/412, commit 3f2a1bc. Timings 2.50s. Used Bash and Edit. Do not change the "
    "public API. Next: run the full suite. We decided to retry with backoff instead of a longer timeout."
)

#: category → (kept, total, kept exactly) of SUMMARY against SPAN's ledger; the keys of what it kept, and how.
RETENTION: dict[str, tuple[int, int, int]] = {
    "paths": (3, 4, 2),
    "commands": (2, 2, 1),
    "errors": (1, 2, 0),
    "identifiers": (2, 2, 1),
    "numbers": (2, 6, 2),
    "tools": (2, 4, 2),
    "constraints": (1, 2, 1),
    "todos": (1, 2, 1),
    "decisions": (1, 1, 1),
}
MATCHES: dict[str, str] = {
    "tests/test_upload.py": "exact",  # written whole inside the command the summary quotes
    "/srv/app/src/upload/client.py": "exact",
    "/srv/app": "inside",  # a folder: the summary names a file in it
    "pytest -q tests/test_upload.py": "exact",
    "cd /srv/app && pytest -q tests/test_upload.py 2>&1 | tail -5": "normalised",
    "failed tests/test_upload.py::test_retry - timeouterror: upload timed out after 30s": "normalised",
    "github.com/acme/app/issues/412": "exact",
    "3f2a1bc9": "prefix",
    "30 s": "exact",
    "2.5 s": "exact",
    "bash": "exact",
    "edit": "exact",
    "do not change the public api": "exact",
    "run the full suite": "exact",
    "decided to retry with backoff instead of a longer timeout": "exact",
}


def handmade_run() -> Conversation:
    summary_one = "Summary: edited src/a.py, ran `pytest -q`; next: fix src/b.py."
    summary_two = "Summary: src/b.py fixed."
    messages = [
        Message(role="user", content="Fix src/a.py and src/b.py. Never push."),
        Message(role="assistant", content="Editing src/a.py and src/b.py."),
        Message(role="user", internal=True, content=summary_one),  # 2: the agent's first summary
        Message(role="assistant", content="Now src/b.py; see https://x.org/1."),
        Message(role="user", internal=True, content=summary_two),  # 4: its second
        Message(role="assistant", content="Done."),
    ]
    return Conversation.from_messages(
        messages,
        recorded_compactions=[
            RecordedCompaction(index=2, source="agent", summary=summary_one),
            RecordedCompaction(index=4, source="agent", summary=summary_two),
        ],
    )
