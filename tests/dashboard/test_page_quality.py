"""What a compaction kept, on the pages: Dump review's "What it kept" panel and badge on openJiuwen's sample
dumps and on the demo dumps, with the numbers the library scores."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from compressor.config import CurrentRoundCompressorConfig
from compressor.dumps import read_dump
from compressor.quality import score_dump, score_replay, score_result
from compressor.replay import Simulation, recommend, simulate, sweep
from dashboard import report, roots
from dashboard.i18n.quality import replay_lines
from dashboard.state import keys
from tests.dashboard.conftest import APP, APP_TIMEOUT, demo_conversation, no_exception, texts

#: openJiuwen's compact001 sample: the one dump whose summary drops something (the grep tool it used).
COMPACT001 = "1796020259802_CurrentRoundCompressor_default_session_id.json"
JUMP = keys.page_widget("dumps", "kept_jump")


def open_dumps() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    return at.switch_page("views/dumps.py").run()


def pick(at: AppTest, name: str) -> AppTest:
    picker = at.selectbox(key=keys.W_DUMP_PICK)
    index = next(n for n, option in enumerate(picker.options) if str(option).endswith(name))
    picker.select_index(index)
    return at.run()


def expander_labels(at: AppTest) -> list[str]:
    return [str(e.label) for e in at.expander]


class TestOpenJiuwenDumps:
    def test_the_folder_panel_names_what_each_dump_forgot(self, dump_root: Path) -> None:
        at = open_dumps()
        no_exception(at)
        assert "What each dump forgot" in expander_labels(at)
        frame = next(
            f.value for f in at.dataframe if "dump" in f.value.columns and "retention" in f.value.columns
        )
        row = frame[frame["dump"] == COMPACT001].iloc[0]
        assert row["lost"] == 1
        assert row["item"] == "grep"
        assert "3 dumps on this page; items lost in all: 1." in texts(at)

    def test_one_dump_lists_its_lost_items_and_the_message_each_came_from(self, dump_root: Path) -> None:
        at = pick(open_dumps(), COMPACT001)
        no_exception(at)
        record = read_dump(next(dump_root.rglob(COMPACT001)))
        scored = score_dump(record)
        assert scored.retention is not None
        overall = scored.retention.overall
        assert "What it kept — 1 lost" in expander_labels(at)
        badge = f"kept {overall.kept}/{overall.total} (0.0%); {overall.elsewhere} still in the kept messages, 1 lost"
        assert any(badge in str(m.value) for m in at.markdown), badge
        lost = next(
            f.value
            for f in at.dataframe
            if list(f.value.columns) == ["category", "item", "message", "mentions"]
        )
        assert lost.to_dict("records") == [
            {"category": "Tools used", "item": "grep", "message": 3, "mentions": lost["mentions"][0]}
        ]
        assert "Message #3 before the compaction · assistant" in texts(at)
        shown = record.before[3]
        assert any(call.name == "grep" for call in shown.tool_calls or ())

    def test_a_dump_that_lost_nothing_says_so(self, dump_root: Path) -> None:
        at = open_dumps()
        no_exception(at)
        assert "What it kept — 0 lost" in expander_labels(at)
        assert "Nothing was lost: every item is in the summary or still in the kept messages." in texts(at)


class TestDemoDumps:
    def test_the_demo_dumps_show_what_they_forgot(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
        at = open_dumps()
        no_exception(at)
        path = str(at.selectbox(key=keys.W_DUMP_PICK).value)
        scored = score_dump(read_dump(path))
        assert scored.retention is not None
        lost = scored.retention.overall.lost
        assert f"What it kept — {lost} lost" in expander_labels(at)
        if lost:
            frame = next(
                f.value
                for f in at.dataframe
                if list(f.value.columns) == ["category", "item", "message", "mentions"]
            )
            assert len(frame) == lost
            assert at.selectbox(key=JUMP).value == 0


class TestLiveResult:
    def test_an_offline_run_wears_the_retention_badge(self, app: AppTest) -> None:
        at = app.switch_page("views/compact.py").run()
        at = at.button(key=keys.page_widget("compact", "run")).click().run()
        no_exception(at)
        stored = at.session_state[keys.K_LIVE_RESULT][1]
        scored = score_result(stored)
        assert scored.retention is not None
        overall = scored.retention.overall
        badge = f"What the summary kept: kept {overall.kept}/{overall.total}"
        assert any(badge in str(m.value) for m in at.markdown), badge
        assert f"What it kept — {overall.lost} lost" in expander_labels(at)


def first_compaction_step(simulation: Simulation) -> int:
    event = next(e for e in simulation.events if e.status == "compacted")
    return next(n for n, step in enumerate(simulation.steps, start=1) if step.index == event.index)


def demo_replay(summary: str) -> Simulation:
    return simulate(demo_conversation(), CurrentRoundCompressorConfig(), context_max=16_000, summary=summary)


class TestReplays:
    def test_the_demo_says_what_an_offline_compaction_kept_beside_its_savings(self, app: AppTest) -> None:
        at = app.switch_page("views/tune.py").run()
        at.radio(key=keys.W_SUMMARY_KIND).set_value("offline").run()
        at = at.switch_page("views/demo.py").run()
        simulation = demo_replay("offline")
        kept = score_replay(demo_conversation(), simulation)
        line = replay_lines(kept, simulation.events, "en")
        event = next(e for e in simulation.events if e.status == "compacted")
        assert line[event.index].startswith(f"At message #{event.index}: saved ")
        assert "/" in line[event.index] and "files" in line[event.index]  # "kept 3/4 files, …"
        at.slider(key=keys.W_DEMO_STEP).set_value(first_compaction_step(simulation)).run()
        no_exception(at)
        assert line[event.index] in texts(at)

    def test_a_sized_replay_says_so_in_words_never_numbers(self, app: AppTest) -> None:
        simulation = demo_replay("ratio:0.1")
        at = app.switch_page("views/demo.py").run()
        at.slider(key=keys.W_DEMO_STEP).set_value(first_compaction_step(simulation)).run()
        no_exception(at)
        event = next(e for e in simulation.events if e.status == "compacted")
        saved = 1 - event.tokens_after / event.tokens_before
        assert (
            f"At message #{event.index}: saved {saved:.1%}; this replay only sizes its summaries (no text), so "
            "what they keep is not scored"
        ) in texts(at)

    def test_the_report_lists_what_each_compaction_kept(self) -> None:
        simulation = demo_replay("offline")
        swept = sweep(demo_conversation(), ratios=(0.8,), keeps=(0,), context_max=16_000, summary="ratio:0.1")
        kept = score_replay(demo_conversation(), simulation)
        html = report.build_report(simulation, swept, recommend(swept), title="t", language="zh", kept=kept)
        assert "<h3>每次压缩保留了什么</h3>" in html
        for line in replay_lines(kept, simulation.events, "zh").values():
            assert f"<li>{line}</li>" in html
        assert "每次压缩保留了什么" not in report.build_report(simulation, swept, recommend(swept), title="t")


class TestEveryItem:
    def test_every_item_shows_its_fate_and_match_in_words(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
        at = open_dumps()
        path = str(at.selectbox(key=keys.W_DUMP_PICK).value)
        scored = score_dump(read_dump(path))
        assert scored.retention is not None
        at.toggle(key=f"{JUMP}_all").set_value(True).run()
        no_exception(at)
        frame = next(f.value for f in at.dataframe if "match" in f.value.columns)
        assert len(frame) == len(scored.retention.items)
        fates = {"kept": "kept in the summary", "elsewhere": "still in the kept messages", "lost": "lost"}
        assert frame["status"].tolist() == [fates[item.status] for item in scored.retention.items]
        assert set(frame["match"]) <= {
            "",
            "exact",
            "a longer form",
            "the path's end",
            "the file name",
            "inside a longer text",
            "case and spaces folded",
            "its opening words",
            "paraphrased",
        }

    def test_the_panel_reads_in_chinese(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
        at = open_dumps()
        at.radio(key=keys.W_LANG).set_value("zh").run()
        no_exception(at)
        path = str(at.selectbox(key=keys.W_DUMP_PICK).value)
        scored = score_dump(read_dump(path))
        assert scored.retention is not None
        assert f"保留了什么 — 丢失 {scored.retention.overall.lost} 项" in expander_labels(at)
        assert "每个转储遗忘了什么" in expander_labels(at)
        overall = scored.retention.overall
        badge = (
            f"摘要保留了什么：保留 {overall.kept}/{overall.total}"  # a Chinese colon, as the rest of the line
        )
        assert any(badge in str(m.value) for m in at.markdown), badge
