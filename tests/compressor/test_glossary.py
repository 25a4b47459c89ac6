"""The glossary: one code per quantity the views show, what each includes and its formula, as plain data."""

from __future__ import annotations

from typing import get_args

from compressor.glossary import GLOSSARY, PartCode, TermCode, term
from compressor.trigger import min_target_for, threshold_for


class TestGlossary:
    def test_every_code_has_one_term(self) -> None:
        assert set(GLOSSARY) == set(get_args(TermCode))
        assert all(code == entry.code for code, entry in GLOSSARY.items())

    def test_every_term_has_a_formula_and_a_sentence(self) -> None:
        for entry in GLOSSARY.values():
            assert entry.formula.strip() and entry.definition.endswith(".")

    def test_what_a_term_includes_are_parts_of_a_window(self) -> None:
        parts = set(get_args(PartCode))
        for entry in GLOSSARY.values():
            assert set(entry.includes) <= parts

    def test_the_window_total_includes_what_the_trigger_reads(self) -> None:
        assert term("window_total").includes == ("system", "tools", "hidden", "prefix", "span", "tail")
        assert term("context_tokens").includes == (
            "prefix",
            "span",
            "tail",
        )  # messages only: no system, no tools

    def test_the_limits_formulas_are_the_triggers_arithmetic(self) -> None:
        assert term("threshold").formula == "max(int(context_max × trigger_context_ratio), 1)"
        assert threshold_for(16_000, 0.8) == max(int(16_000 * 0.8), 1)
        assert term("min_span").formula == "int(context_max × min_target_context_ratio)"
        assert min_target_for(16_000, 0.1) == int(16_000 * 0.1)

    def test_a_term_is_a_value(self) -> None:
        assert term("left").to_dict() == {
            "code": "left",
            "includes": [],
            "formula": "max(context_max − window total, 0) / context_max",
            "definition": "The share of the capacity still free.",
        }
