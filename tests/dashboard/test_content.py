"""Message content as a page shows it: images and base64 payloads as a short placeholder, the rest as written."""

from __future__ import annotations

import base64

from dashboard.content import readable, readable_text, size_words

PNG = base64.b64encode(b"\x89PNG" + b"\x00" * (18 * 1024)).decode()


class TestPlaceholders:
    def test_an_image_part_is_its_kind_and_size(self) -> None:
        part = {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}
        assert readable(part) == {"type": "text", "text": "[image, 18 KB]"}

    def test_an_anthropic_image_block_too(self) -> None:
        part = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}}
        assert readable([{"type": "text", "text": "look"}, part]) == [
            {"type": "text", "text": "look"},
            {"type": "text", "text": "[image, 18 KB]"},
        ]

    def test_an_image_nested_in_a_tool_result(self) -> None:
        block = {"type": "tool_result", "content": [{"type": "image", "source": {"data": PNG}}]}
        assert (
            readable_text([block])
            == '{"type":"tool_result","content":[{"type":"text","text":"[image, 18 KB]"}]}'
        )

    def test_a_linked_image_and_a_long_base64_string(self) -> None:
        assert readable({"type": "image_url", "image_url": {"url": "https://example.org/a.png"}}) == {
            "type": "text",
            "text": "[image]",
        }
        assert readable(PNG) == "[data, 18 KB]"

    def test_text_is_left_as_written(self) -> None:
        assert readable("a <b> **c**") == "a <b> **c**"
        assert readable({"role": "x", "n": 3, "ok": None}) == {"role": "x", "n": 3, "ok": None}
        prose = "word " * 400
        assert readable(prose) == prose

    def test_sizes_are_written_the_same_everywhere(self) -> None:
        assert (size_words(512), size_words(18 * 1024), size_words(3 * 2**20)) == ("512 B", "18 KB", "3.0 MB")
