"""Every session key is spelled once and no two mean the same slot."""

from __future__ import annotations

from dataclasses import fields

from dashboard.settings import Settings
from dashboard.state import keys


def constants(prefix: str) -> dict[str, str]:
    return {
        name: value
        for name, value in vars(keys).items()
        if name.startswith(prefix) and isinstance(value, str)
    }


class TestKeys:
    def test_no_two_keys_share_a_slot(self) -> None:
        values = [*constants("W_").values(), *constants("K_").values()]
        assert len(values) == len(set(values))

    def test_widget_keys_are_marked_as_widgets(self) -> None:
        assert all(value.startswith("w_") for value in constants("W_").values())
        assert not any(value.startswith("w_") for value in constants("K_").values())

    def test_the_sidebar_widgets_hold_every_setting(self) -> None:
        assert set(keys.SETTING_WIDGETS.values()) == {field.name for field in fields(Settings)}
        assert set(keys.SETTING_WIDGETS) <= set(constants("W_").values())

    def test_language_sensitive_widgets_are_widgets(self) -> None:
        assert set(keys.LANGUAGE_SENSITIVE) <= set(constants("W_").values())

    def test_page_widgets_never_share_a_key(self) -> None:
        made = {keys.page_widget(page, "run") for page in ("compact", "dumps", "tune", "demo")}
        made |= {keys.browse_widget(page, "root") for page in ("load", "dumps")}
        assert len(made) == 6
        assert not made & set(constants("W_").values())
