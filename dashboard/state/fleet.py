"""The Fleet page's session state: one fleet build per session, run in a thread so the page stays usable (its
progress read on every rerun, cancellable), a zip upload unpacked into a folder of its own, and opening one
run of the fleet on another page with the fleet's setting.

Invariant: the build thread never touches ``st.session_state`` (it writes only its ``FleetJob``); a fleet's
runs stay in the catalog — the session holds the ``Fleet`` value (rows and figures), never a conversation,
until a run is opened.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field, replace
from io import BytesIO
from pathlib import Path, PurePosixPath

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from compressor.errors import CompressorError
from compressor.fleet import SUFFIXES, Catalog, Fleet, FleetGrid, Progress, make_executor, run_fleet
from compressor.formats import load_conversations
from compressor.replay import ratio_steps

from .. import roots
from ..settings import Settings
from ..sources import LoadedConversation, safe_file_name, writable_conversation
from . import conversations, keys, scratch, session

#: Worker processes of a build (default: one per core); tests and small machines may ask for one.
JOBS_ENV = "COMPACTION_LAB_FLEET_JOBS"
#: A zip may unpack to at most this much, in at most this many files.
MAX_UNPACKED_BYTES = 2 << 30
MAX_MEMBERS = 20_000
#: Pages a run can be opened on (file, as ``st.switch_page`` names it).
OPEN_PAGES = {"span": "views/span.py", "tune": "views/tune.py"}


@dataclass
class FleetJob:
    """One build of a fleet: what it reads, where it stands, and what it gave (a ``Fleet`` or an error)."""

    paths: tuple[str, ...]
    grid: FleetGrid
    catalog: Catalog
    cancel: threading.Event = field(default_factory=threading.Event)
    progress: Progress | None = None
    fleet: Fleet | None = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def run(self) -> None:
        jobs = os.environ.get(JOBS_ENV)
        try:
            executor = make_executor(jobs=int(jobs) if jobs and jobs.isdigit() else None)
            try:
                self.fleet = run_fleet(
                    self.paths, self.grid, self.catalog, executor, progress=self._update, cancel=self.cancel
                )
            finally:
                executor.close()
        except (CompressorError, OSError) as error:
            self.error = " ".join(str(error).split())
        except Exception as error:  # the thread's last word: a page must show why its build stopped
            self.error = f"{type(error).__name__}: {' '.join(str(error).split())}"

    def _update(self, progress: Progress) -> None:
        self.progress = progress


def catalog() -> Catalog:
    """The server's catalog (``$COMPACTION_LAB_CATALOG``, else under the user cache folder)."""
    return Catalog()


def job() -> FleetJob | None:
    found = st.session_state.get(keys.K_FLEET_JOB)
    return found if isinstance(found, FleetJob) else None


def start(paths: tuple[str, ...], grid: FleetGrid) -> FleetJob:
    """Start building and sweeping a fleet in the background (a running one is cancelled first)."""
    cancel()
    built = FleetJob(paths=paths, grid=grid, catalog=catalog())
    built.thread = threading.Thread(target=built.run, name="fleet-build", daemon=True)
    st.session_state[keys.K_FLEET_JOB] = built
    built.thread.start()
    return built


def cancel() -> None:
    """Button callback: stop the running build between two files (what it wrote stays in the catalog)."""
    running = job()
    if running is not None and running.running:
        running.cancel.set()


def finished_unseen(done: FleetJob) -> bool:
    """True once per finished build: the first rerun after it ends draws its results."""
    if st.session_state.get(keys.K_FLEET_SHOWN) is done:
        return False
    st.session_state[keys.K_FLEET_SHOWN] = done
    return done.fleet is not None or done.error is not None


def grid_of(
    low: float,
    high: float,
    keeps: list[int],
    summary: float,
    capacity: int,
    headroom: float,
    share: float,
    settings: Settings,
) -> FleetGrid:
    """The page's grid: ratios ``low`` to ``high`` by 0.05, the sidebar's min target and counter; capacity 0
    lets each run's own model give its window."""
    return FleetGrid(
        ratios=ratio_steps(low, high, 0.05),
        keeps=tuple(sorted(set(keeps) or {0})),
        min_targets=(settings.min_target_context_ratio,),
        summary=f"ratio:{summary:g}",
        counter=settings.counter,
        context_max=capacity or None,
        headroom=headroom,
        share=share,
    )


def build_paths(root: Path | None, relative: str, upload: UploadedFile | None) -> tuple[str, ...]:
    """What a build reads: the folder or file below ``root`` (confined to it), else the uploaded zip unpacked."""
    if root is not None:
        return (str(roots.confine(root, relative.strip())),)
    if upload is None:
        raise ValueError(session.t("fleet.no_upload"))
    return (str(unpack_zip(upload.name, upload.getvalue())),)


def wait(seconds: float) -> None:
    """Give the running build a moment (tests): returns at once when nothing runs."""
    running = job()
    if running is not None and running.thread is not None:
        running.thread.join(seconds)


# -- a zip of runs ---------------------------------------------------------------------------------


def unpack_zip(name: str, data: bytes) -> Path:
    """The zip's run files in a new folder of this session (the previous upload's is removed): member names
    flattened and made safe, only suffixes a reader takes, bounded in count and size."""
    previous = st.session_state.pop(keys.K_FLEET_UPLOAD_DIR, None)
    if isinstance(previous, str) and Path(previous).name.startswith("compaction-lab-fleet-"):
        shutil.rmtree(previous, ignore_errors=True)
    # In the session's own folder: it goes when the session ends, or with a dead server's at the next start.
    folder = Path(tempfile.mkdtemp(prefix="compaction-lab-fleet-", dir=scratch.session_subfolder("fleet")))
    st.session_state[keys.K_FLEET_UPLOAD_DIR] = str(folder)
    try:
        archive = zipfile.ZipFile(BytesIO(data))
    except zipfile.BadZipFile:
        raise CompressorError(f"{name}: not a zip file") from None
    total = 0
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()][:MAX_MEMBERS]
        for number, member in enumerate(members):
            if not member.filename.lower().endswith(SUFFIXES) or member.filename.startswith("__MACOSX/"):
                continue
            total += member.file_size
            if total > MAX_UNPACKED_BYTES:
                raise CompressorError(f"{name}: unpacks to more than {MAX_UNPACKED_BYTES >> 30} GB")
            target = folder / f"{number:05d}-{safe_file_name(PurePosixPath(member.filename).name)}"
            try:  # read only up to its declared size: a member lying about it fails its CRC here
                with archive.open(member) as source, open(target, "wb") as out:
                    shutil.copyfileobj(source, out)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError) as error:
                raise CompressorError(f"{name}: {member.filename}: cannot be unpacked ({error})") from None
    return folder


# -- opening a run -----------------------------------------------------------------------------------


def open_run(
    path: str, conversation: int, page: str, setting: tuple[float, int, float], context_max: int
) -> str:
    """Load one run of the fleet, queue the fleet's setting and the run's capacity for the sidebar, and give
    the page file to switch to (the caller switches; on a problem, its line is kept for the page to show)."""
    try:
        loaded = writable_conversation(load_conversations(Path(path))[conversation])
    except (CompressorError, OSError, IndexError) as error:
        st.session_state[keys.K_FLEET_OPEN] = ("error", " ".join(str(error).split()))
        return ""
    label = loaded.name or f"{Path(path).name} #{conversation}"
    item = LoadedConversation(
        key=f"fleet:{path}#{conversation}",
        label=label,
        origin="fleet",
        file=Path(path).name,
        conversation=loaded,
    )
    conversations.add_items([item], select=True)
    ratio, keep, target = setting
    # Inside a run the sidebar is drawn already: the next run (the other page's) writes these into it.
    session.queue_settings(
        replace(
            session.settings(),
            trigger_context_ratio=ratio,
            keep_recent_messages=keep,
            min_target_context_ratio=target,
            capacity_mode="number",
            context_max=context_max,
        )
    )
    return OPEN_PAGES[page]


def pending_error() -> str | None:
    """The line of the last "open" that failed, shown once."""
    found = st.session_state.pop(keys.K_FLEET_OPEN, None)
    return found[1] if isinstance(found, tuple) and found[0] == "error" else None
