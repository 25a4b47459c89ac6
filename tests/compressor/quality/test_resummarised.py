"""Other summaries over the same spans: our offline memory block within the agent's own size (the acceptance
figures on the Engram sample), and a live model through a scripted local server."""

from __future__ import annotations

import asyncio
import functools

from compressor.backends import make_backend
from compressor.config import ModelClientConfig, ModelRequestConfig
from compressor.formats import load_conversation
from compressor.prompt import memory_message
from compressor.quality import (
    LIVE_FAILED,
    ScoreReport,
    offline_block,
    recorded_sites,
    score_live,
    score_offline,
)
from compressor.tokens import get_counter
from tests.compressor.quality.handmade import ENGRAM, handmade_run
from tests.conftest import fixture
from tests.support.openai_server import ScriptedServer

COUNTER = get_counter("cl100k_base")


@functools.cache
def engram_offline() -> ScoreReport:
    return score_offline(recorded_sites(load_conversation(fixture(ENGRAM))))


class TestOfflineOnTheEngramSample:
    """Issue 11's bar: every path and at least half the commands verbatim, in blocks no larger than Claude's."""

    def test_keeps_the_paths_and_the_commands_verbatim(self) -> None:
        totals = engram_offline().tallies
        paths, commands = totals["paths"], totals["commands"]
        assert (paths.kept, paths.total) == (220, 220)
        assert (commands.exact, commands.total) == (109, 162) and commands.exact / commands.total >= 0.5
        assert (totals["identifiers"].kept, totals["errors"].kept) == (13, 34)

    def test_every_block_is_no_larger_than_claudes_summary_there(self) -> None:
        sites = recorded_sites(load_conversation(fixture(ENGRAM)))
        for site, scored in zip(sites, engram_offline().compactions, strict=True):
            assert scored.memory_tokens <= COUNTER.tok(site.summary)
        assert sum(c.memory_tokens for c in engram_offline().compactions) == 10325  # Claude's: 10,500

    def test_re_summaries_are_no_chain_so_no_decay(self) -> None:
        assert engram_offline().decay is None


def test_without_a_summary_there_the_default_budget_applies() -> None:
    site = recorded_sites(handmade_run())[0]
    bare = type(site)(**{**site.__dict__, "summary": ""})
    text = offline_block(bare, COUNTER)
    assert "src/a.py" in text and COUNTER.tok(text) <= 1_000  # the floor of the default budget


def test_a_block_fits_a_tight_reference_unless_its_skeleton_alone_is_larger() -> None:
    site = recorded_sites(handmade_run())[0]
    tight = type(site)(**{**site.__dict__, "summary": "word " * 400})
    block = offline_block(tight, COUNTER)
    assert COUNTER.message_tokens(memory_message(block)) <= COUNTER.tok(tight.summary)
    # Eleven headings, the task and the resume point cost more than 50 tokens: the skeleton is all there is.
    tiny = type(site)(**{**site.__dict__, "summary": "word " * 50})
    skeleton = offline_block(tiny, COUNTER)
    assert skeleton.count("### ") == 11 and "- src/a.py" not in skeleton


def backend_at(url: str):  # type: ignore[no-untyped-def]
    return make_backend(
        "openai", client_config=ModelClientConfig(api_base=url), request=ModelRequestConfig(model="m")
    )


class TestLive:
    def test_a_live_summary_is_scored_and_a_failure_is_a_reason(self) -> None:
        sites = recorded_sites(handmade_run())
        reply = "<coverage_check>ok</coverage_check><state_snapshot>Edited src/a.py and src/b.py.</state_snapshot>"
        with ScriptedServer([reply, {"raise": "overloaded", "status_code": 503}]) as server:
            report = asyncio.run(score_live(sites, backend_at(server.url)))
            sent = server.requests[0].body
        first, second = report.compactions
        assert first.source == "live" and first.summary == "Edited src/a.py and src/b.py."
        assert first.retention is not None and first.retention.by_category["paths"].kept == 2
        assert second.retention is None and second.reason == LIVE_FAILED
        assert sent["messages"][-1]["content"].startswith("# Checkpoint request")  # our prompt, last
        assert [m["content"] for m in sent["messages"][:-1]] == [m.text for m in sites[0].span]
