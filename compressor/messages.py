"""Message, ToolCall, ToolDef and Conversation: the data model every other module reads (SPEC §1).

Invariant: values are frozen once built; unknown fields are kept (``extra="allow"``) so a round trip
through the tool loses nothing, and the library never mutates a conversation it was given.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    ValidatorFunctionWrapHandler,
    field_serializer,
    field_validator,
    model_validator,
)

from .markers import INTERNAL_PREFIXES
from .message_pack import MessagePack
from .message_storage import COUNT_SLOT, NO_EXTRA, share_fields_set, share_keys, token_counts
from .run_records import Reading as Reading
from .run_records import RecordedCompaction as RecordedCompaction

Role = Literal["system", "user", "assistant", "tool"]
ROLES: tuple[str, ...] = ("system", "user", "assistant", "tool")


#: The whitespace ``str.lstrip()`` removes (``\s`` and ``lstrip`` share one definition of a space character).
_LEADING_SPACE = re.compile(r"\s*")

#: Content-part types that carry an image; they are priced separately, never as text.
IMAGE_PART_TYPES: frozenset[str] = frozenset({"image_url", "image", "input_image"})


def _json_arguments(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


class ToolCall(BaseModel):
    """An assistant's request to run a tool, held in openJiuwen's flat form (name and arguments at top level)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = Field(min_length=1, description="call id, matched by the tool message's tool_call_id")
    type: str = "function"
    name: str = Field(min_length=1)
    arguments: str = Field(default="", description="JSON text, as the model produced it")

    @model_validator(mode="before")
    @classmethod
    def _accept_openai_form(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        function = data.pop("function", None)
        if isinstance(function, dict):
            data.setdefault("name", function.get("name"))
            data.setdefault("arguments", function.get("arguments"))
        elif function is not None:
            raise ValueError("tool call 'function' must be an object")
        if "arguments" in data:
            data["arguments"] = _json_arguments(data["arguments"])
        if data.get("type") is None:
            data["type"] = "function"
        # Few distinct names and types repeat over thousands of calls: keep one copy of each.
        for key in ("type", "name"):
            value = data.get(key)
            if type(value) is str and len(value) <= 64:
                data[key] = sys.intern(value)
        return data

    def model_post_init(self, context: Any, /) -> None:
        share_fields_set(self)
        share_keys(self)
        if not self.__pydantic_extra__:
            object.__setattr__(self, "__pydantic_extra__", NO_EXTRA)

    def openai(self) -> dict[str, Any]:
        """OpenAI nested form, as openJiuwen serialises and prices tool calls."""
        return {
            "id": self.id,
            "type": self.type,
            "function": {"name": self.name, "arguments": self.arguments},
        }

    def serialised(self) -> dict[str, Any]:
        """The OpenAI nested form plus any other non-null fields the call arrived with (a lossless round trip)."""
        extra = {key: value for key, value in (self.model_extra or {}).items() if value is not None}
        return {**extra, **self.openai()}

    def flat(self) -> dict[str, Any]:
        """openJiuwen's flat ToolCall model dump (what its string-length counter prices)."""
        extra = self.model_extra or {}
        return {
            "id": self.id,
            "type": self.type,
            "name": self.name,
            "arguments": self.arguments,
            "index": extra.get("index"),
            "response_item_id": extra.get("response_item_id"),
        }

    def parsed_arguments(self) -> dict[str, Any]:
        """The arguments as an object, or {} when they are not a JSON object."""
        try:
            value = json.loads(self.arguments) if self.arguments else {}
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


class Message(BaseModel):
    """One chat message. ``content`` is a string or a list of parts; unknown fields are kept."""

    model_config = ConfigDict(extra="allow", frozen=True)

    role: Role
    content: str | list[str | dict[str, Any]] = ""
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    usage_metadata: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    #: A user turn the agent's harness wrote (a reminder, injected context, a notification), as the file's
    #: format marks it (formats/roles.py); such a turn is never a real request. Not part of openJiuwen's shape.
    internal: bool = False

    # Token counts per counter, set on first count; safe: the message is frozen. Slots, not a private dict: a
    # dict per message (and one more for its counts) cost ~370 bytes, more than most messages' text. Copies and
    # pickles do not carry them (pydantic copies only the fields), so a copy with other content is counted again.
    __slots__ = (COUNT_SLOT,)

    def model_post_init(self, context: Any, /) -> None:
        share_fields_set(self)
        share_keys(self)
        if not self.__pydantic_extra__:
            object.__setattr__(self, "__pydantic_extra__", NO_EXTRA)

    @field_validator("content", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value

    @field_validator("tool_calls", mode="before")
    @classmethod
    def _empty_calls_are_none(cls, value: Any) -> Any:
        return None if value == [] else value

    @field_validator("usage_metadata")
    @classmethod
    def _usage_is_numeric(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        total = value.get("total_tokens")
        if total is not None and (isinstance(total, bool) or not isinstance(total, int | float)):
            raise ValueError(f"usage_metadata.total_tokens must be a number, got {type(total).__name__}")
        return value

    @model_validator(mode="after")
    def _role_rules(self) -> Message:
        if self.role == "tool" and not self.tool_call_id:
            raise ValueError("a tool message needs a tool_call_id")
        if self.tool_calls and self.role != "assistant":
            raise ValueError(f"only assistant messages carry tool_calls, not {self.role}")
        return self

    @property
    def _tokens(self) -> dict[str, int] | None:
        """The counts held, by counter name (None before the first count)."""
        return dict(token_counts(self)) or None

    def __eq__(self, other: object) -> bool:
        # A message's value is its fields; the token counts are not part of it.
        if not isinstance(other, Message):
            return NotImplemented
        return self.__dict__ == other.__dict__ and self.__pydantic_extra__ == other.__pydantic_extra__

    __hash__ = None  # type: ignore[assignment]

    # -- derived views -------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """The text that is priced: string content, or the non-image parts joined by newlines."""
        if isinstance(self.content, str):
            return self.content
        pieces: list[str] = []
        for part in self.content:
            if isinstance(part, str):
                pieces.append(part)
            elif part.get("type") == "text" and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif part.get("type") in IMAGE_PART_TYPES:
                continue
            else:
                pieces.append(json.dumps(part, ensure_ascii=False, separators=(",", ":")))
        return "\n".join(pieces)

    @property
    def image_count(self) -> int:
        if isinstance(self.content, str):
            return 0
        return sum(
            1 for part in self.content if isinstance(part, dict) and part.get("type") in IMAGE_PART_TYPES
        )

    @property
    def is_real_user(self) -> bool:
        """A user message a person wrote, as opposed to a framework-injected one (SPEC §2)."""
        if self.role != "user" or self.internal:
            return False
        if not isinstance(self.content, str):
            return True
        # Where lstrip() would start, without its copy of a long text.
        leading = _LEADING_SPACE.match(self.content)
        return not self.content.startswith(INTERNAL_PREFIXES, leading.end() if leading else 0)

    @property
    def is_internal(self) -> bool:
        return self.role == "user" and not self.is_real_user

    @property
    def call_ids(self) -> tuple[str, ...]:
        return tuple(call.id for call in self.tool_calls or ())

    @property
    def reported_total_tokens(self) -> int | None:
        """``usage_metadata.total_tokens`` when it is positive and not marked stale, else None (SPEC §6)."""
        if self.role != "assistant" or not self.usage_metadata:
            return None
        total = self.usage_metadata.get("total_tokens")
        if not isinstance(total, int | float) or isinstance(total, bool) or total <= 0:
            return None
        if (self.metadata or {}).get("context_usage_stale") is True:
            return None
        return int(total)

    def preview(self, limit: int = 200) -> str:
        return self.text[:limit]

    # -- serialisation -------------------------------------------------------------------------

    def to_openjiuwen(self) -> dict[str, Any]:
        """openJiuwen's JSON shape: assistant tool calls in OpenAI nested form, unknown fields kept."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        for key in ("name", "tool_call_id", "usage_metadata", "metadata"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.tool_calls:
            out["tool_calls"] = [call.serialised() for call in self.tool_calls]
        out.update(self.model_extra or {})
        return out

    def to_openai(self) -> dict[str, Any]:
        """The Chat Completions request shape: only the fields an OpenAI-compatible server accepts."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [call.openai() for call in self.tool_calls]
        if self.role == "tool":
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None and self.role in ("user", "assistant", "tool"):
            out["name"] = self.name
        return out


class ToolDef(BaseModel):
    """A function the agent may call, held flat: ``{name, description, parameters}``."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str = Field(min_length=1)
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _accept_openai_form(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("function"), dict):
            inner = dict(data["function"])
            return inner
        if isinstance(data, dict) and "input_schema" in data and "parameters" not in data:
            data = dict(data)
            data["parameters"] = data.pop("input_schema")  # Anthropic's name for the same schema
        return data

    @field_validator("description", mode="before")
    @classmethod
    def _none_description(cls, value: Any) -> Any:
        return "" if value is None else value

    def pricing_json(self) -> str:
        return json.dumps(
            {"name": self.name, "description": self.description, "parameters": self.parameters},
            ensure_ascii=False,
            separators=(",", ":"),
        )

    def openai(self) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


class Conversation(BaseModel):
    """System messages (never in a span), the context messages the spans index, and the tools.

    ``metadata`` holds what the file says about the run (model, agent, session id, record fields such as a
    benchmark's reward); ``recorded_compactions`` the agent's own compactions; ``readings`` how it was read.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    system: list[Message] = Field(default_factory=list)
    if TYPE_CHECKING:  # read only: a packed run's messages are a MessagePack
        messages: Sequence[Message] = Field(default_factory=list)
    else:  # pydantic's list schema validates and dumps a run ~1.3x faster than its Sequence schema
        messages: list[Message] = Field(default_factory=list)
    tools: list[ToolDef] = Field(default_factory=list)
    name: str = ""
    source_format: str = "openjiuwen"
    metadata: dict[str, Any] = Field(default_factory=dict)
    recorded_compactions: list[RecordedCompaction] = Field(default_factory=list)
    readings: list[Reading] = Field(default_factory=list)

    # Token profiles per counter name (see tokens.profile); safe because the value is frozen.
    _profiles: dict[str, Any] = PrivateAttr(default_factory=dict)

    # A copy may get other messages (model_copy(update=…)): it starts with a cache of its own, empty.
    def __copy__(self) -> Conversation:
        copied = super().__copy__()
        object.__setattr__(copied, "__pydantic_private__", {"_profiles": {}})
        return copied

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Conversation:
        copied = super().__deepcopy__(memo)
        object.__setattr__(copied, "__pydantic_private__", {"_profiles": {}})
        return copied

    def __eq__(self, other: object) -> bool:
        # Cached token profiles are not part of a conversation's value.
        if not isinstance(other, Conversation):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]

    @field_validator("messages", mode="wrap")
    @classmethod
    def _packs_stay_packed(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # A pack holds messages already built: validating it would build every one of them again.
        return value if isinstance(value, MessagePack) else handler(value)

    @field_serializer("messages", mode="wrap")
    def _packs_as_lists(self, value: Sequence[Message], handler: SerializerFunctionWrapHandler) -> Any:
        return handler(list(value) if isinstance(value, MessagePack) else value)

    @model_validator(mode="after")
    def _system_only_in_system(self) -> Conversation:
        for message in self.system:
            if message.role != "system":
                raise ValueError(f"system holds only system messages, found {message.role}")
        return self

    @classmethod
    def from_messages(
        cls,
        messages: Iterable[Message | dict[str, Any]],
        tools: Iterable[ToolDef | dict[str, Any]] = (),
        *,
        name: str = "",
        source_format: str = "openjiuwen",
        metadata: dict[str, Any] | None = None,
        recorded_compactions: Iterable[RecordedCompaction] = (),
        readings: Iterable[Reading] = (),
    ) -> Conversation:
        """Leading system messages become ``system``; everything after them is context.

        ``recorded_compactions`` indices count over all ``messages`` given; they are shifted to the context.
        """
        built: Sequence[Message]
        if isinstance(messages, MessagePack) or (
            isinstance(messages, list) and all(isinstance(m, Message) for m in messages)
        ):
            built = messages  # read only: validation below makes the conversation's own list (a pack stays)
        else:
            built = [m if isinstance(m, Message) else Message.model_validate(m) for m in messages]
        cut = 0
        while cut < len(built) and built[cut].role == "system":
            cut += 1
        return cls(
            system=list(built[:cut]),
            messages=built[cut:] if cut else built,  # no second list of a million messages
            tools=[t if isinstance(t, ToolDef) else ToolDef.model_validate(t) for t in tools],
            name=name,
            source_format=source_format,
            metadata=dict(metadata or {}),
            recorded_compactions=[
                compaction.model_copy(update={"index": compaction.index - cut})
                for compaction in recorded_compactions
                if compaction.index >= cut
            ],
            readings=list(readings),
        )

    def with_messages(self, messages: list[Message]) -> Conversation:
        """A copy with other context messages (system, tools, name and metadata kept; the recorded compactions,
        which point into the old messages, are not)."""
        return Conversation(
            system=self.system,
            messages=messages,
            tools=self.tools,
            name=self.name,
            source_format=self.source_format,
            metadata=self.metadata,
        )

    def to_openjiuwen(self) -> dict[str, Any]:
        """``{"messages": [...system, ...context], "tools": [...]}`` in openJiuwen's JSON shape."""
        return {
            "messages": [m.to_openjiuwen() for m in [*self.system, *self.messages]],
            "tools": [t.model_dump() for t in self.tools],
        }
