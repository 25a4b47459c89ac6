"""Dump review's cost: the price picker (Tune's), each listed dump's compaction call — tokens in and out, reported
or counted, its price, the saving at every later call and the payback — the total of the dumps shown, and the
same line for the dump in detail, with its model calls, retries, backoff and time taken from its debug log.

Invariant: every number is a field of ``compressor.dumps.price_dump_call`` or ``total_cost`` of the dump's tokens
(``state.dumps.dump_call_tokens``) or of ``dump_timing``; this module only words and lays them out.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd
import streamlit as st

from compressor.cost import Unit
from compressor.dumps import DumpCost, DumpRecord, dump_timing, price_dump_call, total_cost
from compressor.replay import PriceChoice

from .components import stats
from .i18n import Stat, counted
from .price_picker import amount, price_caption, price_choice
from .settings import Settings
from .state import dumps, keys, session
from .state.session import t

#: Shown dumps priced at once for the folder total; more wait for a click (each is read and counted once).
TOTAL_AT_ONCE = 200
COST_COLUMNS = ("call_input", "call_output", "usage", "call_cost", "saving_per_call", "payback")


def price_section(settings: Settings) -> PriceChoice:
    """The price picker, as on Tune, and what the chosen row costs."""
    st.subheader(t("dumps.cost.title"))
    choice = price_choice(None, settings, "dumps")
    st.caption(price_caption(choice))
    st.caption(t("dumps.cost.note", counter=t(f"counter.{settings.counter}")))
    return choice


def costs_of(paths: Iterable[str], choice: PriceChoice, counter: str) -> dict[str, DumpCost]:
    """Each readable dump's call at the chosen price (a dump that changed since the listing is left out)."""
    found: dict[str, DumpCost] = {}
    for path in paths:
        call = dumps.dump_call_tokens(path, counter)
        if call is not None:
            found[path] = price_dump_call(call, choice.price)
    return found


def source_word(cost: DumpCost) -> str:
    """Where a call's tokens came from: the dump's reported usage, or counted here."""
    return t("dumps.cost.from.reported") if cost.call.source == "reported" else t("dumps.cost.from.counted")


def payback_words(cost: DumpCost) -> str:
    """After how many agent calls the saving covers the call, or never (it saves nothing)."""
    if cost.payback_calls is None:
        return t("dumps.cost.never")
    return t("dumps.cost.payback", calls=counted(cost.payback_calls, "call", session.language()))


def with_costs(listing: pd.DataFrame, paths: Iterable[str], costs: dict[str, DumpCost]) -> pd.DataFrame:
    """The page's listing (``tables.dump_table``, in the order of ``paths``) with each dump's cost columns."""
    found = [costs.get(path) for path in paths]
    shown = listing.copy()
    shown["call_input"] = pd.array([c.call.input_tokens if c else None for c in found], dtype="Int64")
    shown["call_output"] = pd.array([c.call.output_tokens if c else None for c in found], dtype="Int64")
    shown["usage"] = [source_word(c) if c else "—" for c in found]
    shown["call_cost"] = pd.array([c.call_cost if c else None for c in found], dtype="Float64")
    shown["saving_per_call"] = pd.array([c.saving_per_call if c else None for c in found], dtype="Float64")
    shown["payback"] = [payback_words(c) if c else "—" for c in found]
    return shown


def cost_headers(unit: str) -> dict[str, str]:
    """The cost columns' headers: Tune's words, with the unit the money columns are in."""
    suffix = t("tune.cost.in_usd") if unit == "usd" else t("tune.cost.in_tokens")
    return {
        "call_input": t("dumps.cost.col.input"),
        "call_output": t("dumps.cost.col.output"),
        "usage": t("dumps.cost.col.usage"),
        "call_cost": t("tune.cost.col.call") + suffix,
        "saving_per_call": t("dumps.cost.col.saving") + suffix,
        "payback": t("tune.cost.col.payback"),
    }


def cost_config(unit: str) -> dict[str, object]:
    """Dollars to four places, as on Tune; tokens whole."""
    money = st.column_config.NumberColumn(format="%.4f" if unit == "usd" else "localized")
    return {"call_cost": money, "saving_per_call": money}


def unit_of(choice: PriceChoice) -> Unit:
    return "usd" if choice.price is not None else "tokens"


def folder_total(paths: list[str], choice: PriceChoice, counter: str) -> None:
    """The total of the dumps shown; past ``TOTAL_AT_ONCE`` of them, on a click."""
    language = session.language()
    many = len(paths) > TOTAL_AT_ONCE
    if many and not st.button(
        t("dumps.cost.total_button", dumps=counted(len(paths), "dump", language)),
        key=keys.page_widget("dumps", "price_all"),
    ):
        return
    unit = unit_of(choice)
    total = total_cost(costs_of(paths, choice, counter).values(), unit)
    stats(
        [
            Stat(
                label=t("dumps.cost.total", dumps=counted(total.dumps, "dump", language)),
                value=amount(total.call_cost, unit),
            ),
            Stat(label=t("dumps.cost.tokens"), value=f"{total.input_tokens:,} / {total.output_tokens:,}"),
            Stat(label=t("dumps.cost.total_saving"), value=amount(total.saving_per_call, unit)),
        ]
    )
    st.caption(t("dumps.cost.sources", reported=total.reported, counted=total.dumps - total.reported))


def dump_cost_stats(path: str, choice: PriceChoice, counter: str) -> None:
    """The dump in detail: its compaction call's tokens, price, saving per later call and payback."""
    cost = costs_of([path], choice, counter).get(path)
    if cost is None:
        return
    unit = cost.unit
    stats(
        [
            Stat(
                label=t("dumps.cost.tokens"),
                value=f"{cost.call.input_tokens:,} / {cost.call.output_tokens:,}",
            ),
            Stat(label=t("tune.cost.col.call"), value=amount(cost.call_cost, unit)),
            Stat(label=t("dumps.cost.col.saving"), value=amount(cost.saving_per_call, unit)),
            Stat(label=t("tune.cost.col.payback"), value=payback_words(cost)),
        ]
    )
    if cost.call.source == "reported":
        st.caption(t("dumps.cost.detail.reported"))
    else:
        st.caption(t("dumps.cost.detail.counted", counter=t(f"counter.{cost.call.counter}")))


def dump_timing_stats(record: DumpRecord) -> None:
    """The dump in detail: the model calls its compaction made, its retries and backoff, and the time it took."""
    timing = dump_timing(record)
    if timing is None:
        st.caption(t("dumps.time.none"))
        return
    language = session.language()
    unknown = t("dumps.time.unknown")
    stats(
        [
            Stat(label=t("dumps.time.calls"), value=counted(timing.calls, "call", language)),
            Stat(label=t("col.retries"), value=f"{timing.retries:,}"),
            Stat(
                label=t("dumps.time.backoff"),
                value=unknown if timing.backoff_seconds is None else f"{timing.backoff_seconds:,.2f} s",
            ),
            Stat(
                label=t("dumps.time.took"),
                value=unknown if timing.seconds is None else f"{timing.seconds:,.2f} s",
            ),
        ]
    )
    st.caption(t("dumps.time.from_log") if record.debug_records else t("dumps.time.from_dump"))
