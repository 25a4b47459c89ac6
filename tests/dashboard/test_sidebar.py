"""The shared sidebar: one widget per setting, keyed so the session reads what it shows, labelled in the
session's language."""

from __future__ import annotations

from dashboard.state import keys
from tests.dashboard.conftest import run_script


def draw() -> None:
    from dashboard.sidebar import sidebar
    from dashboard.state import conversations, session

    session.init_session()
    conversations.init_items()
    sidebar()


class TestSidebar:
    def test_every_setting_has_its_widget(self) -> None:
        at = run_script(draw)
        for key in keys.SETTING_WIDGETS:
            widget = next(
                (
                    w
                    for kind in ("slider", "number_input", "radio", "selectbox")
                    for w in at.sidebar.get(kind)
                    if w.key == key
                ),
                None,
            )
            assert widget is not None, key
        assert at.sidebar.selectbox(key=keys.W_CONVERSATION).value == at.session_state[keys.W_CONVERSATION]

    def test_the_labels_follow_the_language(self) -> None:
        at = run_script(draw, query={"lang": "zh"})
        assert at.sidebar.subheader[0].value == "压缩器设置"
        assert at.sidebar.radio(key=keys.W_CAPACITY_MODE).options == ["输入数值", "模型窗口"]
        assert "16,000 token（手动设置）" in at.sidebar.caption[0].value
