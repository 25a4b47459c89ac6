"""The dashboard reads the server's files only inside configured roots."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from compressor.dumps.files import UnreadableFile
from dashboard import roots
from dashboard.roots import OutsideRootError, configured_roots, confine, list_folder, parent_of


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "root"
    (base / "sub" / "deeper").mkdir(parents=True)
    (base / "sub" / "a.json").write_text("{}")
    (base / "top.jsonl").write_text("")
    (base / "notes.txt").write_text("")
    (base / ".hidden.json").write_text("{}")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text("{}")
    (base / "escape").symlink_to(outside, target_is_directory=True)
    (base / "escape_file.json").symlink_to(outside / "secret.json")
    (base / "inner_link").symlink_to(base / "sub", target_is_directory=True)
    return base


class TestConfiguredRoots:
    def test_default_is_the_projects_dumps_and_samples(self) -> None:
        assert configured_roots({}) == (roots.PROJECT_DIR / "dumps", roots.SAMPLES_DIR)
        assert configured_roots({roots.ROOTS_ENV: "  "}) == roots.DEFAULT_ROOTS

    def test_env_lists_roots_separated_by_pathsep(self, tmp_path: Path) -> None:
        one, two = tmp_path / "one", tmp_path / "two"
        value = os.pathsep.join([str(one), "", str(two), str(one)])
        assert configured_roots({roots.ROOTS_ENV: value}) == (one, two)

    def test_relative_roots_are_relative_to_the_project(self) -> None:
        assert configured_roots({roots.ROOTS_ENV: "dumps"}) == (roots.PROJECT_DIR / "dumps",)


class TestConfine:
    @pytest.mark.parametrize("relative", ["", ".", "./"])
    def test_empty_and_dot_name_the_root(self, root: Path, relative: str) -> None:
        assert confine(root, relative) == root.resolve()

    def test_a_path_inside_resolves(self, root: Path) -> None:
        assert confine(root, "sub/a.json") == (root / "sub" / "a.json").resolve()
        assert confine(root, "sub\\a.json") == (root / "sub" / "a.json").resolve()

    @pytest.mark.parametrize("relative", ["..", "../outside", "sub/../../outside", "sub/..", "./../root"])
    def test_dot_dot_is_refused_even_when_it_would_stay_inside(self, root: Path, relative: str) -> None:
        with pytest.raises(OutsideRootError, match=r"'\.\.' is not allowed"):
            confine(root, relative)

    @pytest.mark.parametrize("relative", ["/etc/passwd", "//server/share", "C:\\Windows", "c:/x"])
    def test_absolute_paths_are_refused(self, root: Path, relative: str) -> None:
        with pytest.raises(OutsideRootError, match="absolute"):
            confine(root, relative)

    def test_a_symlinked_folder_leaving_the_root_is_refused(self, root: Path) -> None:
        with pytest.raises(OutsideRootError, match="outside its root"):
            confine(root, "escape")
        with pytest.raises(OutsideRootError, match="outside its root"):
            confine(root, "escape/secret.json")

    def test_a_symlinked_file_leaving_the_root_is_refused(self, root: Path) -> None:
        with pytest.raises(OutsideRootError, match="outside its root"):
            confine(root, "escape_file.json")

    def test_a_symlink_staying_inside_is_allowed(self, root: Path) -> None:
        assert confine(root, "inner_link/a.json") == (root / "sub" / "a.json").resolve()

    def test_the_error_names_the_path(self, root: Path) -> None:
        with pytest.raises(OutsideRootError, match=r"^escape: "):
            confine(root, "escape")


class TestListFolder:
    def test_folders_first_then_matching_files_without_hidden_or_escaping_entries(self, root: Path) -> None:
        entries = list_folder(root, "", suffixes=(".json", ".jsonl"))
        assert [(e.name, e.is_dir) for e in entries] == [
            ("inner_link", True),
            ("sub", True),
            ("top.jsonl", False),
        ]

    def test_entries_are_named_relative_to_the_root(self, root: Path) -> None:
        entries = list_folder(root, "sub")
        assert [e.relative for e in entries] == ["sub/deeper", "sub/a.json"]
        assert entries[1].size == 2

    def test_listing_outside_the_root_is_refused(self, root: Path) -> None:
        with pytest.raises(OutsideRootError):
            list_folder(root, "escape")
        with pytest.raises(OutsideRootError):
            list_folder(root, "../outside")


class TestPaths:
    @pytest.mark.parametrize(
        ("relative", "parent"), [("", ""), ("a", ""), ("a/b", "a"), ("a/b/c.json", "a/b")]
    )
    def test_parent_of(self, relative: str, parent: str) -> None:
        assert parent_of(relative) == parent

    def test_root_label_is_project_relative_inside_the_project(self, tmp_path: Path) -> None:
        assert roots.root_label(roots.PROJECT_DIR / "dumps") == "dumps/"
        assert roots.root_label(tmp_path) == f"{tmp_path}/"


class TestEntryLabels:
    @pytest.mark.parametrize(
        ("entry", "label"),
        [
            (roots.Entry("a/b", "b", True, 0), "📁 b/"),
            (roots.Entry("a.json", "a.json", False, 12), "📄 a.json · 12 B"),
            (roots.Entry("a.json", "a.json", False, 4_096), "📄 a.json · 4 KB"),
            (roots.Entry("a.json", "a.json", False, 3 * 2**20), "📄 a.json · 3.0 MB"),
        ],
    )
    def test_a_folder_or_a_file_with_its_size(self, entry: roots.Entry, label: str) -> None:
        assert entry.label == label


class TestReadFile:
    def test_a_regular_file_inside_is_read(self, root: Path) -> None:
        assert roots.read_file(root, "sub/a.json") == b"{}"

    def test_a_link_leaving_the_root_is_refused_before_anything_is_opened(self, root: Path) -> None:
        with pytest.raises(OutsideRootError, match="resolves outside its root"):
            roots.read_file(root, "escape_file.json")

    def test_a_fifo_named_like_a_conversation_is_refused_at_once(self, root: Path) -> None:
        os.mkfifo(root / "stuck.json")  # nothing ever writes to it: a blocking open would hang the session
        with pytest.raises(UnreadableFile, match="not a regular file"):
            roots.read_file(root, "stuck.json")
        assert "stuck.json" not in {entry.name for entry in list_folder(root)}
        assert roots.file_signature(root, "stuck.json") is None

    def test_a_folder_or_a_missing_file_is_named(self, root: Path) -> None:
        with pytest.raises(UnreadableFile, match="sub"):
            roots.read_file(root, "sub")
        with pytest.raises(UnreadableFile, match=r"gone\.json"):
            roots.read_file(root, "gone.json")


class TestWithoutServerPaths:
    def test_paths_inside_a_root_are_shown_as_the_page_names_them(self, root: Path) -> None:
        text = f"[Errno 2] No such file or directory: '{root}/sub/x.json'"
        assert roots.without_server_paths(text, [root]) == (
            f"[Errno 2] No such file or directory: '{roots.root_label(root)}sub/x.json'"
        )

    def test_the_temp_folder_and_other_paths_never_show(self, tmp_path: Path) -> None:
        text = f"cannot read {tempfile.gettempdir()}/compaction-lab-1-x/a.json nor /srv/private/data/b.json"
        shown = roots.without_server_paths(text, [])
        assert shown == f"cannot read {roots.TEMP_LABEL}/compaction-lab-1-x/a.json nor …/b.json"

    def test_urls_and_ratios_are_left_alone(self) -> None:
        text = "HTTP 401 from http://127.0.0.1:9/v1 at ratio 1/2"
        assert roots.without_server_paths(text, []) == text
