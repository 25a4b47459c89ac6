"""Tune's price: the row a replayed run is billed at (its own model's, or one the reader picks), the run's bill
with and without compaction, and each compaction's line — its call, the cache it invalidates and writes again,
and when it pays back — all from ``compressor.replay``'s assessment, worded here.

Invariant: every number is a field of the library's ``PriceChoice``, ``Assessment`` or ``CompactionCost``; without
a price everything is counted in tokens, as ``compaction-lab simulate`` counts it.
"""

from __future__ import annotations

import streamlit as st

from compressor.cost import CompactionCost
from compressor.replay import PriceChoice, Simulation, assess_simulation
from dashboard import tables
from dashboard.compaction_view import live_replay_panel
from dashboard.components import stats, table
from dashboard.i18n import Stat, counted, option_labels
from dashboard.price_picker import amount, price_caption
from dashboard.settings import Settings
from dashboard.sources import LoadedConversation
from dashboard.state import keys, replays, session
from dashboard.state.session import t


def summary_model(item: LoadedConversation, settings: Settings) -> None:
    """How big each simulated summary is: a share of the span, a fixed size, the offline backend or a live one."""
    language = session.language()
    st.subheader(t("tune.summary"))
    kind = st.radio(
        t("tune.summary_kind"),
        replays.SUMMARY_KINDS,
        format_func=option_labels("tune.summary.", language),
        key=keys.W_SUMMARY_KIND,
        persist_state=keys.PERSIST,
        horizontal=True,
        help=t("tune.summary_help"),
    )
    if kind == "fixed":
        st.number_input(
            t("tune.summary_tokens"),
            min_value=1,
            max_value=1_000_000,
            step=100,
            key=keys.W_SUMMARY_TOKENS,
            persist_state=keys.PERSIST,
            width=280,
        )
    elif kind == "ratio":
        st.number_input(
            t("tune.summary_ratio"),
            min_value=0.01,
            max_value=1.0,
            step=0.01,
            format="%.2f",
            key=keys.W_SUMMARY_RATIO,
            persist_state=keys.PERSIST,
            width=280,
        )
    elif kind == "offline":
        st.caption(t("tune.offline_note"))
    if kind == "live":
        live_replay_panel(item, settings)


def run_bill(simulation: Simulation, choice: PriceChoice) -> None:
    """This setting's bill for the run (with and without compaction), then each compaction attempt's line."""
    ledger = assess_simulation(simulation, choice.price).ledger
    unit = ledger.unit
    st.caption(price_caption(choice))
    stats(
        [
            Stat(
                label=t("tune.cost.with"),
                value=amount(ledger.with_compaction.cost, unit),
                help=t("tune.cost.with_help"),
            ),
            Stat(label=t("tune.cost.without"), value=amount(ledger.without_compaction.cost, unit)),
            Stat(
                label=t("tune.cost.saved"), value=amount(ledger.saved, unit), help=t("tune.cost.saved_help")
            ),
        ]
    )
    if not ledger.compactions:
        return
    frame = tables.compaction_costs_frame(ledger.compactions, payback_words)
    # dollars to four places (the headers say "($)"); tokens as whole numbers with separators
    number = st.column_config.NumberColumn(format="%.4f")
    money = {column: number for column in tables.COST_MONEY} if unit == "usd" else {}
    table(frame, hide_index=True, labels=cost_headers(unit), column_config=money)


def payback_words(line: CompactionCost) -> str:
    """When one compaction has paid for itself, in the agent calls it had before the next one (or the end)."""
    language = session.language()
    horizon = counted(line.horizon_calls, "call", language)
    if line.payback == "paid" and line.payback_calls is not None:
        return t("tune.payback.paid", calls=counted(line.payback_calls, "call", language), horizon=horizon)
    return t("tune.payback.never", horizon=horizon)


def cost_headers(unit: str) -> dict[str, str]:
    """The bill table's headers; in tokens, the money columns count tokens."""
    suffix = t("tune.cost.in_usd") if unit == "usd" else t("tune.cost.in_tokens")
    return {
        "message": t("tune.cost.col.message"),
        "call": t("tune.cost.col.call") + suffix,
        "invalidated": t("tune.cost.col.invalidated"),
        "written": t("tune.cost.col.written"),
        "next_call": t("tune.cost.col.next_call") + suffix,
        "saving": t("tune.cost.col.saving") + suffix,
        "payback": t("tune.cost.col.payback"),
    }
