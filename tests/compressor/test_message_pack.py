"""The packed message store (``compressor.message_pack``): a pack reads back exactly the messages put in, counts
included, and every analysis of a packed run equals the same run held as a list of messages."""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path

import pytest

from compressor.analysis import analyze
from compressor.config import CurrentRoundCompressorConfig
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversation, load_conversations
from compressor.formats.building import build_message
from compressor.formats.problems import Loc
from compressor.message_pack import MessagePack
from compressor.messages import Conversation, Message
from compressor.replay import simulate, sweep
from compressor.tokens import get_counter, profile
from tests.conftest import TRANSCRIPTS, fixture

TAU_BENCH = TRANSCRIPTS / "openai-chat-tau-bench-airline.json"


def mixed() -> list[Message]:
    return [
        Message(role="system", content="be brief"),
        Message(role="user", content="hello"),
        Message(role="assistant", content="", tool_calls=[{"id": "c1", "name": "ls", "arguments": "{}"}]),
        Message(role="tool", content="a.txt", tool_call_id="c1"),
        Message(role="assistant", content="done", name="agent"),  # a set field: kept as itself
        Message(role="user", content=[{"type": "text", "text": "parts"}]),  # list content: as itself
        Message(role="user", content="again", extra_field=3),  # an unknown field: as itself
        Message(role="user", content="<system-reminder>x</system-reminder>"),
        Message(role="assistant", content="plain reply"),
    ]


def packed_as_lists(conversation: Conversation) -> Conversation:
    assert isinstance(conversation.messages, MessagePack)
    return conversation.model_copy(update={"messages": list(conversation.messages)})


class TestReadBack:
    def test_every_message_reads_back_equal_with_its_fields_in_order(self) -> None:
        originals = mixed()
        pack = MessagePack(originals)
        assert len(pack) == len(originals)
        for built, original in zip(pack, originals, strict=True):
            assert built == original
            assert list(built.__dict__) == list(original.__dict__)
            assert built.__pydantic_fields_set__ == original.__pydantic_fields_set__
            assert built.model_dump() == original.model_dump()
            assert built.is_real_user == original.is_real_user
        assert pack == originals and originals == list(pack)
        assert pack[-1] == originals[-1] and list(reversed(pack)) == originals[::-1]

    def test_only_plain_messages_are_packed(self) -> None:
        originals = mixed()
        pack = MessagePack(originals)
        kept_as_themselves = [i for i, original in enumerate(originals) if pack[i] is original]
        assert kept_as_themselves == [2, 3, 4, 5, 6]

    def test_a_slice_is_a_pack_and_out_of_range_is_an_index_error(self) -> None:
        pack = MessagePack(mixed())
        part = pack[1:4]
        assert isinstance(part, MessagePack) and part == mixed()[1:4]
        extra = Message(role="user", content="x")
        assert pack + [extra] == [*mixed(), extra]  # noqa: RUF005 (the operator is what is tested)
        with pytest.raises(IndexError):
            pack[len(pack)]

    def test_counts_are_kept_for_the_next_read(self) -> None:
        conversation = Conversation(messages=MessagePack(mixed()[1:]))
        counted = profile(conversation, "cl100k_base").tokens
        counter = get_counter("cl100k_base")
        assert tuple(counter.message_tokens(m) for m in mixed()[1:]) == counted
        assert [m._tokens for m in conversation.messages] == [{"cl100k_base": t} for t in counted]

    def test_pickles_and_copies_are_equal_and_keep_the_packed_counts(self) -> None:
        fields = {"role", "content"}
        plain = [m for m in mixed() if m.__pydantic_fields_set__ == fields and isinstance(m.content, str)]
        conversation = Conversation(messages=MessagePack(plain))
        profile(conversation, "cl100k_base")
        for copied in (pickle.loads(pickle.dumps(conversation)), copy.deepcopy(conversation)):
            assert copied == conversation
            assert [m._tokens for m in copied.messages] == [m._tokens for m in conversation.messages]


class TestConversation:
    def test_a_pack_stays_a_pack_and_dumps_as_a_list_would(self) -> None:
        messages = mixed()
        packed = Conversation.from_messages(MessagePack(messages))
        listed = Conversation.from_messages(messages)
        assert isinstance(packed.messages, MessagePack)
        assert packed == listed
        assert packed.model_dump() == listed.model_dump()
        assert packed.model_dump_json() == listed.model_dump_json()
        assert packed.to_openjiuwen() == listed.to_openjiuwen()

    def test_the_loader_packs_a_chat_file(self, tmp_path: Path) -> None:
        path = tmp_path / "chat.json"
        path.write_text(json.dumps([m.model_dump(exclude_unset=True) for m in mixed()]), encoding="utf-8")
        loaded = load_conversation(path)
        assert isinstance(loaded.messages, MessagePack)
        assert list(loaded.messages) == mixed()[1:] and loaded.system == mixed()[:1]

    def test_plain_objects_are_packed_unbuilt_and_read_back_as_built(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        objects = [m.model_dump(exclude_unset=True) for m in mixed()]
        objects += [
            {"role": "developer", "content": "an alias"},
            {"content": "role last", "role": "assistant"},
        ]
        expected = [build_message(o, Loc(), lean=False) for o in objects]
        path = tmp_path / "chat.json"
        path.write_text(json.dumps(objects), encoding="utf-8")
        validated: list[object] = []
        original = Message.model_validate.__func__  # type: ignore[attr-defined]

        def counting(cls: type[Message], data: object, *args: object, **kwargs: object) -> Message:
            validated.append(data)
            return original(cls, data, *args, **kwargs)

        monkeypatch.setattr(Message, "model_validate", classmethod(counting))
        loaded = load_conversation(path)
        plain = [
            o
            for o in objects
            if set(o) == {"role", "content"} and isinstance(o["content"], str) and o["role"] != "developer"
        ]
        assert len(plain) == 5 and all(o not in validated for o in plain)
        assert len(validated) == len(objects) - len(plain)  # the rest are built, aliases and tool results too
        for built, wanted in zip([*loaded.system, *loaded.messages], expected, strict=True):
            assert built == wanted and list(built.__dict__) == list(wanted.__dict__)
            assert built.__pydantic_fields_set__ == wanted.__pydantic_fields_set__
        with pytest.raises(ConversationFormatError, match="tool message without tool_call_id"):
            path.write_text(json.dumps([{"role": "user", "content": "x"}, {"role": "tool", "content": "y"}]))
            load_conversation(path)


class TestSameAnalysis:
    """A packed run and the same run held as a list give the same numbers everywhere."""

    def test_analyze_simulate_and_sweep_agree_on_the_tau_bench_runs(self) -> None:
        runs = load_conversations(fixture(TAU_BENCH))[:20]
        assert any(isinstance(run.messages, MessagePack) for run in runs)
        for run in runs:
            listed = packed_as_lists(run)
            assert analyze(run, context_max=4_000).to_dict() == analyze(listed, context_max=4_000).to_dict()
            config = CurrentRoundCompressorConfig(trigger_context_ratio=0.5)
            assert (
                simulate(run, config, context_max=4_000, summary="ratio:0.1").outcome
                == simulate(listed, config, context_max=4_000, summary="ratio:0.1").outcome
            )
            grid = {"ratios": [0.3, 0.6], "keeps": [0, 2], "context_max": 4_000, "summary": "offline"}
            assert sweep(run, **grid).outcomes == sweep(listed, **grid).outcomes  # type: ignore[arg-type]
