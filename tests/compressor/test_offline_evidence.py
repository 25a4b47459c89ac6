"""The offline backend keeps the evidence: within its size budget it lists every path, the commands run, the
errors seen and the identifiers first, by recency and reuse; the budget is an input with a default."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from compressor.backends import OfflineBackend
from compressor.backends.offline import MIN_BUDGET, build_reply, default_budget, offline_summary
from compressor.messages import Message, ToolCall
from compressor.prompt import extract_summary
from compressor.quality import EVIDENCE, build_ledger, score
from compressor.tokens import get_counter

COUNTER = get_counter("cl100k_base")
PROMPT = Message(role="user", content="Write the state snapshot now.")


def span(steps: int = 30) -> list[Message]:
    messages = [Message(role="user", content="Port the parser. Do not change the public API. Never commit.")]
    for n in range(steps):
        command = f"pytest -q tests/test_part{n}.py -k case{n}"
        messages.append(
            Message(
                role="assistant",
                content=f"Looking at /srv/proj/src/parser/part{n}.py (issue #{100 + n}).",
                tool_calls=[ToolCall(id=f"c{n}", name="bash", arguments=json.dumps({"command": command}))],
            )
        )
        messages.append(
            Message(
                role="tool",
                tool_call_id=f"c{n}",
                content="output\n" * 40 + f"ValueError: part {n} rejects blank lines\n1 failed",
            )
        )
    return [*messages, PROMPT]


def snapshot_tokens(reply: str) -> int:
    return COUNTER.tok(extract_summary(reply))


@pytest.mark.parametrize("budget", [400, 700, 1_000, 1_800, 3_000, 6_000])
def test_the_snapshot_never_costs_more_than_its_budget(budget: int) -> None:
    assert snapshot_tokens(build_reply(span(), budget_tokens=budget)) <= budget


def test_the_default_budget_is_five_percent_of_the_span_and_at_least_the_floor() -> None:
    assert default_budget(10_000) == MIN_BUDGET and default_budget(100_000) == 5_000
    body = span()[:-1]
    reply = build_reply(span())
    assert f"- Budget: {default_budget(COUNTER.count(body)):,} tokens;" in reply


def test_with_room_every_piece_of_evidence_is_kept() -> None:
    messages = span()
    summary = offline_summary(messages, budget_tokens=6_000)
    retention = score(build_ledger(messages[:-1]), summary)
    for category in EVIDENCE:
        tally = retention.by_category[category]
        assert tally.kept == tally.total > 0, category
    assert retention.by_category["commands"].exact == 30  # verbatim


def test_under_a_tight_budget_the_rules_first_then_the_newest_paths() -> None:
    messages = span()
    summary = offline_summary(messages, budget_tokens=700)
    retention = score(build_ledger(messages[:-1]), summary)
    tallies = retention.by_category
    assert tallies["constraints"].kept == tallies["constraints"].total == 2
    kept_paths = {item.artifact.key for item in retention.of("paths", "kept")}
    assert 0 < len(kept_paths) < 60 and tallies["commands"].kept <= 1  # the resume point names the last one
    assert {"/srv/proj/src/parser/part29.py", "tests/test_part29.py"} <= kept_paths
    assert "/srv/proj/src/parser/part0.py" not in kept_paths
    assert re.search(r"\(\d+ more not listed: over the size budget\)", summary)


def test_then_every_path_and_the_commands_most_wanted_per_token() -> None:
    messages = span()
    retention = score(build_ledger(messages[:-1]), offline_summary(messages, budget_tokens=1_500))
    tallies = retention.by_category
    assert tallies["paths"].kept == tallies["paths"].total == 60
    kept_commands = [item.artifact.key for item in retention.of("commands", "kept")]
    assert 0 < len(kept_commands) < 30
    assert "pytest -q tests/test_part29.py -k case29" in kept_commands  # the newest first


def test_paths_under_a_common_root_are_written_relative_and_still_count() -> None:
    summary = offline_summary(span(), budget_tokens=6_000)
    assert "- Paths in section 8 are relative to /srv/proj/src/parser/ unless they start with /." in summary
    assert "- part7.py" in summary and "- tests/test_part7.py" in summary
    retention = score(build_ledger(span()[:-1]), summary)
    assert retention.by_category["paths"].kept == 60
    assert {item.match for item in retention.of("paths")} == {"basename", "exact"}


def test_an_agents_earlier_summary_is_read_when_marked() -> None:
    earlier = Message(role="user", internal=True, content="Summary: we edited /srv/proj/setup.cfg before.")
    messages = [Message(role="user", content="continue"), earlier, PROMPT]
    assert "setup.cfg" not in offline_summary(messages)
    assert "/srv/proj/setup.cfg" in offline_summary(messages, carriers=[1])


def test_the_backend_takes_a_budget_and_the_replays_call_still_works() -> None:
    messages = span()
    small = asyncio.run(OfflineBackend(budget_tokens=500).complete(messages, [])).content
    assert snapshot_tokens(small) <= 500
    assert build_reply(messages, ()) == build_reply(messages) == build_reply(messages, (), budget_tokens=None)


def test_secrets_stay_out_of_verbatim_commands() -> None:
    call = ToolCall(
        id="c",
        name="bash",
        arguments=json.dumps({"command": "curl -H 'Authorization: Bearer abcdef0123456789xyz' x"}),
    )
    messages = [
        Message(role="user", content="go"),
        Message(role="assistant", content="", tool_calls=[call]),
        PROMPT,
    ]
    reply = build_reply(messages)
    assert "abcdef0123456789xyz" not in reply and "Bearer [redacted]" in reply
