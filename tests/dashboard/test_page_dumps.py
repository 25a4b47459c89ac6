"""The Dump review page: a dump folder under the roots or uploaded dumps, as a table, charts and details."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from compressor.dumps import read_dump
from dashboard import roots
from dashboard.state import dumps as dump_state
from dashboard.state import keys
from tests.dashboard.conftest import APP, APP_TIMEOUT, OPENJIUWEN_DUMPS, no_exception, texts, unescaped

COMPACT015 = "1796020259974_CurrentRoundCompressor_default_session_id.json"
DUMP_STATS = (
    "Context messages before",
    "Context messages after",
    "Saved",
    "Capacity",
    "Prefix / compress / tail",
)


def open_dumps() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=APP_TIMEOUT).run()
    return at.switch_page("views/dumps.py").run()


def dump_paths(at: AppTest) -> list[str]:
    return [str(option) for option in at.selectbox(key=keys.W_DUMP_PICK).proto.options]


def count_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if " shown, in " in c.value)


class TestDemoSession:
    def test_opens_on_the_demo_dumps_the_project_ships(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
        demo = roots.PROJECT_DIR / "dumps" / dump_state.DEMO_DUMP_FOLDER
        shipped = sorted(demo.glob("*.json"))
        assert shipped, f"the demo dump session is missing from {demo}"
        at = open_dumps()
        no_exception(at)
        assert "Reviewing every dump below dumps/demo" in texts(at)
        assert count_caption(at) == f"{len(shipped)} of {len(shipped)} dumps shown, in 1 folder"


class TestFolder:
    def test_table_charts_and_numbers(self, dump_root: Path) -> None:
        at = open_dumps()
        no_exception(at)
        assert count_caption(at) == "3 of 3 dumps shown, in 3 folders"
        table = at.dataframe[0].value
        assert table["context"].tolist() == ["compact000", "compact001", "compact015"]  # grouped by folder
        assert table["folder"].tolist() == [
            "openjiuwen-dumps/compact000",
            "openjiuwen-dumps/compact001",
            "openjiuwen-dumps/compact015",
        ]
        assert "path" not in table.columns and "None" not in table.astype(str).to_numpy().ravel().tolist()
        assert len(at.get("plotly_chart")) >= 3
        metrics = {m.label: m.value for m in at.metric}  # the newest dump, compact015, in detail
        # its cost cards (and the folder's) are checked against the library in test_page_dump_costs.py
        assert {label: metrics[label] for label in metrics if label in DUMP_STATS} == {
            "Context messages before": "16,878",
            "Context messages after": "16,621",
            "Saved": "1.5%",
            "Capacity": "2,000",
            "Prefix / compress / tail": "34 / 5 / 0",
        }
        assert "drawn in the order they were written" in texts(at)  # written 0.2 s apart: by sequence

    def test_filters_narrow_the_table(self, dump_root: Path) -> None:
        at = open_dumps()
        at.slider(key=keys.page_widget("dumps", "min_ratio")).set_value(0.2).run()
        assert count_caption(at) == "1 of 3 dumps shown, in 3 folders"
        assert at.dataframe[0].value["context"].tolist() == ["compact001"]
        at.slider(key=keys.page_widget("dumps", "min_ratio")).set_value(0.0).run()
        at.checkbox(key=keys.page_widget("dumps", "retried")).check().run()
        assert at.dataframe[0].value["context"].tolist() == ["compact015"]

    def test_one_dump_in_detail(self, dump_root: Path) -> None:
        at = open_dumps()
        assert Path(str(at.selectbox(key=keys.W_DUMP_PICK).value)).name == COMPACT015
        page = texts(at)
        assert "Before: 39 messages (rebuilt from the dump)" in page
        assert (
            "3 records of this dump's run, from openjiuwen-dumps/compact015/CurrentRoundCompressor.jsonl."
            in page
        )
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

    def test_the_first_rerun_reproduces_the_recorded_split(self, dump_root: Path) -> None:
        at = open_dumps()
        assert at.number_input(key=keys.W_CONTEXT_MAX).value == 16_000  # the sidebar is not the dump's
        at.button(key=keys.page_widget("dumps", "rerun_recorded")).click().run()
        no_exception(at)
        assert "The split is the recorded one: prefix / compress / tail 34 / 5 / 0." in [
            unescaped(s.value) for s in at.success
        ]
        headline = next(unescaped(s.value) for s in at.success if s.value.startswith("Compacted"))
        assert headline.startswith("Compacted 5 messages: 16,878 → ")
        assert "The recorded compaction went from 16,878 to 16,621 tokens." in texts(at)
        assert at.number_input(key=keys.W_CONTEXT_MAX).value == 16_000  # and the sidebar is left alone
        badges = [m.value for m in at.markdown if "badge[" in m.value]
        assert any(
            "Re-run now with the dump's own settings: not the recorded compaction" in b for b in badges
        )

    def test_then_the_sidebars_settings_and_putting_the_dumps_in_the_sidebar(self, dump_root: Path) -> None:
        at = open_dumps()
        at.button(key=keys.page_widget("dumps", "use_cmax")).click().run()
        assert at.number_input(key=keys.W_CONTEXT_MAX).value == 2000
        assert at.query_params["context_max"] == "2000"
        at.button(key=keys.page_widget("dumps", "rerun_sidebar")).click().run()
        no_exception(at)
        headline = next(unescaped(s.value) for s in at.success if s.value.startswith("Compacted"))
        assert headline.startswith("Compacted 5 messages: 16,878 → ")
        badges = [m.value for m in at.markdown if "badge[" in m.value]
        assert any("Re-run now with the sidebar's settings: not the recorded compaction" in b for b in badges)

    def test_a_file_that_is_not_a_dump_is_listed_as_broken(self, dump_root: Path) -> None:
        (dump_root / "notes.json").write_text(json.dumps({"hello": "world"}))
        at = open_dumps()
        no_exception(at)
        assert count_caption(at) == "3 of 3 dumps shown, in 3 folders"
        assert any(e.label == "1 file could not be read as dumps" for e in at.expander)

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
        assert count_caption(at) == "2,000 of 2,000 dumps shown, in 1 folder"
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
        assert count_caption(at) == "1 of 1 dump shown, in 1 folder"
        assert at.dataframe[0].value["retries"].tolist() == [1]

    def test_six_loose_files_keep_each_dumps_own_debug_log(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv(roots.ROOTS_ENV, raising=False)
        at = open_dumps()
        at.radio(key=keys.W_DUMP_SOURCE).set_value("upload").run()
        files = [
            (path.name, path.read_bytes(), "application/json")
            for folder in ("compact000", "compact001", "compact015")
            for path in sorted((OPENJIUWEN_DUMPS / folder).iterdir())
        ]
        at.file_uploader(key=keys.W_DUMP_UPLOAD).set_value(files).run()
        no_exception(at)
        assert count_caption(at) == "3 of 3 dumps shown, in 3 folders"
        assert any(
            "3 debug logs are called CurrentRoundCompressor.jsonl" in unescaped(i.value) for i in at.info
        )
        for dump in sorted(OPENJIUWEN_DUMPS.glob("*/*.json")):
            own = read_dump(dump).debug_records
            picker = at.selectbox(key=keys.W_DUMP_PICK)
            choice = next(option for option in picker.options if option.endswith(dump.name))
            picker.set_value(next(p for p in dump_paths(at) if p.endswith(dump.name))).run()
            assert choice
            debug = [frame.value for frame in at.dataframe if "event" in frame.value.columns]
            assert debug and debug[0]["event"].tolist() == [record["event"] for record in own]

    def test_the_root_of_a_tree_lists_every_dump_below_it(self, dump_root: Path) -> None:
        at = open_dumps()
        at.button(key=keys.browse_widget("dumps", "open")).click().run()  # into openjiuwen-dumps/
        at.selectbox(key=keys.browse_widget("dumps", "entry:0:openjiuwen-dumps")).set_value(1).run()
        at.button(key=keys.page_widget("dumps", "use_folder_1")).click().run()  # the chosen sub-folder
        no_exception(at)
        assert "Reviewing every dump below " + roots.root_label(
            dump_root
        ) + "openjiuwen-dumps/compact001" in texts(at)
        assert count_caption(at) == "1 of 1 dump shown, in 1 folder"
        at.button(key=keys.page_widget("dumps", "use_folder_0")).click().run()  # the folder on show
        no_exception(at)
        assert "Reviewing every dump below " + roots.root_label(dump_root) + "openjiuwen-dumps" in texts(at)
        assert count_caption(at) == "3 of 3 dumps shown, in 3 folders"
