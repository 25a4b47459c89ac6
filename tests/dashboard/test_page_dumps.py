"""The Dump review page: a dump folder under the roots or uploaded dumps, as a table, charts and details."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard import roots
from dashboard.state import dumps as dump_state
from dashboard.state import keys
from tests.dashboard.conftest import APP, APP_TIMEOUT, OPENJIUWEN_DUMPS, no_exception, texts, unescaped

COMPACT015 = "1796020259974_CurrentRoundCompressor_default_session_id.json"


def open_dumps() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    return at.switch_page("views/dumps.py").run()


def count_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if c.value.endswith(" dumps"))


class TestDemoSession:
    def test_opens_on_the_demo_dumps_the_project_ships(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
        demo = roots.PROJECT_DIR / "dumps" / dump_state.DEMO_DUMP_FOLDER
        shipped = sorted(demo.glob("*.json"))
        assert shipped, f"the demo dump session is missing from {demo}"
        at = open_dumps()
        no_exception(at)
        assert "Folder: dumps/demo" in texts(at)
        assert count_caption(at) == f"{len(shipped)} of {len(shipped)} dumps"


class TestFolder:
    def test_table_charts_and_numbers(self, dump_root: Path) -> None:
        at = open_dumps()
        no_exception(at)
        assert count_caption(at) == "3 of 3 dumps"
        table = at.dataframe[0].value
        assert sorted(table["context"]) == ["compact000", "compact001", "compact015"]
        assert "path" not in table.columns
        assert len(at.get("plotly_chart")) >= 3
        metrics = {m.label: m.value for m in at.metric}
        assert metrics == {
            "Context tokens before": "16,878",
            "Context tokens after": "16,621",
            "Saved": "1.5%",
            "context_max": "2,000",
            "Prefix / compress / tail": "34 / 5 / 0",
        }

    def test_filters_narrow_the_table(self, dump_root: Path) -> None:
        at = open_dumps()
        at.slider(key=keys.page_widget("dumps", "min_ratio")).set_value(0.2).run()
        assert count_caption(at) == "1 of 3 dumps"
        assert at.dataframe[0].value["context"].tolist() == ["compact001"]
        at.slider(key=keys.page_widget("dumps", "min_ratio")).set_value(0.0).run()
        at.checkbox(key=keys.page_widget("dumps", "retried")).check().run()
        assert at.dataframe[0].value["context"].tolist() == ["compact015"]

    def test_one_dump_in_detail(self, dump_root: Path) -> None:
        at = open_dumps()
        assert Path(str(at.selectbox(key=keys.W_DUMP_PICK).value)).name == COMPACT015
        page = texts(at)
        assert "Before: 39 messages (rebuilt from the dump)" in page
        assert "After: 36 messages" in page
        assert "session default_session_id · context compact015 · backend openJiuwen (not recorded)" in page
        assert any(
            code.value.startswith("## NON-NEGOTIABLE OUTPUT RULES") for code in at.code
        )  # openJiuwen's prompt
        debug = [frame.value for frame in at.dataframe if "event" in frame.value.columns]
        assert debug and "compression_retry" in set(debug[0]["event"])

    def test_a_secret_in_a_dumps_summary_is_flagged_masked(self, dump_root: Path) -> None:
        token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
        dump = next((dump_root / "openjiuwen-dumps" / "compact015").glob("*.json"))
        record = json.loads(dump.read_text())
        record["compression_response"]["extracted_summary"] += f"\nThe push used {token}."
        dump.write_text(json.dumps(record))
        at = open_dumps()
        warnings = " ".join(w.value for w in at.warning)
        assert "GitHub token" in warnings or "GitHub token" in texts(at)
        shown = texts(at).replace(record["compression_response"]["extracted_summary"], "")
        assert token not in shown and token not in warnings

    def test_rerun_with_the_recorded_reply_and_the_dumps_capacity(self, dump_root: Path) -> None:
        at = open_dumps()
        at.button(key=keys.page_widget("dumps", "use_cmax")).click().run()
        assert at.number_input(key=keys.W_CONTEXT_MAX).value == 2000
        assert at.query_params["context_max"] == "2000"
        at.button(key=keys.page_widget("dumps", "rerun")).click().run()
        no_exception(at)
        headline = next(unescaped(s.value) for s in at.success)
        assert headline.startswith("Compacted 5 messages: 16,878 → ")
        assert "The recorded compaction went from 16,878 to 16,621 tokens." in texts(at)

    def test_a_file_that_is_not_a_dump_is_listed_as_broken(self, dump_root: Path) -> None:
        (dump_root / "notes.json").write_text(json.dumps({"hello": "world"}))
        at = open_dumps()
        no_exception(at)
        assert count_caption(at) == "3 of 3 dumps"
        assert any(e.label == "1 file(s) could not be read as dumps" for e in at.expander)

    def test_an_empty_folder_says_what_to_do(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv(roots.ROOTS_ENV, str(tmp_path))
        at = open_dumps()
        no_exception(at)
        assert any(i.value.startswith("No dumps here yet.") for i in at.info)
        assert any("compaction-lab compact" in code.value for code in at.code)

    def test_two_thousand_dumps_are_paged(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        source = next((OPENJIUWEN_DUMPS / "compact000").glob("*.json"))
        data = json.loads(source.read_text())
        for message in [
            *data["compression_request"]["messages_sent_to_model"],
            *data["context_after"]["messages"],
        ]:
            message["content"] = str(message.get("content") or "")[
                :40
            ]  # small files: 2,000 of them are written
        for number in range(2000):
            data["timestamp"] = 1_796_020_000.0 + number
            data["context_id"] = f"run{number:04d}"
            (tmp_path / f"{1796020000000 + number}_CurrentRoundCompressor_s.json").write_text(
                json.dumps(data)
            )
        monkeypatch.setenv(roots.ROOTS_ENV, str(tmp_path))
        at = open_dumps()
        no_exception(at)
        assert count_caption(at) == "2000 of 2000 dumps"
        assert at.number_input(key=keys.page_widget("dumps", "page")).max == 40
        assert at.dataframe[0].value["context"].tolist()[:2] == ["run1999", "run1998"]
        parsed = dump_state.dump_index_cache().files_read
        at.number_input(key=keys.page_widget("dumps", "page")).set_value(40).run()
        assert at.dataframe[0].value["context"].tolist()[-1] == "run0000"
        assert dump_state.dump_index_cache().files_read == parsed  # the rerun parsed no file again


class TestUpload:
    def test_uploaded_dumps_are_reviewed_with_their_debug_log(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
        at = open_dumps()
        at.radio(key=keys.W_DUMP_SOURCE).set_value("upload").run()
        folder = OPENJIUWEN_DUMPS / "compact015"
        files = [(path.name, path.read_bytes(), "application/json") for path in sorted(folder.iterdir())]
        at.file_uploader(key=keys.W_DUMP_UPLOAD).set_value(files).run()
        no_exception(at)
        assert count_caption(at) == "1 of 1 dumps"
        assert at.dataframe[0].value["retries"].tolist() == [1]

    def test_a_dump_folder_under_the_roots_can_be_chosen(self, dump_root: Path) -> None:
        at = open_dumps()
        at.button(key=keys.browse_widget("dumps", "open")).click().run()  # into openjiuwen-dumps/
        at.selectbox(key=keys.browse_widget("dumps", "entry:0:openjiuwen-dumps")).set_value(1).run()
        at.button(key=keys.page_widget("dumps", "use_folder")).click().run()
        no_exception(at)
        assert "Folder: " + roots.root_label(dump_root) + "openjiuwen-dumps/compact001" in texts(at)
        assert count_caption(at) == "1 of 1 dumps"
