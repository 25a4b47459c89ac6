"""The price table: every bundled row sourced and dated, names matched as a run logs them, a user's file over it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from compressor.cost import Price, bundled_prices, find_price, price_table, read_prices
from compressor.errors import ConfigError

VENDOR_PAGES: dict[str, tuple[str, ...]] = {
    "openai": ("https://platform.openai.com/",),
    # Anthropic's docs moved to platform.claude.com; rows read before the move cite the old address
    "anthropic": ("https://docs.anthropic.com/", "https://platform.claude.com/"),
    "google": ("https://ai.google.dev/",),
    "deepseek": ("https://api-docs.deepseek.com/",),
    "qwen": ("https://www.alibabacloud.com/",),
    "moonshot": ("https://platform.moonshot.ai/",),
}


class TestBundledTable:
    def test_every_vendor_the_issue_names_is_there(self) -> None:
        assert {row.provider for row in bundled_prices().values()} == set(VENDOR_PAGES)

    @pytest.mark.parametrize("name", sorted(bundled_prices()))
    def test_each_row_cites_its_vendor_page_and_date(self, name: str) -> None:
        row = bundled_prices()[name]
        assert row.source.startswith(VENDOR_PAGES[row.provider])
        assert re.fullmatch(r"20\d\d-\d\d-\d\d", row.date)
        assert row.origin == "bundled"

    @pytest.mark.parametrize("name", sorted(bundled_prices()))
    def test_each_row_is_a_plausible_price(self, name: str) -> None:
        row = bundled_prices()[name]
        assert 0 < row.cached_input <= row.input <= row.cache_write <= 2 * row.input
        assert row.output >= row.input

    def test_codex_max_is_priced_as_openai_lists_it(self) -> None:
        """Before, a gpt-5.1-codex-max run had no price (its tokens read as free)."""
        row = bundled_prices()["gpt-5.1-codex-max"]
        assert (row.input, row.cached_input, row.output) == (1.25, 0.125, 10.0)

    def test_a_write_surcharge_only_where_the_vendor_bills_one(self) -> None:
        surcharged = {row.provider for row in bundled_prices().values() if row.cache_write > row.input}
        assert surcharged == {"anthropic"}


class TestNames:
    @pytest.mark.parametrize(
        ("logged", "row"),
        [
            ("gpt-5", "gpt-5"),
            ("GPT-5", "gpt-5"),
            ("claude-opus-4-5-20251101", "claude-opus-4-5"),
            ("anthropic/claude-sonnet-4-5", "claude-sonnet-4-5"),
            ("claude-sonnet-4-20250514", "claude-sonnet-4"),
            ("gemini-3-pro-preview", "gemini-3-pro-preview"),
            ("openai/gpt-4o-2024-08-06", "gpt-4o"),
            ("qwen3-coder-plus", "qwen3-coder-plus"),
            ("gpt-5.1-codex-max", "gpt-5.1-codex-max"),
            ("openai/gpt-5.3-codex", "gpt-5.3-codex"),
            ("claude-opus-4-6", "claude-opus-4-6"),
            ("anthropic/claude-sonnet-4-6", "claude-sonnet-4-6"),
            ("gemini-3-flash-preview", "gemini-3-flash-preview"),
            ("models/gemini-3-flash-preview", "gemini-3-flash-preview"),
            ("google/gemini-3-pro-preview", "gemini-3-pro-preview"),
        ],
    )
    def test_a_logged_name_finds_its_row(self, logged: str, row: str) -> None:
        found = find_price(logged)
        assert found is not None and found.model == row

    @pytest.mark.parametrize("logged", [None, "", "openai/openrouter-llama-4-maverick", "my-local-model"])
    def test_an_unknown_model_has_no_price(self, logged: str | None) -> None:
        assert find_price(logged) is None


class TestPrice:
    def test_usd_of_cached_written_and_output_tokens(self) -> None:
        price = Price(model="m", input=3.0, cached_input=0.3, cache_write=3.75, output=15.0)
        # 1M cached at $0.30, 2M written at $3.75, 0.1M out at $15
        assert price.usd(cached=1_000_000, written=2_000_000, output=100_000) == pytest.approx(
            0.3 + 7.5 + 1.5
        )

    def test_to_dict_names_its_source(self) -> None:
        row = bundled_prices()["gpt-5"].to_dict()
        assert {"input", "cached_input", "cache_write", "output", "source", "date", "origin"} <= set(row)


class TestUserFile:
    def write(self, tmp_path: Path, models: object) -> Path:
        path = tmp_path / "prices.json"
        path.write_text(json.dumps({"models": models}), encoding="utf-8")
        return path

    def test_rows_replace_and_extend_the_bundled_ones(self, tmp_path: Path) -> None:
        path = self.write(
            tmp_path,
            {
                "gpt-5": {"input": 1.0, "cached_input": 0.1, "output": 8.0, "date": "2026-12-01"},
                "our-model": {"input": 0.5, "output": 1.0},
            },
        )
        table = price_table(path)
        assert table["gpt-5"].input == 1.0 and table["gpt-5"].origin == str(path)
        assert table["gpt-5"].cache_write == 1.0  # no write price given: the input price
        ours = table["our-model"]
        assert (ours.cached_input, ours.cache_write, ours.source) == (0.5, 0.5, str(path))
        assert table["claude-opus-4-5"] == bundled_prices()["claude-opus-4-5"]
        assert find_price("our-model-20260101", table) == ours

    @pytest.mark.parametrize(
        ("models", "needle"),
        [
            ({"m": {"input": -1, "output": 1}}, "models.m.input"),
            ({"m": {"input": 1}}, "models.m.output"),
            ({"m": {"input": 1, "output": 1, "cached_input": 2}}, "cached_input costs more"),
            ({"m": {"input": 1, "output": 1, "colour": "red"}}, "models.m.colour"),
        ],
    )
    def test_a_bad_row_is_one_line_naming_file_and_field(
        self, tmp_path: Path, models: object, needle: str
    ) -> None:
        path = self.write(tmp_path, models)
        with pytest.raises(ConfigError, match=re.escape(needle)) as caught:
            read_prices(path)
        assert str(path) in str(caught.value) and "\n" not in str(caught.value)

    def test_not_a_table(self, tmp_path: Path) -> None:
        path = tmp_path / "prices.json"
        path.write_text("[1, 2]", encoding="utf-8")
        with pytest.raises(ConfigError, match="models"):
            read_prices(path)
        path.write_text("{", encoding="utf-8")
        with pytest.raises(ConfigError, match="not JSON"):
            read_prices(path)

    def test_a_missing_file(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigError, match="--prices: cannot read"):
            read_prices(tmp_path / "nope.json")
