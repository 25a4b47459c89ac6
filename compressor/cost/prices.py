"""Model prices: the bundled table (``data/prices.json``), a user's file over it, and a model's row by its logged name.

Invariant: every row carries four prices in USD per million tokens and where and when they were published; a
name is matched as ``windows.run_model_window`` matches one (exact, case-insensitive, then without a provider
prefix or a date/version suffix), and an unknown model is ``None``, never a guess.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..errors import ConfigError
from ..windows import logged_names  # one rule for a logged model name, shared with the capacity table

PER_TOKENS = 1_000_000  # every price in the table is per this many tokens


class _Row(BaseModel):
    """A row as a file writes it; a user's row may leave out the cache prices (then no discount, no surcharge)."""

    model_config = ConfigDict(extra="forbid")

    provider: str = ""
    input: float = Field(ge=0, description="an uncached input token, USD per 1M")
    output: float = Field(ge=0, description="an output token, USD per 1M")
    cached_input: float | None = Field(default=None, ge=0, description="an input token read from the cache")
    cache_write: float | None = Field(default=None, ge=0, description="an input token written to the cache")
    source: str = ""
    date: str = ""
    note: str = ""

    @model_validator(mode="after")
    def _cache_not_dearer_than_input(self) -> _Row:
        if self.cached_input is not None and self.cached_input > self.input:
            raise ValueError(
                "cached_input costs more than input; a cache read is never dearer than a fresh token"
            )
        return self


@dataclass(frozen=True, kw_only=True)
class Price:
    """One model's prices in USD per million tokens, with the page they come from and its date."""

    model: str
    provider: str = ""
    input: float
    cached_input: float
    cache_write: float
    output: float
    source: str = ""
    date: str = ""
    note: str = ""
    #: where the row was read: "bundled" or the user's file
    origin: str = "bundled"

    def usd(self, *, cached: int = 0, written: int = 0, output: int = 0) -> float:
        """What ``cached`` input tokens read from the cache, ``written`` ones sent fresh and ``output`` ones cost."""
        return (cached * self.cached_input + written * self.cache_write + output * self.output) / PER_TOKENS

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "provider": self.provider,
            "input": self.input,
            "cached_input": self.cached_input,
            "cache_write": self.cache_write,
            "output": self.output,
            "source": self.source,
            "date": self.date,
            "note": self.note,
            "origin": self.origin,
        }


def _rows(document: Any, origin: str) -> dict[str, Price]:
    if not isinstance(document, Mapping) or not isinstance(document.get("models"), Mapping):
        raise ConfigError(f'{origin}: a price table is a JSON object with a "models" object of rows')
    rows: dict[str, Price] = {}
    for name, raw in document["models"].items():
        try:
            row = _Row.model_validate(raw)
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "row"
            raise ConfigError(f"{origin}: models.{name}.{field}: {first['msg']}") from None
        rows[str(name)] = Price(
            model=str(name),
            provider=row.provider,
            input=row.input,
            cached_input=row.input if row.cached_input is None else row.cached_input,
            cache_write=row.input if row.cache_write is None else row.cache_write,
            output=row.output,
            source=row.source or (origin if origin != "bundled" else ""),
            date=row.date,
            note=row.note,
            origin=origin,
        )
    return rows


@cache
def bundled_prices() -> dict[str, Price]:
    """The table shipped with the package, model name → row."""
    text = resources.files("compressor").joinpath("data", "prices.json").read_text("utf-8")
    return _rows(json.loads(text), "bundled")


def read_prices(path: str | Path) -> dict[str, Price]:
    """A user's price file (the bundled file's shape); a row missing a cache price gets the input price."""
    source = Path(path)
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(f"--prices: cannot read {source}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{source}: not JSON ({error.msg} at line {error.lineno})") from None
    return _rows(document, str(source))


def price_table(path: str | Path | None = None) -> dict[str, Price]:
    """The bundled rows, with a user's file (if any) replacing rows of the same name and adding new ones."""
    table = dict(bundled_prices())
    if path is not None:
        table.update(read_prices(path))
    return table


def find_price(model: str | None, table: Mapping[str, Price] | None = None) -> Price | None:
    """The row for a model as a run or a user names it, or None when the table has no such model."""
    if not model:
        return None
    rows = bundled_prices() if table is None else table
    lowered = {name.lower(): row for name, row in rows.items()}
    for name in logged_names(model):
        found = rows.get(name) or lowered.get(name.lower())
        if found is not None:
            return found
    return None
