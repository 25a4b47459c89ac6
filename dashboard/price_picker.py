"""The price picker Tune and Dump review share: the row a page bills at (the run's own model's, the sidebar's, or
any row of the bundled table), the caption that names it, and how a cost is written.

Invariant: the choice is the library's ``PriceChoice`` (``resolve_price``); without a price, costs are tokens.
"""

from __future__ import annotations

import streamlit as st

from compressor.cost import bundled_prices
from compressor.messages import Conversation
from compressor.replay import PriceChoice, resolve_price
from dashboard.settings import Settings
from dashboard.state import keys
from dashboard.state.session import t

#: The picker's first choice: the model the sidebar names (a model's window), else the one the run's file names.
OWN = ""


def amount(value: float, unit: str) -> str:
    """A cost as the recommendation writes it: "$0.0330" ("-$0.0081" below zero), or "14,411 tokens"."""
    if unit != "usd":
        return t("tune.cost.tokens", tokens=round(value))
    return f"-${-value:,.4f}" if value < 0 else f"${value:,.4f}"


def price_choice(conversation: Conversation | None, settings: Settings, page: str = "tune") -> PriceChoice:
    """The price picker on ``page``: the run's own model's row (the CLI's default), or any row of the table."""
    own = resolve_price(conversation, model=settings.capacity_model)
    names = [OWN, *sorted(bundled_prices())]
    if own.price is not None:
        first = t("tune.price.own", model=own.price.model)
    else:
        first = t("tune.price.none", model=own.asked) if own.asked else t("tune.price.unnamed")

    def label(name: str) -> str:  # made from words fixed now: Streamlit may call it after the run
        return name or first

    chosen = st.selectbox(
        t("tune.price"),
        names,
        format_func=label,
        key=keys.page_widget(page, "price"),
        help=t("tune.price_help"),
        width=360,
    )
    return own if not chosen else resolve_price(conversation, price_model=chosen)


def price_caption(choice: PriceChoice) -> str:
    price = choice.price
    if price is None:
        return t("tune.price_caption.tokens")
    return t(
        "tune.price_caption",
        model=price.model,
        input=f"{price.input:g}",
        cached=f"{price.cached_input:g}",
        write=f"{price.cache_write:g}",
        output=f"{price.output:g}",
        source=price.source or "—",
        date=price.date or "—",
    )
