"""Where the per-run work runs: in this process, a pool of local processes (the default, one per core), or a
Dask distributed cluster (``--scheduler ADDRESS``).

Invariant: an executor only maps a pure function over tasks and yields ``(position, result)`` as results come
in, with at most a bounded number of tasks in flight (memory stays flat whatever the fleet's size); the fleet
puts results back in order, so every executor gives the same tables. Adding one is one class and one line
of ``EXECUTORS``.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Protocol, TypeVar

from ..errors import ConfigError

T = TypeVar("T")
R = TypeVar("R")
#: Tasks in flight per worker: enough to keep every worker busy, few enough to hold little in memory.
IN_FLIGHT_PER_WORKER = 16


class Executor(Protocol):
    name: str
    workers: int

    def map(
        self, function: Callable[[T], R], tasks: Iterable[T], cancel: threading.Event | None = None
    ) -> Iterator[tuple[int, R]]:
        """``(position, function(task))`` for each task, in the order they finish; stops early once ``cancel``."""
        ...

    def close(self) -> None: ...


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not every platform says which cores the process may use
        return os.cpu_count() or 1


class InlineExecutor:
    """Every task in this process, one after the other (a one-job fleet, and tests)."""

    name = "inline"
    workers = 1

    def map(
        self, function: Callable[[T], R], tasks: Iterable[T], cancel: threading.Event | None = None
    ) -> Iterator[tuple[int, R]]:
        for position, task in enumerate(tasks):
            if cancel is not None and cancel.is_set():
                return
            yield position, function(task)

    def close(self) -> None:
        return None


def _bounded(
    submit: Callable[[T], Any],
    wait_some: Callable[[set[Any]], tuple[set[Any], set[Any]]],
    result_of: Callable[[Any], R],
    tasks: Iterable[T],
    limit: int,
    cancel: threading.Event | None,
) -> Iterator[tuple[int, R]]:
    """Submit tasks keeping at most ``limit`` in flight; yield each result as it finishes."""
    pending: dict[Any, int] = {}
    source = iter(enumerate(tasks))
    exhausted = False
    while True:
        while not exhausted and len(pending) < limit and not (cancel is not None and cancel.is_set()):
            item = next(source, None)
            if item is None:
                exhausted = True
                break
            pending[submit(item[1])] = item[0]
        if not pending:
            return
        done, _ = wait_some(set(pending))
        for future in done:
            yield pending.pop(future), result_of(future)
        if cancel is not None and cancel.is_set():
            for future in pending:
                future.cancel()
            return


def _first_done(pending: set[Any]) -> tuple[set[Any], set[Any]]:
    done, rest = wait(pending, return_when=FIRST_COMPLETED)
    return set(done), set(rest)


def _result(future: Future[Any]) -> Any:
    return future.result()


class ProcessExecutor:
    """A pool of local processes. Forked from a single-threaded process (the CLI: workers start at once with
    the encodings loaded), else from a fork server (a threaded server must not be forked)."""

    name = "processes"

    def __init__(self, jobs: int | None = None) -> None:
        if jobs is not None and jobs < 1:
            raise ConfigError(f"--jobs: {jobs} is not a number of processes (≥ 1)")
        self.workers = jobs or cores()
        method = "fork" if threading.active_count() == 1 else "forkserver"
        self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(method))

    def map(
        self, function: Callable[[T], R], tasks: Iterable[T], cancel: threading.Event | None = None
    ) -> Iterator[tuple[int, R]]:
        def some(pending: set[Any]) -> tuple[set[Any], set[Any]]:
            done, rest = wait(pending, return_when=FIRST_COMPLETED)
            return set(done), set(rest)

        def result(future: Future[R]) -> R:
            return future.result()

        yield from _bounded(
            lambda task: self._pool.submit(function, task),
            some,
            result,
            tasks,
            self.workers * IN_FLIGHT_PER_WORKER,
            cancel,
        )

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """A Dask distributed cluster at ``address`` (its workers need compaction-lab installed, and the files at the
    same paths: a shared folder). The results come back here, where the catalog is written."""

    name = "dask"

    def __init__(self, address: str) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise ConfigError(
                "--scheduler: Dask is not installed; install the extra: pip install 'compaction-lab[dask]'"
            ) from None
        try:
            self._client = Client(address, timeout=30, set_as_default=False)
        except (OSError, TimeoutError) as error:
            raise ConfigError(f"--scheduler: cannot reach the Dask scheduler at {address}: {error}") from None
        self.workers = max(sum(self._client.nthreads().values()), 1)

    def map(
        self, function: Callable[[T], R], tasks: Iterable[T], cancel: threading.Event | None = None
    ) -> Iterator[tuple[int, R]]:
        # The client's concurrent.futures face: its futures are waited on like the pool's, on this client.
        pool = self._client.get_executor(pure=False)
        yield from _bounded(
            lambda task: pool.submit(function, task),
            _first_done,
            _result,
            tasks,
            self.workers * IN_FLIGHT_PER_WORKER,
            cancel,
        )

    def close(self) -> None:
        self._client.close()


#: name → how to make it; ``make_executor`` walks it: a scheduler address means Dask, one job inline.
EXECUTORS: dict[str, Callable[..., Executor]] = {
    "inline": lambda **_: InlineExecutor(),
    "processes": lambda jobs=None, **_: ProcessExecutor(jobs),
    "dask": lambda scheduler, **_: DaskExecutor(scheduler),
}


def make_executor(jobs: int | None = None, scheduler: str | None = None) -> Executor:
    """Dask with a scheduler address, this process with ``jobs=1``, else a pool of ``jobs`` (default: cores)."""
    if scheduler:
        return EXECUTORS["dask"](scheduler=scheduler)
    if jobs == 1:
        return EXECUTORS["inline"]()
    return EXECUTORS["processes"](jobs=jobs)
