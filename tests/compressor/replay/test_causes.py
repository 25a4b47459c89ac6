"""The eight causes (A–H) that kept whole-run replays from matching openJiuwen, each pinned by a minimal run.

Every number here is a fact of SPEC §5, §6, §6b, §10.6 or §12 (measured on openJiuwen 0.1.19.post2), or follows
from one by the arithmetic written next to it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from compressor.config import CurrentRoundCompressorConfig
from compressor.messages import Conversation, Message
from compressor.prompt import memory_message
from compressor.reinjection import WITH_CLAUDE_CODE_READ, build_reinjection
from compressor.replay import simulate
from compressor.replay.index import filler
from compressor.tokens import get_counter, window_total
from compressor.upstream_sizing import ReadEntry, memory_tokens, reinjection_tokens

FILLER = "alpha beta gamma delta " * 40  # ~160 cl100k tokens of tool output


def config(ratio: float = 0.5) -> CurrentRoundCompressorConfig:
    return CurrentRoundCompressorConfig(trigger_context_ratio=ratio, min_target_context_ratio=0.0)


def run(*messages: dict[str, Any]) -> Conversation:
    return Conversation.from_messages(list(messages), name="minimal")


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def calls(*calls: tuple[str, str, dict[str, Any]], **extra: Any) -> dict[str, Any]:
    made = [
        {"id": cid, "type": "function", "name": name, "arguments": json.dumps(args)}
        for cid, name, args in calls
    ]
    return {"role": "assistant", "content": "", "tool_calls": made, **extra}


def result(call_id: str, content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def say(text: str = "ok") -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def compacting_run(*middle: dict[str, Any]) -> Conversation:
    """A request, the given messages, a large tool result, then one more call point: the compaction happens there."""
    return run(user("fix it"), *middle, calls(("z", "bash", {"cmd": "make"})), result("z", FILLER * 3), say())


class TestAMemoryBlock:
    """A: the replay sizes each memory block as openJiuwen's, not as our own (longer) wording."""

    SUMMARY = "### 1. Active Task\n" + " ".join(f"fact{j}" for j in range(20))

    def test_cl100k_and_o200k(self) -> None:
        for name in ("cl100k_base", "o200k_base"):
            counter = get_counter(name)
            assert memory_tokens(counter, self.SUMMARY) == 95 + counter.tok(">\n" + self.SUMMARY + "\n") + 12
        cl100k = get_counter("cl100k_base")
        assert counter_ours(cl100k, self.SUMMARY) - memory_tokens(cl100k, self.SUMMARY) == 23

    def test_string_length(self) -> None:
        counter = get_counter("string_length")
        assert memory_tokens(counter, self.SUMMARY) == (474 + len(self.SUMMARY)) // 3

    def test_the_summary_is_encoded_with_its_neighbours(self) -> None:
        counter = get_counter("cl100k_base")
        # a final full stop merges with the newline after it: fewer tokens than the pieces apart
        assert counter.tok(">\ndone.\n") < counter.tok(">\n") + counter.tok("done.") + counter.tok("\n")
        assert memory_tokens(counter, "done.") == 95 + counter.tok(">\ndone.\n") + 12

    def test_data_urls_in_the_summary_are_replaced_first(self) -> None:
        counter = get_counter("string_length")
        shown = "see data:image/png;base64,AAAA"
        assert memory_tokens(counter, shown) == (474 + len("see [image:data-url-omitted]")) // 3

    def test_the_replay_counts_openjiuwens_block(self) -> None:
        counter = get_counter("cl100k_base")
        simulation = simulate(compacting_run(), config(), context_max=1000, summary="fixed:40")
        (event,) = simulation.events
        assert event.memory_tokens == memory_tokens(counter, filler(counter, 40))
        assert event.memory_tokens < counter.message_tokens(memory_message(filler(counter, 40)))


def counter_ours(counter: Any, summary: str) -> int:
    return int(counter.message_tokens(memory_message(summary)))


class TestBRecoveredContext:
    """B: the recovered-context message is sized as openJiuwen's (instruction, note, markers are its own)."""

    CONTENT = "import os\n" * 30

    def test_one_file(self) -> None:
        counter = get_counter("cl100k_base")
        entry = ReadEntry("src/a.py", "30", False, self.CONTENT)
        body = f"Recently read file: src/a.py\nLines returned: 30\n\n{self.CONTENT}".strip()
        assert reinjection_tokens(counter, [], [entry]) == 54 + 6 + counter.tok(body + "\n") + 12

    def test_a_partial_read_prices_its_note(self) -> None:
        counter = get_counter("cl100k_base")
        entry = ReadEntry("src/a.py", "30", True, self.CONTENT)
        # the 43-character note costs 9 tokens besides its final "." (kept to merge with the newline after it)
        body = f"Recently read file: src/a.py\nLines returned: 30\n.\n\n{self.CONTENT}".strip()
        assert reinjection_tokens(counter, [], [entry]) == 54 + 6 + counter.tok(body + "\n") + 12 + 9

    def test_string_length(self) -> None:
        counter = get_counter("string_length")
        entry = ReadEntry("src/a.py", "30", True, self.CONTENT)
        body = f"Recently read file: src/a.py\nLines returned: 30\n{'n' * 43}\n\n{self.CONTENT}".strip()
        assert reinjection_tokens(counter, [], [entry]) == (318 + len(body)) // 3

    def test_a_cap_through_a_note_prices_its_pieces(self) -> None:
        counter = get_counter("cl100k_base")
        # the section cap keeps the first 6,000 characters: the second file's note starts 10 characters before
        first = "Recently read file: a\nLines returned: 1\n\n" + "x" * 5900
        second = "Recently read file: pppppppp\nLines returned: 1\n"
        assert len(first) + 2 + len(second) == 5990
        entries = [ReadEntry("a", "1", False, "x" * 5900), ReadEntry("pppppppp", "1", True, "y" * 7000)]
        # k = 10 characters of the note stay before the cut marker: "x" in the text and H(10) = 2 tokens
        cut = "\n...[STATE_REINJECTION_TRUNCATED]...\n"
        body = f"{first}\n\n{second}x{cut}" + "y" * 6000
        assert reinjection_tokens(counter, [], entries) == 54 + 6 + counter.tok(body + "\n") + 12 + 2

    def test_the_replay_counts_openjiuwens_message(self) -> None:
        counter = get_counter("cl100k_base")
        conversation = compacting_run(
            calls(("r", "read_file", {"file_path": "src/a.py"})), result("r", self.CONTENT)
        )
        (event,) = simulate(conversation, config(), context_max=1000, summary="fixed:40").events
        reinjection = build_reinjection(list(conversation.messages[:-1]), [conversation.messages[0]])
        assert reinjection is not None and event.reinjected_files == ("src/a.py",)
        assert event.reinjection_tokens == reinjection_tokens(
            counter, [], [ReadEntry("src/a.py", "30", False, self.CONTENT)]
        )
        assert event.reinjection_tokens < counter.message_tokens(reinjection.message)


class TestCStrippedSection:
    """C: openJiuwen strips the rendered section before wrapping it (the last file's trailing newline goes)."""

    def test_a_trailing_newline_costs_nothing(self) -> None:
        for name in ("cl100k_base", "string_length"):
            counter = get_counter(name)
            bare = reinjection_tokens(counter, [], [ReadEntry("a.py", "2", False, "one\ntwo")])
            assert reinjection_tokens(counter, [], [ReadEntry("a.py", "2", False, "one\ntwo\n\n")]) == bare

    def test_our_own_section_is_stripped_too(self) -> None:
        original = [Message(role="user", content="go"), *read_messages("a.py", "one\ntwo\n")]
        reinjection = build_reinjection(original, [original[0]])
        assert reinjection is not None and "one\ntwo\n</section>" in reinjection.text


def read_messages(path: str, content: str) -> list[Message]:
    return [
        Message.model_validate(calls(("r1", "read_file", {"file_path": path}))),
        Message.model_validate(result("r1", json.dumps({"file_path": path, "content": content}))),
    ]


class TestDSkills:
    """D: SKILL.md reads and skill_tool loads come back in their own section, before the files."""

    SKILL = "Deploy with make deploy; never on Fridays."

    def test_a_skill_md_read_fills_both_sections(self) -> None:
        counter = get_counter("cl100k_base")
        body = json.dumps({"file_path": "skills/deploy/SKILL.md", "content": self.SKILL})
        conversation = compacting_run(
            say("reading the skill first"),
            calls(("s", "read_file", {"file_path": "skills/deploy/SKILL.md"})),
            result("s", body),
        )
        (event,) = simulate(conversation, config(), context_max=1000, summary="fixed:40").events
        snapshot = f"Skill: deploy\nPath: skills/deploy/SKILL.md\n\n{self.SKILL}"
        files = [ReadEntry("skills/deploy/SKILL.md", "1", False, self.SKILL)]
        assert event.reinjected_files == ("skills/deploy/SKILL.md",)
        assert event.reinjection_tokens == reinjection_tokens(counter, [snapshot], files)
        assert event.reinjection_tokens > reinjection_tokens(counter, [], files)

    def test_a_skill_tool_load_alone_is_recovered(self) -> None:
        counter = get_counter("cl100k_base")
        loaded = json.dumps({"skill_content": f"  {self.SKILL}\n", "skill_directory": "/s/deploy"})
        load = (calls(("k", "skill_tool", {"skill_name": "deploy"})), result("k", loaded))
        (event,) = simulate(
            compacting_run(say("loading"), *load), config(), context_max=1000, summary="fixed:40"
        ).events
        snapshot = f"Skill: deploy\nPath: /s/deploy/SKILL.md\n\n{self.SKILL}"
        assert event.reinjected_files == ()
        assert event.reinjection_tokens == reinjection_tokens(counter, [snapshot], [])
        # loaded in the round of the request itself, which the compaction keeps: that round is not read
        (kept,) = simulate(compacting_run(*load), config(), context_max=1000, summary="fixed:40").events
        assert kept.reinjection_tokens == 0


class TestEReadFileOnly:
    """E: openJiuwen recovers read_file only; Claude Code's Read is our extension, used only when asked for."""

    def test_read_is_not_recovered_by_default(self) -> None:
        conversation = compacting_run(
            calls(("t", "Read", {"file_path": "/w/lib.rs"})), result("t", "fn main() {}")
        )
        (event,) = simulate(conversation, config(), context_max=1000, summary="fixed:40").events
        assert (event.reinjected_files, event.reinjection_tokens) == ((), 0)
        extended = simulate(
            conversation, config(), context_max=1000, summary="fixed:40", read_tools=WITH_CLAUDE_CODE_READ
        )
        assert extended.events[0].reinjected_files == ("/w/lib.rs",)
        assert extended.extension_read_tools == ("Read",)
        assert extended.to_dict()["extension_read_tools"] == ["Read"]


class TestFUsageAfterACompaction:
    """F (SPEC §6b): usage recorded after a compaction describes the uncompacted run; the replay counts instead."""

    def test_later_usage_is_ignored(self) -> None:
        conversation = compacting_run()
        late = run(*(m.to_openjiuwen() for m in conversation.messages), user("next"), say("more"))
        with_usage = [m.to_openjiuwen() for m in late.messages]
        with_usage[-1]["usage_metadata"] = {"total_tokens": 5_000}  # the uncompacted run's measure
        with_usage.append(say("end"))
        simulation = simulate(run(*with_usage), config(), context_max=1000, summary="fixed:40")
        assert simulation.compactions >= 1
        last = simulation.steps[-1]
        assert last.total_source == "counted" and last.context_tokens < 1000


class TestGListContentInTheUsageTail:
    """G (SPEC §6): after the usage anchor, list content adds a third of its JSON, not of its joined text."""

    def test_the_json_is_read(self) -> None:
        content = [{"type": "text", "text": "import return alpha delta test " * 8}]
        messages = [
            Message.model_validate(m)
            for m in (
                user("check"),
                calls(("c", "bash", {"cmd": "ls"}), usage_metadata={"total_tokens": 50}),
                result("c", content),
            )
        ]
        total = window_total([], messages, [], get_counter())
        assert total.tokens == 50 + len(json.dumps(content, ensure_ascii=False)) // 3
        assert total.tokens != 50 + len(content[0]["text"]) // 3


class TestHImages:
    """H (SPEC §5): an image part is priced by its size: a 712×176 PNG is max(425, 182) = 425 tokens."""

    PNG_712_176 = "iVBORw0KGgoAAAANSUhEUgAAAsgAAACwCAIAAACdJw+k"

    def test_the_window_of_a_screenshot(self) -> None:
        counter = get_counter("cl100k_base")
        content = [
            {"type": "text", "text": "what is in this screenshot?"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": self.PNG_712_176},
            },
        ]
        screenshot = {"role": "user", "content": content}
        simulation = simulate(
            run(screenshot, say("a dialog")), config(), context_max=100_000, summary="fixed:40"
        )
        text = counter.tok("<|start|>user\nwhat is in this screenshot?<|end|>")
        assert simulation.steps[0].context_tokens == text + 425 + 3

    @pytest.mark.parametrize("counter", ["string_length"])
    def test_the_string_length_counter_prices_no_image(self, counter: str) -> None:
        message = Message(role="user", content=[{"type": "image", "source": {"data": self.PNG_712_176}}])
        assert get_counter(counter).message_tokens(message) == len("<|start|>user\nimage<|end|>") // 3
