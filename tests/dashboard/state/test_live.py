"""The Live page's backend is read from its widgets, its key never leaves the session, and a compaction run
with it is the compactor's own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from compressor.backends import OfflineBackend, ReplayBackend
from compressor.compactor import CurrentRoundCompressor
from dashboard.settings import DEFAULTS
from dashboard.state import keys, live
from tests.dashboard.conftest import OPENJIUWEN_DUMPS, demo_conversation, run_script

ENDPOINT = {keys.W_BACKEND: "openai", keys.W_BASE_URL: "http://127.0.0.1:9/v1", keys.W_MODEL_NAME: "m"}


def configure() -> None:
    import streamlit as st

    from dashboard.state import live

    st.session_state["plain"] = live.live_configs()
    st.session_state["keyed"] = live.live_configs(with_key=True)
    try:
        st.session_state["backend"] = type(live.live_backend()).__name__
    except ValueError as error:
        st.session_state["backend"] = f"error: {error}"


def configured(state: dict[str, Any]) -> Any:
    return run_script(configure, state=state).session_state


class TestConfigs:
    def test_the_offline_backend_has_no_model(self) -> None:
        found = configured({keys.W_BACKEND: "offline"})
        assert found["plain"] == (None, None)
        assert found["backend"] == "OfflineBackend"

    def test_an_endpoint_missing_a_field_is_named(self) -> None:
        found = configured({**ENDPOINT, keys.W_MODEL_NAME: " "})
        assert found["plain"] == (None, None)
        assert found["backend"].startswith("error: base URL and model name")

    def test_the_key_goes_only_where_it_is_asked_for(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.delenv("API_KEY", raising=False)
        found = configured({**ENDPOINT, keys.W_API_KEY: "sk-typed"})
        model, client = found["plain"]
        assert model.model_name == "m" and client.api_key.get_secret_value() == ""
        assert found["keyed"][1].api_key.get_secret_value() == "sk-typed"
        assert found["backend"] == "OpenAICompatibleBackend"

    def test_a_typed_url_never_gets_the_servers_key(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("API_BASE", "http://127.0.0.1:8/v1")
        monkeypatch.setenv("API_KEY", "sk-server")
        typed = configured({**ENDPOINT, keys.W_USE_SERVER: False})
        _, client = typed["keyed"]
        assert client.api_base == "http://127.0.0.1:9/v1" and client.api_key.get_secret_value() == ""

    def test_the_servers_key_goes_to_the_servers_endpoint_only(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("API_BASE", "http://127.0.0.1:8/v1")
        monkeypatch.setenv("API_KEY", "sk-server")
        monkeypatch.setenv("MODEL_NAME", "server-model")
        found = configured({keys.W_BACKEND: "openai", keys.W_BASE_URL: "http://127.0.0.1:9/v1"})
        model, client = found["keyed"]
        assert client.api_base == "http://127.0.0.1:8/v1"  # the typed URL is not used with the server's key
        assert client.api_key.get_secret_value() == "sk-server" and model.model_name == "server-model"

    def test_a_key_in_the_environment_without_its_endpoint_is_never_used(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.delenv("API_BASE", raising=False)
        monkeypatch.setenv("API_KEY", "sk-server")
        assert configured(ENDPOINT)["keyed"][1].api_key.get_secret_value() == ""


class TestRuns:
    def test_a_rerun_replays_the_dumps_recorded_reply(self) -> None:
        path = next((OPENJIUWEN_DUMPS / "compact015").glob("*.json"))
        assert isinstance(live.rerun_backend("replay", str(path)), ReplayBackend)
        with pytest.raises(ValueError, match=r"missing\.json"):  # DumpFormatError: the pages catch ValueError
            live.rerun_backend("replay", str(path.with_name("missing.json")))

    def test_a_compaction_is_the_compactors(self) -> None:
        conversation = demo_conversation()
        result = live.run_compaction(
            conversation, DEFAULTS, OfflineBackend(), force=False, preserve=None, dump_dir=None
        )
        direct = asyncio.run(
            CurrentRoundCompressor(
                DEFAULTS.config(), OfflineBackend(), context_max=DEFAULTS.context_max
            ).compact(conversation)
        )
        assert (result.status, result.tokens_before, result.tokens_after) == (
            direct.status,
            direct.tokens_before,
            direct.tokens_after,
        )


def store() -> None:
    import streamlit as st

    from dashboard.state import live

    live.store_rerun_result("a.json", ("sig",), st.session_state["result"])
    st.session_state["same"] = live.rerun_result("a.json")
    st.session_state["other"] = live.rerun_result("b.json")


def test_a_rerun_result_belongs_to_its_dump() -> None:
    at = run_script(store, state={"result": "the result"})
    assert at.session_state["same"] == (("sig",), "the result")
    assert at.session_state["other"] is None
