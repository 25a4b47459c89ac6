"""Properties that hold for every conversation, not only the fixtures: spans, tool boundaries, the trigger
order, loaders on near-valid input, dump round trips and offline compaction (hypothesis)."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from compressor.analysis import analyze
from compressor.backends import OfflineBackend
from compressor.compactor import CurrentRoundCompressor
from compressor.config import CurrentRoundCompressorConfig
from compressor.dumps import LabExtension, build_dump_record, read_dump, write_dump
from compressor.errors import ConversationFormatError
from compressor.formats import load_conversations
from compressor.markers import INTERNAL_PREFIXES
from compressor.messages import ROLES, Conversation, Message, ToolDef
from compressor.spans import build_span, call_reach, effective_keep, effective_keep_from, last_user_index
from compressor.tokens import get_counter
from compressor.trigger import decide

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- strategies ------------------------------------------------------------------------------------

CALL_IDS = [f"call_{n}" for n in range(6)]
PATHS = ["src/app.py", "README.md", "node_modules/x.js", "docs/guide.md"]
words = st.text(alphabet="abcdefghij klmnop上下文\n", min_size=0, max_size=60)
#: Mostly short, sometimes long enough that compacting a span pays off.
long_texts = st.builds(
    lambda text, times: f"{text} " * times,
    st.text(alphabet="abcdefghij klmnop上下文\n", min_size=8, max_size=60),
    st.integers(1, 80),
)
texts = words | long_texts | long_texts


@st.composite
def user_messages(draw: st.DrawFn) -> Message:
    if draw(st.integers(0, 4)) == 0:  # a framework-injected message now and then
        prefix = draw(st.sampled_from(INTERNAL_PREFIXES))
        return Message(role="user", content=draw(st.sampled_from(["", "  ", "\n"])) + prefix + draw(words))
    if draw(st.booleans()):
        return Message(role="user", content=draw(words))
    return Message(role="user", content=[{"type": "text", "text": draw(words)}])


@st.composite
def assistant_messages(draw: st.DrawFn) -> Message:
    ids = draw(st.lists(st.sampled_from(CALL_IDS), max_size=3, unique=True))
    calls = []
    for call_id in ids:
        name = draw(st.sampled_from(["read_file", "bash"]))
        arguments = {"file_path": draw(st.sampled_from(PATHS))} if name == "read_file" else {"command": "ls"}
        calls.append({"id": call_id, "type": "function", "name": name, "arguments": json.dumps(arguments)})
    return Message.model_validate({"role": "assistant", "content": draw(texts), "tool_calls": calls or None})


@st.composite
def tool_messages(draw: st.DrawFn) -> Message:
    body = draw(texts)
    if draw(st.booleans()):
        body = json.dumps({"file_path": draw(st.sampled_from(PATHS)), "content": body})
    return Message(role="tool", tool_call_id=draw(st.sampled_from(CALL_IDS)), content=body)


#: Any mix of roles, calls answered before or after they are made, repeated ids, orphans: the lot.
messages_ = st.one_of(user_messages(), assistant_messages(), tool_messages())
contexts = st.lists(messages_, max_size=24)


@st.composite
def conversations(draw: st.DrawFn, min_messages: int = 0) -> Conversation:
    system = [Message(role="system", content=draw(words))] if draw(st.booleans()) else []
    tools = [ToolDef(name="read_file", parameters={"type": "object"})] if draw(st.booleans()) else []
    context = draw(st.lists(messages_, min_size=min_messages, max_size=24))
    return Conversation(system=system, messages=context, tools=tools)


@st.composite
def agent_runs(draw: st.DrawFn) -> Conversation:
    """Some history, a real user request, then a run of assistant and tool messages: a round to compact."""
    history = draw(conversations())
    request = Message(role="user", content=draw(words))
    work = draw(st.lists(st.one_of(assistant_messages(), tool_messages()), min_size=2, max_size=16))
    return history.with_messages([*history.messages, request, *work])


# -- direct restatements of the SPEC, written independently of the package -----------------------


def spec_effective_keep(messages: Sequence[Message], keep: int) -> int:
    """SPEC §3, step by step."""
    if keep <= 0 or not messages:
        return max(keep, 0)
    start = max(len(messages) - keep, 0)
    while True:
        ids = {m.tool_call_id for m in messages[start:] if m.role == "tool" and m.tool_call_id}
        if not ids:
            break
        found = next(
            (i for i in range(start) if messages[i].role == "assistant" and set(messages[i].call_ids) & ids),
            None,
        )
        if found is None:
            break
        start = found
    return len(messages) - start


def spec_reason(
    total: int, context_max: int, trigger_ratio: float, min_ratio: float, target: int | None
) -> tuple[str, dict[str, Any]]:
    """SPEC §8 steps 2–5: the reason and the fields its debug record carries."""
    threshold = max(int(context_max * trigger_ratio), 1)
    base = {"total_tokens": total, "context_max": context_max, "threshold": threshold}
    if total < threshold:
        return "below_threshold", {**base, "hit": False, "reason": "below_threshold"}
    if target is None:
        return "no_compressible_span", {**base, "hit": False, "reason": "no_compressible_span"}
    minimum = int(context_max * min_ratio)
    if target < minimum:
        record = {**base, "hit": False, "reason": "target_below_min", "target_tokens": target}
        return "target_below_min", {**record, "min_target_tokens": minimum}
    return "reached_threshold", {**base, "hit": True, "reason": "reached_threshold", "target_tokens": target}


def dumped(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages as data (Message equality also compares the private token cache, so compare this)."""
    return [m.to_openjiuwen() for m in messages]


def calls_of(messages: Sequence[Message]) -> dict[str, list[int]]:
    at: dict[str, list[int]] = {}
    for index, message in enumerate(messages):
        if message.role == "assistant":
            for call_id in message.call_ids:
                at.setdefault(call_id, []).append(index)
    return at


# -- spans -----------------------------------------------------------------------------------------


class TestSpansRebuildTheContext:
    @SETTINGS
    @given(messages=contexts, keep=st.integers(-3, 30))
    def test_unanchored_prefix_compress_and_tail_are_the_context_in_order(
        self, messages: list[Message], keep: int
    ) -> None:
        span = build_span(len(messages), last_user_index(messages), effective_keep(messages, keep))
        order = [span.unanchored, span.prefix, span.compress, span.tail]
        assert [i for start, end in order for i in range(start, end)] == list(range(len(messages)))
        assert all(start <= end for start, end in order)
        for index in range(len(messages)):
            segment = span.segment_of(index)
            start, end = getattr(span, segment)
            assert start <= index < end
        every = [span.segment_of(i) for i in range(len(messages))]
        assert span.segments(len(messages)) == every
        ends = range(len(messages) + 1)
        assert all(span.segments(end, begin) == every[begin:end] for end in ends for begin in range(end + 1))

    @SETTINGS
    @given(messages=contexts, keep=st.integers(-3, 30))
    def test_the_split_follows_spec_section_4(self, messages: list[Message], keep: int) -> None:
        last_user = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].is_real_user), -1)
        assert last_user_index(messages) == last_user
        kept = spec_effective_keep(messages, keep)
        split = max(len(messages) - kept, 0)
        span = build_span(len(messages), last_user, kept)
        if last_user < 0:
            assert (span.prefix, span.compress, span.tail, span.unanchored) == (
                (0, 0), (0, 0), (split, len(messages)), (0, split),
            )  # fmt: skip
        else:
            start = last_user + 1
            assert span.prefix == (0, start) and span.unanchored == (0, 0)
            assert span.compress == ((start, start) if split <= start else (start, split))
            assert span.tail == ((start, len(messages)) if split <= start else (split, len(messages)))
        # the compressed span never holds a real user request
        assert not any(messages[i].is_real_user for i in range(*span.compress))


class TestToolBoundary:
    @SETTINGS
    @given(messages=contexts, keep=st.integers(-3, 30))
    def test_effective_keep_is_spec_section_3(self, messages: list[Message], keep: int) -> None:
        assert effective_keep(messages, keep) == spec_effective_keep(messages, keep)

    @SETTINGS
    @given(messages=contexts, keep=st.integers(-3, 30))
    def test_the_reach_built_once_gives_the_same_keep(self, messages: list[Message], keep: int) -> None:
        # analyze() reads the boundary from call_reach, built once per conversation, not per setting
        assert effective_keep_from(call_reach(messages), keep) == spec_effective_keep(messages, keep)

    @SETTINGS
    @given(messages=contexts, keep=st.integers(-3, 30))
    def test_a_kept_tool_result_always_keeps_its_call(self, messages: list[Message], keep: int) -> None:
        kept = effective_keep(messages, keep)
        start = len(messages) - kept
        calls = calls_of(messages)
        for message in messages[start:]:
            if message.role == "tool" and kept > 0:
                assert all(index >= start for index in calls.get(str(message.tool_call_id), []))
        # and so compaction never strands a result: no call of a tail result sits in the compressed span
        span = build_span(len(messages), last_user_index(messages), kept)
        compressed = range(*span.compress)
        for message in messages[span.tail[0] : span.tail[1]]:
            if message.role == "tool":
                assert not any(i in compressed for i in calls.get(str(message.tool_call_id), []))

    @SETTINGS
    @given(messages=contexts, keep=st.integers(-3, 30))
    def test_the_boundary_only_moves_earlier(self, messages: list[Message], keep: int) -> None:
        kept = effective_keep(messages, keep)
        if keep <= 0 or not messages:
            assert kept == max(keep, 0)  # SPEC §3: nothing to widen, and openJiuwen returns keep as is
        else:
            assert min(keep, len(messages)) <= kept <= len(messages)
        # keeping more never keeps fewer: the start is monotone in ``keep``
        assert effective_keep(messages, keep + 1) >= kept


# -- the trigger -------------------------------------------------------------------------------------

ratios = st.floats(0.01, 0.99, allow_nan=False)
min_ratios = st.floats(0.0, 0.99, allow_nan=False)


class TestTriggerOrder:
    @SETTINGS
    @given(
        total=st.integers(0, 400_000),
        context_max=st.integers(1, 300_000),
        trigger_ratio=ratios,
        min_ratio=min_ratios,
        target=st.none() | st.integers(0, 300_000),
    )
    def test_the_first_failing_check_decides(
        self, total: int, context_max: int, trigger_ratio: float, min_ratio: float, target: int | None
    ) -> None:
        decision = decide(total, context_max, trigger_ratio, min_ratio, target)
        reason, record = spec_reason(total, context_max, trigger_ratio, min_ratio, target)
        assert decision.reason == reason
        assert decision.record() == record
        assert decision.hit == (reason == "reached_threshold")

    @SETTINGS
    @given(
        conversation=conversations(),
        keep=st.integers(0, 12),
        context_max=st.integers(1, 3_000),
        trigger_ratio=ratios,
        min_ratio=min_ratios,
    )
    def test_analyze_decides_by_the_same_rules_from_its_own_numbers(
        self, conversation: Conversation, keep: int, context_max: int, trigger_ratio: float, min_ratio: float
    ) -> None:
        config = CurrentRoundCompressorConfig(
            trigger_context_ratio=trigger_ratio, min_target_context_ratio=min_ratio, keep_recent_messages=keep
        )
        analysis = analyze(conversation, config, context_max=context_max)
        counter = get_counter("cl100k_base")
        compress = conversation.messages[analysis.span.compress[0] : analysis.span.compress[1]]
        target = counter.count(compress) if compress else None
        _, record = spec_reason(analysis.total_tokens, context_max, trigger_ratio, min_ratio, target)
        assert analysis.decision.record() == record
        if analysis.total_source == "counted":
            window = [*conversation.system, *conversation.messages]
            assert analysis.total_tokens == counter.count(window) + counter.count_tools(conversation.tools)


# -- loaders on near-valid input ---------------------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | st.text(max_size=6)
small_objects = st.dictionaries(st.text(max_size=4), scalars, max_size=3)
odd_values = scalars | small_objects | st.lists(scalars, max_size=2)
content_parts = st.one_of(
    st.text(max_size=8),
    st.builds(lambda text: {"type": "text", "text": text}, st.text(max_size=8)),
    st.builds(lambda url: {"type": "image_url", "image_url": {"url": url}}, st.text(max_size=8)),
    st.builds(lambda data: {"type": "input_audio", "data": data}, st.text(max_size=4)),
)
valid_contents = st.text(max_size=12) | st.none() | st.lists(content_parts, max_size=3)
valid_arguments = st.sampled_from(["", "{}", '{"file_path": "a.py"}', "not json"]) | st.none() | small_objects


@st.composite
def raw_tool_calls(draw: st.DrawFn) -> dict[str, Any]:
    """A call in the flat or the OpenAI nested form, arguments as text, an object or missing."""
    call_id, name = draw(st.sampled_from(["c1", "c2", "c3"])), draw(st.sampled_from(["read_file", "bash"]))
    if draw(st.booleans()):
        call: dict[str, Any] = {"id": call_id, "name": name}
        if draw(st.booleans()):
            call["arguments"] = draw(valid_arguments)
    else:
        function: dict[str, Any] = {"name": name}
        if draw(st.booleans()):
            function["arguments"] = draw(valid_arguments)
        call = {"id": call_id, "function": function}
    if draw(st.booleans()):
        call["type"] = draw(st.sampled_from(["function", None]))
    return call


#: Where a near-valid message goes wrong (one fault at most, about one message in six).
FAULTS = ["role", "content", "tool_calls", "call_field", "tool_call_id", "usage", "metadata", "calls_on_user"]


@st.composite
def raw_messages(draw: st.DrawFn) -> dict[str, Any]:
    role = draw(st.sampled_from(ROLES))
    message: dict[str, Any] = {"role": role, "content": draw(valid_contents)}
    if role == "assistant" and draw(st.booleans()):
        message["tool_calls"] = draw(st.lists(raw_tool_calls(), max_size=3))
    if role == "assistant" and draw(st.booleans()):
        message["usage_metadata"] = {"total_tokens": draw(st.integers(0, 10**6))}
        message["metadata"] = {"context_usage_stale": draw(st.booleans())}
    if role == "tool":
        message["tool_call_id"] = draw(st.sampled_from(["c1", "c2", "c9"]))
    if draw(st.booleans()):
        message["extra_field"] = draw(scalars | small_objects)  # unknown fields are kept
    if draw(st.integers(0, 5)) == 0:
        fault = draw(st.sampled_from(FAULTS))
        if fault == "role":
            message["role"] = draw(
                st.sampled_from(["developer", "function", "model", "", "USER"]) | odd_values
            )
        elif fault == "content":
            message["content"] = draw(odd_values | st.lists(odd_values, min_size=1, max_size=2))
        elif fault == "tool_calls":
            message["tool_calls"] = draw(odd_values | st.lists(odd_values, min_size=1, max_size=2))
        elif fault == "call_field":
            call = draw(raw_tool_calls())
            call[draw(st.sampled_from(["id", "name", "function", "arguments", "type"]))] = draw(odd_values)
            message.update(role="assistant", tool_calls=[call])
        elif fault == "tool_call_id":
            message.update(role="tool", tool_call_id=draw(odd_values))
        elif fault == "usage":
            message["usage_metadata"] = draw(
                odd_values | st.builds(lambda v: {"total_tokens": v}, odd_values)
            )
        elif fault == "metadata":
            message["metadata"] = draw(odd_values)
        else:
            message["tool_calls"] = [draw(raw_tool_calls())]
    return message


raw_tools = st.one_of(
    st.builds(lambda name: {"name": name, "parameters": {"type": "object"}}, st.sampled_from(["f", "g"])),
    st.builds(lambda name: {"type": "function", "function": {"name": name}}, st.sampled_from(["f", ""])),
    st.builds(lambda schema: {"name": "h", "input_schema": schema}, small_objects),
    odd_values,
)
documents = st.one_of(
    st.lists(raw_messages(), min_size=1, max_size=5),
    st.builds(lambda ms, tools: {"messages": ms, "tools": tools}, st.lists(raw_messages(), min_size=1, max_size=5),
              st.lists(raw_tools, max_size=2)),
    st.lists(st.builds(lambda ms: {"messages": ms}, st.lists(raw_messages(), min_size=1, max_size=3)),
             min_size=1, max_size=2),
)  # fmt: skip


class TestLoadersOnNearValidConversations:
    @SETTINGS
    @given(document=documents)
    def test_only_conversation_format_errors_escape_and_what_loads_is_valid(self, document: Any) -> None:
        text = json.dumps(document, ensure_ascii=False)
        jsonl = "\n".join(json.dumps(item) for item in document) if isinstance(document, list) else None
        for source, name in ((document, None), (text, None), (text.encode("utf-8"), "upload.json"),
                             (jsonl, "upload.jsonl")):  # fmt: skip
            if source is None:
                continue
            try:
                loaded = load_conversations(source, name=name)
            except ConversationFormatError as error:
                assert "\n" not in str(error) and error.problem
                event("refused")
                continue
            event("loaded")
            assert loaded
            for conversation in loaded:
                assert all(m.role in ROLES for m in [*conversation.system, *conversation.messages])
                assert all(m.role == "system" for m in conversation.system)
                assert all(m.tool_call_id for m in conversation.messages if m.role == "tool")

    @SETTINGS
    @given(document=documents)
    def test_what_loads_round_trips_through_openjiuwen_json(self, document: Any) -> None:
        try:
            loaded = load_conversations(document)
        except ConversationFormatError:
            return
        for conversation in loaded:
            exported = json.dumps(conversation.to_openjiuwen())  # as text: NaN is kept but unequal to itself
            (again,) = load_conversations(exported)
            assert json.dumps(again.to_openjiuwen()) == exported


# -- dumps -----------------------------------------------------------------------------------------

session_ids = st.text(min_size=0, max_size=20)
usages = st.none() | st.fixed_dictionaries(
    {"total_tokens": st.integers(0, 10**6)}, optional={"prompt_tokens": st.integers(0, 10**6)}
)


class TestDumpsRoundTrip:
    @FEW
    @given(
        conversation=conversations(min_messages=2),
        cut=st.data(),
        session_id=session_ids,
        context_id=session_ids,
        prompt=st.text(max_size=40),
        reply=st.text(max_size=40),
        usage=usages,
        timestamp=st.floats(1_000_000_000, 4_000_000_000, allow_nan=False),
        ours=st.booleans(),
    )
    def test_build_write_read_gives_back_every_field_and_both_contexts(
        self, conversation: Conversation, cut: st.DataObject, session_id: str, context_id: str,
        prompt: str, reply: str, usage: dict[str, Any] | None, timestamp: float, ours: bool,
    ) -> None:  # fmt: skip
        context = conversation.messages
        prefix = cut.draw(st.integers(0, len(context) - 1))
        split = cut.draw(st.integers(prefix + 1, len(context)))
        tail = context[split:]
        memory = Message(role="user", content=f"<memory_block_current>\n{reply}\n</memory_block_current>")
        after = [*context[:prefix], memory, *tail]
        sent = [*conversation.system, *context[:split], Message(role="user", content=prompt)]
        record = build_dump_record(
            session_id=session_id, context_id=context_id, context_max=200_000, tokens_before=900,
            target_tokens=500, span_counts=(prefix, split - prefix, len(tail)), prompt=prompt,
            system_messages_count=len(conversation.system), tools=conversation.tools, messages_sent_to_model=sent,
            raw_content=reply, extracted_summary=reply.strip(), usage=usage, context_after=after, tokens_after=400,
            timestamp=timestamp,
            extension=LabExtension(backend="offline (extractive)", counter="cl100k_base",
                                   original_messages=context, attempts=1) if ours else None,
        )  # fmt: skip
        with tempfile.TemporaryDirectory() as folder:
            path = write_dump(folder, record)
            assert path.parent == Path(folder) and path.name.startswith(f"{int(timestamp * 1000)}_")
            dump = read_dump(path)
            assert json.loads(path.read_text(encoding="utf-8")) == record
        assert (dump.session_id, dump.context_id, dump.timestamp) == (session_id, context_id, timestamp)
        assert (dump.prefix_count, dump.compress_count, dump.tail_count) == (
            prefix,
            split - prefix,
            len(tail),
        )
        assert (dump.prompt, dump.raw_content, dump.extracted_summary, dump.usage) == (
            prompt, reply, reply.strip(), usage,
        )  # fmt: skip
        assert (dump.tokens_before, dump.tokens_after, dump.reduction) == (900, 400, 500)
        assert dump.system_messages_count == len(conversation.system)
        assert list(dump.tools) == list(conversation.tools)
        assert dumped(dump.before) == dumped(context)
        assert dumped(dump.after) == dumped(after)
        assert dump.memory_message is not None and dump.memory_message.text == memory.text
        assert dump.backend == ("offline (extractive)" if ours else None)


# -- offline compaction ------------------------------------------------------------------------------


class TestOfflineCompaction:
    @FEW
    @given(
        conversation=agent_runs() | agent_runs() | conversations(),
        keep=st.integers(0, 4),
        force=st.booleans(),
        context_max=st.integers(50, 5_000),
    )
    def test_never_mutates_and_a_compaction_is_prefix_memory_reinjection_tail(
        self, conversation: Conversation, keep: int, force: bool, context_max: int
    ) -> None:
        before = conversation.model_dump(mode="json")
        messages_list = conversation.messages
        config = CurrentRoundCompressorConfig(keep_recent_messages=keep, trigger_context_ratio=0.5)
        compressor = CurrentRoundCompressor(config, OfflineBackend(), context_max=context_max)
        result = asyncio.run(compressor.compact(conversation, force=force))

        assert conversation.model_dump(mode="json") == before
        assert conversation.messages is messages_list and len(messages_list) == len(before["messages"])
        context = conversation.messages
        counter = get_counter("cl100k_base")
        assert result.tokens_before == counter.count(context)
        assert result.status in ("compacted", "skipped", "no_benefit")  # offline never fails
        event(f"{result.status}: {result.reason}")
        if result.status != "compacted":
            assert dumped(result.messages) == dumped(context)
            assert result.tokens_after >= result.tokens_before or result.status == "skipped"
            return
        assert result.analysis.span.has_compressible and (force or result.analysis.decision.hit)
        prefix_count, compress_count, tail_count = result.span_counts
        assert prefix_count + compress_count + tail_count == len(context) and compress_count > 0
        new = list(result.messages)
        assert dumped(new[:prefix_count]) == dumped(context[:prefix_count])
        assert dumped(new[len(new) - tail_count :]) == dumped(context[len(context) - tail_count :])
        middle = new[prefix_count : len(new) - tail_count]
        assert middle[0].role == "user" and middle[0].text.startswith("<memory_block_current>")
        assert len(middle) in (1, 2)
        if len(middle) == 2:
            assert middle[1].role == "user" and middle[1].text.startswith("<recovered_context>")
            assert result.reinjection_tokens > 0
            event("reinjected")
        assert result.tokens_after == counter.count(new) < result.tokens_before
        assert result.conversation.system == conversation.system
        assert result.conversation.tools == conversation.tools
        assert dumped(result.conversation.messages) == dumped(new)
