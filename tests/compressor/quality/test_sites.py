"""Where compactions happened: an agent's recorded compactions (hand-made runs and the Engram sample's three real
Claude Code compactions, with their numbers) and compression dumps, ours and openJiuwen's."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from compressor.dumps import read_dump
from compressor.formats import load_conversation
from compressor.messages import Conversation, Message
from compressor.quality import (
    ScoreReport,
    dump_sites,
    recorded_sites,
    recorded_spans,
    score_dump,
    score_dumps,
    score_recorded,
)
from tests.compressor.quality.handmade import ENGRAM, handmade_run
from tests.conftest import OPENJIUWEN_DUMPS, REPO, fixture

DEMO_DUMPS = REPO / "dumps" / "demo"


class TestRecorded:
    def test_each_span_runs_from_the_previous_summary_to_its_own(self) -> None:
        run = handmade_run()
        assert recorded_spans(run) == [(0, 2), (2, 4)]
        sites = recorded_sites(run)
        assert [(s.offset, s.end, s.index, s.origin) for s in sites] == [
            (0, 2, 2, "agent"),
            (2, 4, 4, "agent"),
        ]
        assert sites[1].span[0] is run.messages[2]  # the earlier summary is part of what the second replaced

    def test_scores_with_the_agents_own_summaries(self) -> None:
        report = score_recorded(handmade_run())
        first, second = report.compactions
        assert first.retention is not None and second.retention is not None
        assert {a.key for a in first.ledger.of("paths")} == {"src/a.py", "src/b.py"}
        assert first.retention.by_category["paths"].kept == 2
        assert first.retention.by_category["constraints"].lost == 1  # "Never push." is not in the summary
        # The second span holds the first summary, read as text: its command is an artifact to keep.
        assert [a.key for a in second.ledger.of("commands")] == ["pytest -q"]
        assert second.retention.by_category["commands"].kept == 0
        assert [a.key for a in second.ledger.of("identifiers")] == ["x.org/1"]

    def test_decay_follows_what_the_first_summary_kept(self) -> None:
        report = score_recorded(handmade_run())
        assert report.decay is not None
        (step,) = report.decay.steps
        assert {a.key for a in report.decay.followed} == {"src/a.py", "src/b.py"}
        assert (step.number, step.overall.kept, step.overall.total) == (1, 1, 2)  # src/a.py is gone

    def test_a_run_without_recorded_compactions_has_nothing_to_score(self) -> None:
        run = Conversation.from_messages([Message(role="user", content="hi")])
        assert score_recorded(run).compactions == ()


@functools.cache
def engram_report() -> ScoreReport:
    return score_recorded(load_conversation(fixture(ENGRAM)))


class TestEngramSample:
    """The three compactions Claude Code made in the Engram sample, scored with Claude's own summaries."""

    def test_three_recorded_compactions_and_their_spans(self) -> None:
        report = engram_report()
        assert [(c.index, c.span, c.origin) for c in report.compactions] == [
            (300, (0, 300), "claude-code"),
            (685, (300, 685), "claude-code"),
            (879, (685, 879), "claude-code"),
        ]
        assert [c.summary_tokens for c in report.compactions] == [4257, 3334, 2909]

    def test_what_claudes_summaries_kept(self) -> None:
        report = engram_report()
        per = [
            {k: (t.kept, t.total) for k, t in c.retention.by_category.items() if t.total}
            for c in report.compactions
        ]
        assert per == [
            {
                "paths": (38, 83),
                "commands": (0, 30),
                "errors": (3, 18),
                "identifiers": (3, 3),
                "numbers": (6, 30),
                "tools": (0, 7),
                "decisions": (0, 1),
            },
            {
                "paths": (27, 78),
                "commands": (0, 86),
                "errors": (3, 14),
                "identifiers": (2, 7),
                "numbers": (8, 74),
                "tools": (0, 6),
                "constraints": (3, 4),
                "decisions": (0, 4),
            },
            {
                "paths": (21, 59),
                "commands": (1, 46),
                "errors": (10, 14),
                "identifiers": (1, 3),
                "numbers": (8, 40),
                "tools": (0, 5),
                "constraints": (1, 1),
                "decisions": (2, 5),
            },
        ]
        totals = report.tallies
        assert (totals["paths"].kept, totals["paths"].total) == (86, 220)  # 39 %; deja-vu's census: ~10 %
        assert (totals["commands"].kept, totals["commands"].exact, totals["commands"].total) == (1, 0, 162)
        assert (totals["numbers"].kept, totals["numbers"].total) == (22, 144)

    def test_the_first_summarys_artifacts_decay(self) -> None:
        report = engram_report()
        assert report.decay is not None and len(report.decay.followed) == 50
        assert [(s.number, s.overall.kept) for s in report.decay.steps] == [(1, 13), (2, 12)]


class TestDumps:
    def test_openjiuwens_sample_dumps(self) -> None:
        report = score_dumps(fixture(OPENJIUWEN_DUMPS))
        assert len(report.compactions) == 3 and report.problems == ()
        for scored, path in zip(
            report.compactions, sorted(OPENJIUWEN_DUMPS.glob("compact*/*.json")), strict=True
        ):
            record = read_dump(path)
            assert scored.span == (record.prefix_count, record.prefix_count + record.compress_count)
            assert scored.summary == (record.extracted_summary.strip() or None)
            assert scored.source == "dump" and scored.origin == path.name

    def test_our_demo_dumps_and_their_retention(self) -> None:
        report = score_dumps(fixture(DEMO_DUMPS))
        assert len(report.compactions) >= 1 and all(c.retention is not None for c in report.compactions)
        assert report.tallies["paths"].total > 0

    def test_a_broken_file_is_a_problem_not_a_failure(self, tmp_path: Path) -> None:
        for path in sorted(OPENJIUWEN_DUMPS.glob("compact000/*")):
            shutil.copy(path, tmp_path / path.name)
        (tmp_path / "9_CurrentRoundCompressor_x.json").write_text("{not json", encoding="utf-8")
        report = score_dumps(tmp_path)
        assert len(report.compactions) == 1 and len(report.problems) == 1
        sites, problems = dump_sites(tmp_path)
        assert len(sites) == 1 and problems[0]["path"].endswith("9_CurrentRoundCompressor_x.json")

    def test_one_dump(self) -> None:
        path = sorted(OPENJIUWEN_DUMPS.glob("compact001/*.json"))[0]
        scored = score_dump(read_dump(path), number=4)
        assert scored.number == 4 and scored.ledger.counts()["paths"] == 3
