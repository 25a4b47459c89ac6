"""Lean messages: token counts in one slot, one shared empty ``extra``, fields in a key-sharing dict, and a loader
that lets raw values go."""

from __future__ import annotations

import copy
import json
import pickle
import sys
from typing import Any

import pytest

from compressor.formats.building import build_message, taking
from compressor.formats.problems import Loc
from compressor.formats.shape import Objects, Shape
from compressor.message_storage import cached_count, keep_count, lean_copy, token_counts
from compressor.messages import Conversation, Message, ToolCall
from compressor.tokens import _token_cache, get_counter


class TestTokenCounts:
    def test_counts_are_kept_per_counter_and_none_before(self) -> None:
        message = Message(role="user", content="hello there")
        assert cached_count(message, "cl100k_base") is None and message._tokens is None
        keep_count(message, "cl100k_base", 4)
        keep_count(message, "my-counter", 9)
        assert cached_count(message, "cl100k_base") == 4 and cached_count(message, "my-counter") == 9
        assert cached_count(message, "o200k_base") is None
        assert token_counts(message) == {"cl100k_base": 4, "my-counter": 9} == message._tokens

    @pytest.mark.parametrize(
        "order", [("string_length", "o200k_base", "x"), ("x", "cl100k_base", "o200k_base")]
    )
    def test_any_order_of_counters_keeps_every_count(self, order: tuple[str, ...]) -> None:
        message = Message(role="user", content="hello there")
        for tokens, counter in enumerate(order, start=1):
            keep_count(message, counter, tokens)
            keep_count(message, counter, tokens)  # kept again: the same count, not a second entry
        assert token_counts(message) == {counter: tokens for tokens, counter in enumerate(order, start=1)}
        assert [cached_count(message, counter) for counter in order] == [1, 2, 3]
        assert cached_count(message, "unknown") is None

    def test_the_mapping_view_reads_and_writes_the_same_counts(self) -> None:
        message = Message(role="assistant", content="done")
        cache = _token_cache(message)
        assert dict(cache) == {} and cache.get("cl100k_base") is None
        cache["o200k_base"] = 3
        assert cached_count(message, "o200k_base") == 3 and "o200k_base" in cache and len(cache) == 1
        with pytest.raises(TypeError):
            del cache["o200k_base"]

    def test_a_message_holds_no_private_dict(self) -> None:
        message = Message(role="user", content="x")
        get_counter("cl100k_base").message_tokens(message)
        assert message.__pydantic_private__ is None
        assert cached_count(message, "cl100k_base") == get_counter("cl100k_base").tok(
            "<|start|>user\nx<|end|>"
        )

    @pytest.mark.parametrize(
        "make",
        [copy.copy, copy.deepcopy, Message.model_copy, lambda m: pickle.loads(pickle.dumps(m))],
        ids=["copy", "deepcopy", "model_copy", "pickle"],
    )
    def test_copies_start_without_counts_and_equal_the_original(self, make: object) -> None:
        original = Message(role="user", content="count me", name="ada")
        get_counter("cl100k_base").message_tokens(original)
        copied = make(original)  # type: ignore[operator]
        assert copied == original and token_counts(copied) == {}
        assert token_counts(original) != {}


FULL: dict[str, Any] = {
    "role": "assistant",
    "content": [{"type": "text", "text": "looking"}, {"type": "image_url", "image_url": {"url": "u"}}],
    "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}],
    "name": "agent",
    "usage_metadata": {"total_tokens": 120},
    "metadata": {"turn": 3},
    "finish_reason": "tool_calls",
}


class TestFieldsInAKeySharingDict:
    @pytest.mark.parametrize("data", [{"role": "user", "content": "ok 1"}, FULL], ids=["short", "full"])
    def test_a_message_is_the_value_pydantic_builds(self, data: dict[str, Any]) -> None:
        message = Message.model_validate(data)
        own = dict(message.__dict__)  # a dict of its own, as pydantic builds one
        assert list(message.__dict__) == list(Message.model_fields) == list(own)
        assert message == Message.model_validate(data) and message.__dict__ == own
        assert message.model_dump() == Message.model_validate(message.model_dump()).model_dump()
        assert json.loads(message.model_dump_json()) == message.model_dump(mode="json")
        assert list(message.model_dump()) == [*Message.model_fields, *(message.model_extra or {})]
        assert repr(message).startswith("Message(role='") and "content=" in repr(message)
        assert message.model_fields_set == set(data)  # pydantic counts the unknown fields as set too

    def test_its_dict_shares_the_keys_and_is_smaller(self) -> None:
        a, b = Message(role="user", content="a"), Message(role="assistant", content="b", name="n")
        assert sys.getsizeof(a.__dict__) < sys.getsizeof(dict(a.__dict__))
        assert sys.getsizeof(b.__dict__) < sys.getsizeof(dict(b.__dict__))

    @pytest.mark.parametrize(
        "make",
        [
            copy.copy,
            copy.deepcopy,
            Message.model_copy,
            lambda m: m.model_copy(deep=True),
            lambda m: pickle.loads(pickle.dumps(m)),
            lambda m: Message.model_validate_json(m.model_dump_json()),
            lambda m: Message.model_construct(**{key: getattr(m, key) for key in m.model_fields_set}),
        ],
        ids=["copy", "deepcopy", "model_copy", "deep_model_copy", "pickle", "json", "construct"],
    )
    def test_copies_and_round_trips_equal_the_original(self, make: Any) -> None:
        original = Message.model_validate(FULL)
        copied = make(original)
        assert copied == original and copied.model_dump() == original.model_dump()
        assert copied.to_openjiuwen() == original.to_openjiuwen() == {**FULL, "content": FULL["content"]}

    def test_a_copy_with_changes_changes_only_itself(self) -> None:
        original = Message(role="user", content="before")
        changed = original.model_copy(update={"content": "after", "metadata": {"k": 1}})
        assert (changed.content, changed.metadata) == ("after", {"k": 1})
        assert (original.content, original.metadata) == ("before", None)
        assert Message(role="user", content="before") == original != changed

    def test_frozen_and_validated_as_before(self) -> None:
        message = Message(role="user", content="x")
        with pytest.raises(ValueError, match="frozen"):
            message.content = "y"
        with pytest.raises(ValueError, match="tool_call_id"):
            Message(role="tool", content="x")
        assert message.content == "x" and message.text == "x"

    def test_tool_calls_share_keys_too(self) -> None:
        call = ToolCall(id="c1", name="bash", arguments="{}")
        assert sys.getsizeof(call.__dict__) < sys.getsizeof(dict(call.__dict__))
        assert call == ToolCall.model_validate(call.openai()) and call.flat()["name"] == "bash"


class TestLoadersMessagesKeepTheirFieldsThemselves:
    @pytest.mark.parametrize("data", [{"role": "user", "content": "ok 1"}, FULL], ids=["short", "full"])
    def test_a_built_message_is_the_validated_one(self, data: dict[str, Any]) -> None:
        validated = Message.model_validate(data)
        built = build_message(dict(data), Loc())
        assert type(built) is Message and built == validated and validated == built
        assert built.role == validated.role and built.content == validated.content and built.text
        assert built.model_dump() == validated.model_dump() and repr(built) == repr(validated)
        assert built.model_dump_json() == validated.model_dump_json()
        assert list(built.__dict__.items()) == list(validated.__dict__.items())
        assert (
            built.model_fields_set == validated.model_fields_set
            and built.model_extra == validated.model_extra
        )
        assert built.to_openjiuwen() == validated.to_openjiuwen()

    @pytest.mark.parametrize(
        "make",
        [copy.copy, copy.deepcopy, lambda m: m.model_copy(update={"content": "z"}), pickle.dumps],
        ids=["copy", "deepcopy", "model_copy", "pickle"],
    )
    def test_copies_and_pickles_read_it_as_any_message(self, make: Any) -> None:
        built, validated = lean_copy(Message.model_validate(FULL)), Message.model_validate(FULL)
        assert make(built) == make(validated)
        assert built == validated and built.to_openjiuwen() == validated.to_openjiuwen()

    def test_frozen_counted_and_copied_without_counts(self) -> None:
        built = build_message({"role": "user", "content": "count me"}, Loc())
        with pytest.raises(ValueError, match="frozen"):
            built.content = "other"
        tokens = get_counter("cl100k_base").message_tokens(built)
        assert cached_count(built, "cl100k_base") == tokens and token_counts(copy.copy(built)) == {}

    def test_an_unusual_model_is_handed_back_as_it_is(self) -> None:
        odd = Message.model_construct(role="user", content="x")
        object.__setattr__(odd, "__dict__", {"role": "user", "content": "x"})
        assert lean_copy(odd) is odd


class TestTheLoadersListsGo:
    def test_a_taken_list_ends_empty(self) -> None:
        values = list(VALUES)
        assert [item for _, item in taking(values, Loc())] == list(VALUES) and values == []

    def test_a_conversation_never_holds_its_callers_list(self) -> None:
        given = [Message(role="system", content="s"), Message(role="user", content="u")]
        conversation = Conversation.from_messages(given)
        assert conversation.messages is not given and conversation.system is not given
        given.append(Message(role="assistant", content="late"))
        assert [m.content for m in conversation.messages] == ["u"] and len(given) == 3
        only = [Message(role="user", content="u")]
        assert Conversation.from_messages(only).messages is not only


class TestSharedEmptyExtra:
    def test_messages_without_unknown_fields_share_one_empty_extra(self) -> None:
        a, b = Message(role="user", content="a"), Message(role="assistant", content="b")
        assert a.model_extra == {} and a.model_extra is b.model_extra

    def test_a_copy_that_adds_an_unknown_field_adds_it_to_itself_only(self) -> None:
        a, b = Message(role="user", content="a"), Message(role="assistant", content="b")
        changed = a.model_copy(update={"finish_reason": "stop"})
        assert changed.model_extra == {"finish_reason": "stop"}
        assert (
            a.model_extra == {}
            and b.model_extra == {}
            and Message(role="user", content="c").model_extra == {}
        )
        assert changed.to_openjiuwen()["finish_reason"] == "stop" and "finish_reason" not in a.to_openjiuwen()

    def test_unknown_fields_are_kept_on_their_own_message(self) -> None:
        kept = Message.model_validate({"role": "user", "content": "x", "uuid": "u1"})
        assert kept.model_extra == {"uuid": "u1"} and Message(role="user", content="y").model_extra == {}
        assert Message.model_validate_json(kept.model_dump_json()) == kept


VALUES: tuple[object, ...] = ({"a": 1}, "text", {"b": 2}, 3, {"c": 3}, {"d": 4})


class TestObjectsView:
    def test_reads_the_objects_in_order(self) -> None:
        objects = Objects(list(VALUES))
        assert list(objects) == [{"a": 1}, {"b": 2}, {"c": 3}, {"d": 4}]
        assert len(objects) == 4 and bool(objects)
        assert objects[0] == {"a": 1} and objects[3] == {"d": 4} and objects[-1] == {"d": 4}
        assert objects[:2] == [{"a": 1}, {"b": 2}] and objects[1:3] == [{"b": 2}, {"c": 3}]
        assert objects[:50] == list(objects) and objects[::2] == [{"a": 1}, {"c": 3}]
        with pytest.raises(IndexError):
            objects[4]

    def test_an_array_without_objects_is_falsy(self) -> None:
        assert not Objects(["a", 1, None]) and len(Objects([])) == 0

    def test_a_consumed_array_holds_no_object_any_more(self) -> None:
        values = list(VALUES)
        shape = Shape.of_array(values, "run", consume=True)
        assert shape.any_has("c")
        taken = [item for _, item in taking(values, Loc())]
        assert taken == list(VALUES)
        assert list(shape.objects) == [] and not shape.any_has("c")


class TestInternalTurnsReadWithoutCopies:
    @pytest.mark.parametrize("space", ["", " ", "\n\t ", "\u00a0", "\u3000\u2003", "\x1c\x85"])
    def test_leading_space_is_skipped_as_lstrip_skips_it(self, space: str) -> None:
        internal = Message(role="user", content=f"{space}<system-reminder>x</system-reminder>")
        real = Message(role="user", content=f"{space}fix it")
        assert internal.is_internal and not internal.is_real_user
        assert real.is_real_user and not real.is_internal
        assert internal.is_real_user == (not str(internal.content).lstrip().startswith("<system-reminder>"))


class TestToolCallsShareTheEmptyExtra:
    def test_calls_without_unknown_fields_share_it_and_others_keep_theirs(self) -> None:
        message = Message.model_validate(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "a", "name": "bash"}, {"id": "b", "name": "grep", "index": 1}],
            }
        )
        first, second = message.tool_calls or []
        assert first.model_extra == {} and second.model_extra == {"index": 1}
        assert first.model_extra is Message(role="user", content="x").model_extra
        assert first.model_copy(update={"index": 3}).model_extra == {"index": 3} and first.model_extra == {}
