"""The runs table of a fleet, read from the catalog with DuckDB: filtered, sorted and cut in SQL, so a page
shows thousands of runs without holding any of them.

Invariant: every figure of a row is the catalog's (``fleet_runs`` and the chosen setting's outcome row, or
the run's untouched outcome where the sweep took that), the same numbers ``run_fleet`` added up; a filter or
an order names only known columns, so no text from a user reaches the SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .catalog import Catalog
from .values import Fleet, SettingKey

#: The columns of a runs table row, in order.
RUN_COLUMNS: tuple[str, ...] = (
    "key",
    "path",
    "conversation",
    "name",
    "agent",
    "model",
    "format",
    "size",
    "messages",
    "context_tokens",
    "steps",
    "recorded_compactions",
    "context_max",
    "compactions",
    "peak_tokens",
    "peak_utilisation",
    "steps_over_capacity",
    "tokens",
)
Order = Literal[
    "path",
    "agent",
    "model",
    "size",
    "messages",
    "context_tokens",
    "steps",
    "compactions",
    "peak_utilisation",
    "steps_over_capacity",
    "tokens",
]
ORDERS: tuple[str, ...] = (
    "context_tokens",
    "size",
    "messages",
    "steps",
    "compactions",
    "peak_utilisation",
    "steps_over_capacity",
    "tokens",
    "path",
    "agent",
    "model",
)


@dataclass(frozen=True, kw_only=True)
class RunFilter:
    """Which runs a table shows, in which order, and how many at most."""

    agents: tuple[str, ...] = ()  # empty: every agent
    models: tuple[str, ...] = ()
    min_size: int = 0
    max_size: int | None = None
    min_tokens: int = 0
    max_tokens: int | None = None
    min_compactions: int = 0
    order: str = "context_tokens"
    descending: bool = True
    limit: int = 200


_SELECT = """
SELECT r.path || '#' || r.conversation AS key, r.path, r.conversation, r.name, r.agent, r.model, r.format, r.size,
       r.messages, r.context_tokens, r.steps, r.recorded_compactions, w.context_max,
       COALESCE(o.compactions, CASE WHEN t.outcome <> '' THEN 0 END) AS compactions,
       COALESCE(o.peak_tokens, t.peak_tokens) AS peak_tokens,
       round(COALESCE(o.peak_tokens, t.peak_tokens) / w.context_max, 4) AS peak_utilisation,
       COALESCE(o.steps_over_capacity, t.steps_over_capacity) AS steps_over_capacity,
       COALESCE(o.tokens, t.tokens) AS tokens
FROM fleet_runs r
JOIN wanted w ON w.run_id = r.run_id AND w.path = r.path
LEFT JOIN outcomes o ON o.run_id = r.run_id AND o.play_key = w.play_key
     AND o.ratio = $ratio AND o.keep = $keep AND o.min_target = $target
LEFT JOIN outcomes t ON t.run_id = r.run_id AND t.play_key = w.template_key AND t.keep = -1
WHERE r.counter = $counter
"""


def runs_table(
    catalog: Catalog, fleet: Fleet, setting: SettingKey | None, filters: RunFilter = RunFilter()
) -> tuple[list[dict[str, Any]], int]:
    """The fleet's runs under ``setting`` (the recommendation's by default) that pass ``filters``: the first
    ``filters.limit`` rows in order, and how many pass in all."""
    if filters.order not in ORDERS:
        raise ValueError(f"order: {filters.order!r} is not a column of the runs table")
    chosen = (
        setting or fleet.recommendation.setting or (fleet.grid.settings[0] if fleet.grid.settings else None)
    )
    ratio, keep, target = chosen if chosen is not None else (-2.0, -2, -2.0)
    grid = fleet.grid
    clauses, params = _where(filters)
    params.update({"ratio": ratio, "keep": keep, "target": target, "counter": grid.counter})
    with catalog.reading() as connection:
        connection.execute(
            "CREATE TEMP TABLE wanted AS SELECT unnest($ids::VARCHAR[]) AS run_id, unnest($paths::VARCHAR[]) AS path, "
            "unnest($keys::VARCHAR[]) AS play_key, unnest($templates::VARCHAR[]) AS template_key, "
            "unnest($capacities::BIGINT[]) AS context_max",
            {
                "ids": [run.run_id for run in fleet.runs],
                "paths": [run.path for run in fleet.runs],
                "keys": [grid.play_key(run.context_max) for run in fleet.runs],
                "templates": [grid.template_key(run.context_max) for run in fleet.runs],
                "capacities": [run.context_max for run in fleet.runs],
            },
        )
        body = f"SELECT * FROM ({_SELECT}) WHERE {' AND '.join(clauses) or 'true'}"
        total = connection.execute(f"SELECT count(*) FROM ({body})", params).fetchone()
        direction = "DESC" if filters.descending else "ASC"
        rows = connection.execute(
            f"{body} ORDER BY {filters.order} {direction} NULLS LAST, key LIMIT {int(max(filters.limit, 0))}",
            params,
        ).fetchall()
    return [dict(zip(RUN_COLUMNS, row, strict=True)) for row in rows], int(total[0]) if total else 0


def _where(filters: RunFilter) -> tuple[list[str], dict[str, Any]]:
    clauses: list[str] = []
    params: dict[str, Any] = {}
    if filters.agents:
        clauses.append("agent IN (SELECT unnest($agents::VARCHAR[]))")
        params["agents"] = list(filters.agents)
    if filters.models:
        clauses.append("coalesce(model, '') IN (SELECT unnest($models::VARCHAR[]))")
        params["models"] = list(filters.models)
    bounds: Sequence[tuple[str, str, int | None]] = (
        ("size >= $min_size", "min_size", filters.min_size or None),
        ("size <= $max_size", "max_size", filters.max_size),
        ("context_tokens >= $min_tokens", "min_tokens", filters.min_tokens or None),
        ("context_tokens <= $max_tokens", "max_tokens", filters.max_tokens),
        ("compactions >= $min_compactions", "min_compactions", filters.min_compactions or None),
    )
    for clause, name, value in bounds:
        if value is not None:
            clauses.append(clause)
            params[name] = value
    return clauses, params


def facets(fleet: Fleet) -> dict[str, list[str]]:
    """The agents and models a fleet's runs name, for a filter's choices (a run without a model is '')."""
    return {
        "agents": sorted({run.agent for run in fleet.runs}),
        "models": sorted({run.model or "" for run in fleet.runs}),
    }
