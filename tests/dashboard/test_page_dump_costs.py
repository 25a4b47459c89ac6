"""Dump review's cost: the price picker, each dump's compaction call in the listing and in detail, and the total of
the dumps shown — on openJiuwen's sample dumps and the demo dumps, every number equal to the library's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from compressor.cost import Price, find_price
from compressor.dumps import DumpCost, dump_cost, dump_timing, read_dump, total_cost
from dashboard import roots
from dashboard.state import dumps as dump_state
from dashboard.state import keys
from tests.dashboard.conftest import APP, APP_TIMEOUT, no_exception, texts

PRICED = "claude-sonnet-4-5"


def open_dumps(language: str = "en") -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT)
    at.query_params["lang"] = language
    at.run()
    return at.switch_page("views/dumps.py").run()


def listed_paths(at: AppTest, base: Path) -> list[Path]:
    listing = at.dataframe[0].value
    return [
        base / name if where == "(this folder)" else base / where / name
        for where, name in zip(listing["folder"], listing["file"], strict=True)
    ]


def money(value: float, price: Price | None) -> str:
    """How the page writes a cost: dollars to four places, else whole tokens."""
    return f"${value:,.4f}" if price is not None else f"{round(value):,} tokens"


def expected(paths: list[Path], price: Price | None) -> list[DumpCost]:
    return [dump_cost(read_dump(path), price, "cl100k_base") for path in paths]


def assert_listing_is_the_librarys(at: AppTest, costs: list[DumpCost], price: Price | None) -> None:
    listing = at.dataframe[0].value
    assert listing["call_input"].tolist() == [c.call.input_tokens for c in costs]
    assert listing["call_output"].tolist() == [c.call.output_tokens for c in costs]
    assert listing["usage"].tolist() == [c.call.source for c in costs]
    assert listing["call_cost"].tolist() == [c.call_cost for c in costs]
    assert listing["saving_per_call"].tolist() == [c.saving_per_call for c in costs]
    assert listing["payback"].tolist() == [
        f"after {c.payback_calls} calls" if c.payback_calls != 1 else "after 1 call" for c in costs
    ]
    total = total_cost(costs, "usd" if price is not None else "tokens")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics[f"Compaction calls, {len(costs)} dumps shown"] == money(total.call_cost, price)
    assert metrics["Saved per later call (uncached), together"] == money(total.saving_per_call, price)


def assert_detail_is_the_librarys(at: AppTest, price: Price | None) -> None:
    shown = Path(str(at.selectbox(key=keys.W_DUMP_PICK).value))
    cost = dump_cost(read_dump(shown), price, "cl100k_base")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Compaction call"] == money(cost.call_cost, price)
    assert metrics["Saved per later call (uncached)"] == money(cost.saving_per_call, price)
    assert metrics["Pays back"] == f"after {cost.payback_calls} calls"


class TestOpenJiuwenDumps:
    def test_in_tokens_until_a_price_is_picked(self, dump_root: Path) -> None:
        at = open_dumps()
        no_exception(at)
        paths = listed_paths(at, dump_root)
        costs = expected(paths, None)
        # compact015: 41 messages sent (18,459 tokens counted), an 11-token reply, 16,878 → 16,621 tokens
        assert (costs[-1].call.input_tokens, costs[-1].call.output_tokens) == (18_459, 11)
        assert costs[-1].payback_calls == 72  # ceil(18,470 / 257)
        assert_listing_is_the_librarys(at, costs, None)
        assert_detail_is_the_librarys(at, None)
        assert "Tokens: 0 reported, 3 counted." in texts(at)
        assert "The compaction call's tokens are counted with cl100k_base (tiktoken)" in texts(at)

    def test_priced_with_the_row_picked(self, dump_root: Path) -> None:
        at = open_dumps()
        at.selectbox(key=keys.page_widget("dumps", "price")).set_value(PRICED).run()
        no_exception(at)
        price = find_price(PRICED)
        costs = expected(listed_paths(at, dump_root), price)
        assert costs[-1].payback_calls == 90  # ceil($0.06938625 / $0.000771)
        assert_listing_is_the_librarys(at, costs, price)
        assert_detail_is_the_librarys(at, price)
        assert any(c.value.startswith(f"Priced as {PRICED}") for c in at.caption)

    def test_a_dump_that_reports_its_usage_is_priced_from_it(self, dump_root: Path) -> None:
        dump = next((dump_root / "openjiuwen-dumps" / "compact015").glob("*.json"))
        record = json.loads(dump.read_text())
        record["compression_response"]["usage"] = {"prompt_tokens": 20_000, "completion_tokens": 40}
        dump.write_text(json.dumps(record))
        at = open_dumps()
        no_exception(at)
        listing = at.dataframe[0].value
        row = listing[listing["context"] == "compact015"].iloc[0]
        assert (row["call_input"], row["call_output"], row["usage"]) == (20_000, 40, "reported")
        assert row["call_cost"] == 20_040 and row["payback"] == "after 78 calls"  # ceil(20,040 / 257)
        assert "Tokens: 1 reported, 2 counted." in texts(at)
        assert "The compaction call's tokens are the usage the dump reports." in texts(at)

    def test_the_dump_in_detail_says_its_calls_retries_backoff_and_time(self, dump_root: Path) -> None:
        at = open_dumps()
        no_exception(at)
        shown = Path(str(at.selectbox(key=keys.W_DUMP_PICK).value))
        assert shown.parent.name == "compact015"  # the newest: one transient retry in its debug log
        timing = dump_timing(read_dump(shown))
        assert timing is not None and timing.seconds is not None
        metrics = {m.label: m.value for m in at.metric}
        assert (metrics["Model calls"], metrics["Retries"], metrics["Backoff waited"]) == (
            "2 calls",
            "1",
            "0.05 s",
        )
        assert metrics["Took"] == f"{timing.seconds:,.2f} s"
        assert "From the debug log beside the dump: one call per attempt" in texts(at)

    def test_the_listing_says_how_long_each_compaction_took(self, dump_root: Path) -> None:
        at = open_dumps()
        paths = listed_paths(at, dump_root)
        shown = at.dataframe[0].value["took"].tolist()
        assert shown == [read_dump(path).summary.seconds for path in paths]
        assert all(value is not None and 0 < value < 1 for value in shown)

    def test_in_chinese(self, dump_root: Path) -> None:
        at = open_dumps("zh")
        no_exception(at)
        listing = at.dataframe[0].value
        assert set(listing["usage"]) == {"计数"}
        assert "token：0 个上报，3 个计数。" in texts(at)


class TestDemoDumps:
    def test_the_demo_dumps(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
        demo = roots.PROJECT_DIR / "dumps" / dump_state.DEMO_DUMP_FOLDER
        at = open_dumps()
        no_exception(at)
        paths = listed_paths(at, demo)
        assert sorted(paths) == sorted(demo.glob("*.json"))
        costs = expected(paths, None)
        # our dumps record what they sent: the counted request is the request_tokens of their one call
        assert [c.call.input_tokens for c in costs] == [
            json.loads(path.read_text())["compaction_lab"]["calls"][0]["request_tokens"] for path in paths
        ]
        assert_listing_is_the_librarys(at, costs, None)
        assert_detail_is_the_librarys(at, None)
        at.selectbox(key=keys.page_widget("dumps", "price")).set_value(PRICED).run()
        price = find_price(PRICED)
        assert_listing_is_the_librarys(at, expected(paths, price), price)
        assert_detail_is_the_librarys(at, price)


class TestManyDumps:
    def test_past_the_limit_the_total_waits_for_a_click(
        self, dump_root: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from dashboard import dump_cost_view

        monkeypatch.setattr(dump_cost_view, "TOTAL_AT_ONCE", 2)  # 3 dumps shown: one more than at once
        at = open_dumps()
        no_exception(at)
        assert not any(m.label.startswith("Compaction calls,") for m in at.metric)
        at.button(key=keys.page_widget("dumps", "price_all")).click().run()
        no_exception(at)
        costs = expected(listed_paths(at, dump_root), None)
        assert_listing_is_the_librarys(at, costs, None)
