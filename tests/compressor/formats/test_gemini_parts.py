"""Gemini Content parts: sorted by kind, media priced as images, calls and responses paired by id or by name."""

from __future__ import annotations

import pytest

from compressor.formats import gemini_parts
from compressor.formats.gemini_parts import CallIds
from compressor.formats.problems import FormatProblem, Loc


class TestSplit:
    def test_every_kind_of_part(self) -> None:
        parts = gemini_parts.split(
            [
                "plain",
                {"text": "why", "thought": True, "thoughtSignature": "sig"},
                {"functionCall": {"name": "ls", "args": {}}},
                {"functionResponse": {"name": "ls", "response": {"output": "a"}}},
                {"inlineData": {"mimeType": "image/png", "data": "iVBORw0K"}},
                {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://x"}},
            ],
            Loc(),
        )
        assert (parts.texts, parts.thoughts) == (["plain"], ["why"])
        assert [c["name"] for c in parts.calls] == ["ls"] and len(parts.responses) == 1
        assert parts.content() == [
            {"type": "text", "text": "plain"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}},
            {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://x"}},
        ]

    def test_a_string_is_one_text_part(self) -> None:
        assert gemini_parts.split("hello", Loc()).content() == "hello"

    def test_a_part_that_is_not_an_object(self) -> None:
        with pytest.raises(FormatProblem, match=r"^content\[0\]: a part must be an object"):
            gemini_parts.split([3], Loc(path="content"))


class TestResponses:
    @pytest.mark.parametrize(
        ("response", "text"),
        [
            ({"response": {"output": "done"}}, "done"),
            ({"response": {"error": "denied"}}, "denied"),
            ({"response": {"rows": 2}}, '{"rows": 2}'),
            ({"response": "plain"}, "plain"),
        ],
    )
    def test_what_the_model_was_told(self, response: dict[str, object], text: str) -> None:
        assert gemini_parts.response_text(response) == text

    def test_ids_pair_first_then_names_oldest_first(self) -> None:
        ids = CallIds("g")
        first, second = ids.call({"name": "ls"}), ids.call({"name": "ls"})
        own = ids.call({"name": "cat", "id": "c9"})
        assert (first, second, own) == ("g_ls_1", "g_ls_2", "c9")
        assert ids.response({"name": "cat", "id": "c9"}) == "c9"
        assert [ids.response({"name": "ls"}), ids.response({"name": "ls"}), ids.response({"name": "ls"})] == [
            "g_ls_1",
            "g_ls_2",
            None,
        ]


def test_usage_is_the_whole_call() -> None:
    assert gemini_parts.usage(
        {"promptTokenCount": 90, "candidatesTokenCount": 8, "thoughtsTokenCount": 2}
    ) == {"input_tokens": 90, "output_tokens": 8, "reasoning_tokens": 2, "total_tokens": 100}
    assert gemini_parts.usage({"candidatesTokenCount": 8}) is None
