"""Text that Streamlit would read as markdown is escaped so it shows exactly as written."""

from __future__ import annotations

import re

import pytest

from dashboard.components import plain


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


class TestPlain:
    @pytest.mark.parametrize(
        "text",
        [
            "<script>alert(1)</script>",
            "**bold** _it_ `code` [link](http://x) ![img](y)",
            ":red[alarm] :material/home: $x^2$ ~strike~ # heading",
            "1. not a list",
            "a | b | c",
            "中文 <b>粗体</b>",
        ],
    )
    def test_shows_the_text_as_written(self, text: str) -> None:
        escaped = plain(text)
        assert unescape(escaped) == text
        for char in "<>*_`[]():$#|~":
            assert re.search(r"(?<!\\)" + re.escape(char), escaped) is None

    def test_collapses_to_one_line(self) -> None:
        assert plain("a\n\n  b\tc") == "a b c"

    def test_leaves_ordinary_numbers_readable(self) -> None:
        assert plain("13,553 tokens, 72.8% saved") == "13,553 tokens, 72.8% saved"


class TestHeaderConfig:
    def test_headers_are_translated_even_with_a_column_config(self) -> None:
        import streamlit as st

        from dashboard.components import header_config

        labels = {"preview": "预览", "role": "角色"}
        given = {"preview": st.column_config.TextColumn(width="large")}
        config = header_config(["role", "preview", "other"], given, labels)
        assert config["preview"]["label"] == "预览" and config["preview"]["width"] == "large"
        assert config["role"]["label"] == "角色" and "other" not in config

    def test_a_label_of_its_own_wins(self) -> None:
        import streamlit as st

        from dashboard.components import header_config

        config = header_config(["role"], {"role": st.column_config.TextColumn("Who")}, {"role": "角色"})
        assert config["role"]["label"] == "Who"


class TestTableConfig:
    def test_whole_numbers_get_thousands_separators_and_their_header(self) -> None:
        import pandas as pd

        from dashboard.components import table_config

        frame = pd.DataFrame({"tokens": [13_320], "role": ["user"], "last_user": [True], "ratio": [0.5]})
        config = table_config(frame, None, {"tokens": "Tokens", "role": "Role"})
        assert config["tokens"]["type_config"]["format"] == "localized"
        assert config["tokens"]["label"] == "Tokens"
        assert config["role"] == {"label": "Role"}  # text, a flag and a share keep their own formats
        assert "last_user" not in config and "ratio" not in config

    def test_a_format_the_page_gives_wins(self) -> None:
        import pandas as pd
        import streamlit as st

        from dashboard.components import table_config

        given = {"tokens": st.column_config.NumberColumn(format="compact")}
        config = table_config(pd.DataFrame({"tokens": [13_320]}), given, {})
        assert config["tokens"]["type_config"]["format"] == "compact"


def draw_stats() -> None:
    from dashboard.components import stats
    from dashboard.i18n import Stat

    stats(
        [
            Stat(label="a", value="1"),
            Stat(label="b", value="2", delta="-3", help="**not bold** x_y_z"),
            Stat(label="c", value="3"),
        ]
    )


class TestStats:
    def test_each_number_is_one_metric_in_a_row_that_wraps(self) -> None:
        from tests.dashboard.conftest import run_script

        at = run_script(draw_stats)
        assert [(m.label, m.value) for m in at.metric] == [("a", "1"), ("b", "2"), ("c", "3")]
        assert at.metric[1].proto.delta == "-3"
        assert len(at.columns) == 0  # one horizontal container, not columns: cards wrap instead of shrinking
        assert at.metric[1].proto.help == "**not bold** x_y_z"  # help is markdown (formulas are set as code)
