"""The HTML report: self-contained, escaped, drawing exactly the simulation's and the sweep's numbers, and
written in one language throughout — the 简体中文 report holds no English prose."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from typing import Any

import pytest

from compressor.config import CurrentRoundCompressorConfig
from compressor.messages import Conversation
from compressor.replay import Reason, Recommendation, Simulation, Sweep, recommend, simulate, sweep
from dashboard.charts import HEATMAPS
from dashboard.i18n import ZH, recommendation_sentences
from dashboard.report import build_report, compactions_table, recommendation_html
from tests.dashboard.conftest import Run

ATTACK = "<script>alert(1)</script>"


def hostile_run() -> Run:
    """A run whose name, messages and read file path all carry markup; its compaction reinjects that file."""
    read = {
        "id": "r1",
        "type": "function",
        "name": "read_file",
        "arguments": json.dumps({"file_path": f"src/{ATTACK}.py"}),
    }
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": f"please look at {ATTACK}"},
        {"role": "assistant", "content": ATTACK, "tool_calls": [read]},
        {"role": "tool", "tool_call_id": "r1", "content": f"{ATTACK}\n" * 200},
    ]
    for n in range(6):
        messages.append({"role": "assistant", "content": f"{ATTACK} step {n} " * 40})
    conversation = Conversation.from_messages(messages, name=ATTACK)
    settings = CurrentRoundCompressorConfig(trigger_context_ratio=0.5, min_target_context_ratio=0.0)
    simulation = simulate(
        conversation, settings, context_max=4_000, counter="string_length", summary="fixed:20"
    )
    swept = sweep(
        conversation,
        ratios=(0.5,),
        keeps=(0,),
        min_targets=(0.0,),
        context_max=4_000,
        counter="string_length",
        summary="fixed:20",
    )
    return simulation, swept, recommend(swept)


class _Loads(HTMLParser):
    """Start tags that would fetch something (script bodies are text to this parser, not tags)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.scripts += tag == "script"
        if any(named.get(attribute) for attribute in ("src", "href")) and tag in (
            "script",
            "link",
            "img",
            "iframe",
        ):
            self.found.append(tag)


class _Text(HTMLParser):
    """The text a reader sees (outside scripts and styles), and the ``lang`` of the document."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.lang: str | None = None
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "html":
            self.lang = dict(attrs).get("lang")
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._hidden -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._hidden and data.strip():
            self.parts.append(data.strip())


def figures(page: str) -> list[dict[str, Any]]:
    """The figures' specs as the report writes them (``Plotly.newPlot(id, data, layout, config)``)."""
    decoder = json.JSONDecoder()
    found = []
    for match in re.finditer(r'Plotly\.newPlot\(\s*"[^"]+",\s*', page):
        data, end = decoder.raw_decode(page, match.end())
        layout, _ = decoder.raw_decode(page, page.index("{", end))
        found.append({"data": data, "layout": layout})
    return found


#: Latin words the 简体中文 report may hold: the unit, our name, the run's own name, and plotly's template
#: parts (``%{x}``, ``<br>``); identifiers (``trigger_context_ratio``, ``cl100k_base``, ``ratio:0.1``) and
#: file names hold an underscore, a digit, a dot or a slash and are not words.
ALLOWED = {"token", "compaction-lab", "generated", "run", "x", "y", "text", "br"}
WORD = re.compile(r"[A-Za-z][\w\-./:]*")


def english_words(text: str) -> set[str]:
    words = {word.rstrip(".:") for word in WORD.findall(text)}
    return {word for word in words if word not in ALLOWED and not re.search(r"[_\d./:]", word)}


class TestSelfContained:
    def test_nothing_is_fetched(self, generated_run: Run) -> None:
        page = build_report(*generated_run, title="Report")
        parser = _Loads()
        parser.feed(page)
        assert parser.found == []
        assert parser.scripts >= 2  # plotly.js itself, then one per figure

    def test_plotly_is_inlined_once(self, generated_run: Run) -> None:
        page = build_report(*generated_run, title="Report")
        assert page.count("Plotly.newPlot(") == 1 + len(HEATMAPS) + 1
        assert page.count("<script type='text/javascript'>") == 1
        assert len(page) > 3_000_000  # the library itself travels in the file


class TestEscaping:
    def test_user_content_is_escaped(self) -> None:
        simulation, swept, recommendation = hostile_run()
        assert any(ATTACK in path for e in simulation.events for path in e.reinjected_files)
        page = build_report(simulation, swept, recommendation, title=f"Report {ATTACK}")
        assert ATTACK not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page

    def test_the_compactions_table_escapes_file_paths(self) -> None:
        simulation, _, _ = hostile_run()
        table = compactions_table(simulation, "en")
        assert ATTACK not in table and "src/&lt;script&gt;" in table


class TestRecommendationSection:
    def test_names_the_settings_and_the_reasons(self, generated_run: Run) -> None:
        recommendation = generated_run[2]
        section = recommendation_html(recommendation, "en")
        assert section.count("<li>") == len(recommendation.reasons)
        assert recommendation.setting is not None
        assert f"<b>{recommendation.setting.trigger_context_ratio:g}</b>" in section

    def test_says_when_there_is_none(self) -> None:
        none = Recommendation(
            headroom=0.2,
            setting=None,
            reasons=(Reason("none_qualify", {"limit": 0.8, "limit_tokens": 800}),),
            qualifying=0,
            considered=4,
        )
        assert "No recommendation with 20% headroom" in recommendation_html(none, "en")
        assert "保留 20% 余量时没有可推荐的设置" in recommendation_html(none, "zh")


@pytest.fixture(scope="module")
def chinese(generated_run: Run) -> str:
    return build_report(*generated_run, title="压缩报告：generated run", language="zh")


class TestLanguage:
    def test_the_document_says_its_language(self, generated_run: Run, chinese: str) -> None:
        for page, lang in ((build_report(*generated_run, title="Report"), "en"), (chinese, "zh-CN")):
            parser = _Text()
            parser.feed(page)
            assert parser.lang == lang

    def test_headings_tables_facts_and_the_recommendation_are_chinese(
        self, generated_run: Run, chinese: str
    ) -> None:
        for key in (
            "report.recommendation",
            "report.compactions",
            "report.fact.peak",
            "report.col.span_tokens",
        ):
            assert f">{ZH[key]}<" in chinese, key
        for sentence in recommendation_sentences(generated_run[2], "zh"):
            assert sentence in chinese
        assert ZH["report.footer"] in chinese

    def test_no_english_prose_is_left(self, generated_run: Run, chinese: str) -> None:
        english = _Text()
        english.feed(build_report(*generated_run, title="Report"))
        assert {"Recommendation", "Compactions", "peak", "context"} <= english_words(" ".join(english.parts))
        parser = _Text()
        parser.feed(chinese)
        assert english_words(" ".join(parser.parts)) == set()

    def test_the_figures_are_chinese_too(self, chinese: str) -> None:
        drawn = figures(chinese)
        assert len(drawn) == 1 + len(HEATMAPS) + 1
        words: set[str] = set()
        for figure in drawn:
            layout = figure["layout"]
            words |= english_words(str(layout.get("title", {}).get("text", "")))
            for axis in ("xaxis", "yaxis"):
                words |= english_words(str(layout.get(axis, {}).get("title", {}).get("text", "")))
            for trace in figure["data"]:
                words |= english_words(str(trace.get("name", "")))
                words |= english_words(str(trace.get("hovertemplate", "")).replace("<extra></extra>", ""))
                words |= english_words(
                    " ".join(str(text) for text in trace.get("text", []) if isinstance(text, str))
                )
        assert words == set()


def test_the_report_reads_the_numbers_of_the_run(generated_run: Run) -> None:
    simulation: Simulation
    swept: Sweep
    simulation, swept, _ = generated_run
    page = build_report(*generated_run, title="Report")
    outcome = simulation.outcome
    assert f"{outcome.compaction_input_tokens:,}" in page
    assert f"Sweep: {len(swept.outcomes)} settings, summary model {swept.summary}" in page


class TestNamedQuantities:
    def test_each_compaction_row_gives_the_window_total_the_trigger_read(self, generated_run: Run) -> None:
        simulation = generated_run[0]
        table = compactions_table(simulation, "en")
        assert "<th>window total</th>" in table
        assert "<th>context messages before → after</th>" in table
        for event in simulation.events:
            assert f"<td>{event.context_tokens:,}</td>" in table

    def test_both_peaks_are_named_the_one_the_threshold_reads_first(self, generated_run: Run) -> None:
        simulation = generated_run[0]
        page = build_report(*generated_run, title="Report")
        read = max(step.context_tokens for step in simulation.steps)
        assert (
            "peak window read (the threshold&#x27;s quantity)" in page
            or "peak window read (the threshold's quantity)" in page
        )
        assert f"{read:,} tokens" in page
        assert f"{simulation.outcome.peak_tokens:,} tokens" in page and "peak context sent" in page
