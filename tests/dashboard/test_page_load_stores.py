"""The Load page opens a session store kept as a folder (OpenCode's ``storage/``), from the session picker and
from the folder browser, with every session it holds; a bad store gives one line and changes nothing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from compressor.formats import load_conversations
from dashboard.state import keys
from tests.compressor.formats.test_opencode import STORAGE
from tests.dashboard.conftest import APP, no_exception, unescaped


def held(at: AppTest) -> dict[str, object]:
    """The session's loaded conversations, by key."""
    found: dict[str, object] = at.session_state[keys.K_ITEMS]
    return found


def store_items(at: AppTest) -> list[object]:
    return [item for key, item in held(at).items() if key.startswith("store:")]


def tree_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def page_with_root(root: Path, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    monkeypatch.setenv("COMPACTION_LAB_ROOTS", str(root))
    at = AppTest.from_file(str(APP), default_timeout=30).run()
    return at.switch_page("views/load.py").run()


def browse_into(at: AppTest, folder: str) -> AppTest:
    """Pick ``folder`` (a sub-folder of the root) in the Load page's folder browser."""
    entries = at.selectbox(key=keys.browse_widget("load", "entry:0:"))
    labels = list(entries.options)
    entries.set_value(labels.index(f"📁 {folder}/")).run()
    return at


class TestSessionPicker:
    def test_the_opencode_store_is_offered_and_opens_with_every_session(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        home = tmp_path / "home"
        shutil.copytree(STORAGE, home / ".local" / "share" / "opencode" / "storage")
        for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HOME", str(home))
        at = page_with_root(home, monkeypatch)
        no_exception(at)
        offered = at.selectbox(key=keys.page_widget("load", "session")).options
        assert len(offered) == 1 and offered[0].startswith("opencode")
        assert ".local/share/opencode/storage" in offered[0]
        at.button(key=keys.page_widget("load", "open_session")).click().run()
        no_exception(at)
        expected = load_conversations(STORAGE)
        loaded = store_items(at)
        assert len(expected) == 2
        assert [item.conversation.messages for item in loaded] == [c.messages for c in expected]  # type: ignore[attr-defined]
        assert all(item.origin == "store" and not item.followable for item in loaded)  # type: ignore[attr-defined]
        assert list(at.dataframe[0].value["origin"])[1:] == ["a session store on the server"] * 2
        assert any("2 conversations, format opencode" in unescaped(s.value) for s in at.success)


class TestFolderBrowser:
    def test_a_store_folder_gets_an_open_button_and_a_plain_folder_does_not(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        root = tmp_path / "root"
        shutil.copytree(STORAGE, root / "storage")
        (root / "plain").mkdir()
        (root / "plain" / "notes.txt").write_text("not a session")
        at = page_with_root(root, monkeypatch)
        browse_into(at, "plain")
        assert not [b for b in at.button if b.key == keys.page_widget("load", "open_store")]
        browse_into(at, "storage")
        button = at.button(key=keys.page_widget("load", "open_store"))
        assert "storage" in button.label
        button.click().run()
        no_exception(at)
        assert [item.conversation.name for item in store_items(at)] == [  # type: ignore[attr-defined]
            c.name for c in load_conversations(STORAGE)
        ]

    def test_a_link_leaving_the_store_is_one_line_and_nothing_changes(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        root, outside = tmp_path / "root", tmp_path / "outside"
        store = root / "storage"
        shutil.copytree(STORAGE, store)
        outside.mkdir()
        (outside / "secret.json").write_text('{"id": "msg_x", "role": "user"}')
        messages = sorted((store / "message").iterdir())[0]
        os.symlink(outside / "secret.json", messages / "msg_zzz.json")
        before = tree_of(store)
        at = page_with_root(root, monkeypatch)
        browse_into(at, "storage")
        at.button(key=keys.page_widget("load", "open_store")).click().run()
        no_exception(at)
        errors = [unescaped(e.value) for e in at.error]
        assert len(errors) == 1 and "\n" not in errors[0]
        assert (
            errors[0].startswith("storage")
            and "msg_zzz.json" in errors[0]
            and "leaves the folder" in errors[0]
        )
        assert not store_items(at)
        assert tree_of(store) == before

    def test_a_broken_file_in_the_store_names_it(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        root = tmp_path / "root"
        store = root / "storage"
        shutil.copytree(STORAGE, store)
        broken = sorted((store / "session").rglob("*.json"))[0]
        broken.write_text('{"id": ')
        at = page_with_root(root, monkeypatch)
        browse_into(at, "storage")
        at.button(key=keys.page_widget("load", "open_store")).click().run()
        no_exception(at)
        errors = [unescaped(e.value) for e in at.error]
        assert len(errors) == 1 and broken.name in errors[0] and "not valid JSON" in errors[0]


class TestUploadedDatabase:
    def test_an_uploaded_opencode_db_opens_every_session(self, tmp_path: Path) -> None:
        from tests.compressor.formats.test_opencode import migrate

        database = migrate(STORAGE, tmp_path / "opencode.db")
        at = AppTest.from_file(str(APP), default_timeout=30).run()
        at.switch_page("views/load.py").run()
        assert {".db", ".sqlite", ".sqlite3"} <= set(
            at.file_uploader(key=keys.W_UPLOAD).proto.type
        )  # the browser offers it
        at.file_uploader(key=keys.W_UPLOAD).set_value(
            [("opencode.db", database.read_bytes(), "application/octet-stream")]
        )
        at.run()
        no_exception(at)
        assert any("opencode.db: 2 conversations, format opencode" in unescaped(s.value) for s in at.success)

    def test_a_database_inside_a_zip_is_read_from_its_bytes(self, tmp_path: Path) -> None:
        import io
        import zipfile

        from dashboard.sources import parse_upload
        from tests.compressor.formats.test_opencode import migrate

        archive = io.BytesIO()
        with zipfile.ZipFile(archive, "w") as packed:
            packed.writestr("backup/opencode.db", migrate(STORAGE, tmp_path / "opencode.db").read_bytes())
        (outcome,) = parse_upload("sessions.zip", archive.getvalue())
        assert outcome.file == "sessions.zip/backup/opencode.db" and len(outcome.conversations) == 2


class TestDatabaseOnTheServer:
    def test_a_running_agents_database_opens_by_its_path_with_the_rows_only_its_log_holds(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Goose's sessions.db from the session picker: read by its path (its bytes alone would miss the -wal, and a
        database may be far bigger than what the page may read into memory), whole, never followed."""
        import json
        import sqlite3

        from tests.compressor.formats.test_goose import database

        home = tmp_path / "home"
        folder = home / ".local" / "share" / "goose" / "sessions"
        folder.mkdir(parents=True)
        path = database(folder / "sessions.db")
        for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "CONTINUE_GLOBAL_DIR"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("HOME", str(home))
        writer = sqlite3.connect(path)  # Goose still running: its newest row is only in sessions.db-wal
        try:
            writer.execute(
                "INSERT INTO messages (session_id, role, content_json, created_timestamp) VALUES (?, ?, ?, 0)",
                ("20250919_1", "user", json.dumps([{"type": "text", "text": "And close the old one."}])),
            )
            writer.commit()
            before = path.read_bytes()
            at = page_with_root(home, monkeypatch)
            offered = list(at.selectbox(key=keys.page_widget("load", "session")).options)
            assert len(offered) == 1 and "sessions.db" in offered[0], offered
            at.button(key=keys.page_widget("load", "open_session")).click().run()
            no_exception(at)
            loaded = store_items(at)
            assert path.read_bytes() == before
        finally:
            writer.close()
        assert len(loaded) == 2
        assert all(item.origin == "store" and not item.followable for item in loaded)  # type: ignore[attr-defined]
        newest = loaded[1].conversation.messages[-1]  # type: ignore[attr-defined]
        assert newest.text == "And close the old one." and newest.is_real_user

    def test_the_folder_browser_offers_a_database_and_opens_it_by_its_path(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from tests.compressor.formats.test_goose import database

        root = tmp_path / "root"
        root.mkdir()
        path = database(root / "state.vscdb")  # any SQLite store, whatever its suffix says
        before = path.read_bytes()
        at = page_with_root(root, monkeypatch)
        entries = at.selectbox(key=keys.browse_widget("load", "entry:0:"))
        assert [option.split(" · ")[0] for option in entries.options] == ["📄 state.vscdb"]
        at.button(key=keys.page_widget("load", "open_file")).click().run()
        no_exception(at)
        assert [item.conversation.name for item in store_items(at)] == [  # type: ignore[attr-defined]
            c.name for c in load_conversations(path)
        ]
        assert path.read_bytes() == before and sorted(p.name for p in root.iterdir()) == ["state.vscdb"]

    def test_opening_a_database_by_its_path_reads_its_header_once(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from compressor.formats import stores
        from tests.compressor.formats.test_goose import database

        root = tmp_path / "root"
        root.mkdir()
        path = database(root / "sessions.db")
        names = [c.name for c in load_conversations(path)]
        at = page_with_root(root, monkeypatch)
        reads: list[Path] = []
        header = stores._starts_with_header

        def counted(where: Path) -> bool:
            reads.append(Path(where))
            return header(where)

        monkeypatch.setattr(stores, "_starts_with_header", counted)
        at.button(key=keys.page_widget("load", "open_file")).click().run()
        no_exception(at)
        assert [item.conversation.name for item in store_items(at)] == names  # type: ignore[attr-defined]
        # once, where the page opens it: not again by the loader, nor to name where the runs came from
        assert [p.resolve() for p in reads] == [path.resolve()]
