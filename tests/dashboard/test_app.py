"""The entry script: its pages, their addresses, and the folder layout Streamlit depends on."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from dashboard import app as entry
from dashboard import roots
from tests.dashboard.conftest import no_exception

ALL_PAGES = (*entry.CONVERSATION_PAGES, *entry.RUN_PAGES)


class TestPages:
    def test_the_four_pages_exist_and_tune_and_demo_wait_for_their_files(self) -> None:
        present = [spec[0] for spec in entry.available(ALL_PAGES)]
        assert present[:4] == ["views/load.py", "views/span.py", "views/compact.py", "views/dumps.py"]
        for spec in ALL_PAGES[4:]:
            assert (spec[0] in present) == (roots.PROJECT_DIR / "dashboard" / spec[0]).is_file()

    def test_addresses_are_unique(self) -> None:
        paths = [spec[2] for spec in ALL_PAGES]
        assert len(set(paths)) == len(paths)

    def test_there_is_no_pages_folder_beside_the_entry_script(self) -> None:
        # Streamlit would treat it as a legacy multipage app: widget ids change after a fresh server's
        # first run (the sidebar loses its values) and AppTest loses them after every rerun.
        assert not (entry.APP_DIR / "pages").exists(), (
            "put page files in dashboard/views/, not dashboard/pages/"
        )

    def test_every_page_opens(self, app: AppTest) -> None:
        for file, *_ in entry.available(ALL_PAGES):
            app.switch_page(file).run()
            no_exception(app)
            assert app.title, file
