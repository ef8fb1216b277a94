"""Payloads are frozen at their callback: what is thawed is the payload as it was then."""

import enum
import pickle
import re

from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, Generation, LLMResult

from harness.tracing.encode import (CAPTURE_CHARS, PAYLOAD_CAPTURE_CHARS, PREVIEW_CHARS, STORED_CHARS, Truncated,
                                    jsonable_prefix, preview, to_json)
from harness.tracing.frozen import (
    MAX_FROZEN_BYTES,
    freeze,
    freeze_messages,
    freeze_preview,
    freeze_result,
    held_bytes,
    thaw,
    thaw_messages,
    thaw_result,
)

plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(plain)
def test_plain_data_thaws_equal_to_what_was_frozen(value):
    assert thaw(freeze(value)) == value


@given(st.lists(st.integers(), max_size=5), st.dictionaries(st.text(max_size=3), st.integers(), max_size=3))
def test_changing_a_payload_after_freezing_does_not_change_what_thaws(items, mapping):
    payload = {"items": items, "mapping": mapping, "nested": [items]}
    expected = {"items": list(items), "mapping": dict(mapping), "nested": [list(items)]}
    frozen = freeze(payload)
    items.append(99)
    mapping["added"] = 1
    payload["new"] = True
    assert thaw(frozen) == expected


def test_text_and_none_are_kept_as_they_are():
    text = "a tool's input string"
    assert freeze(text) is text and freeze(None) is None and thaw(text) is text


class Plan:  # an application's own class: frozen as its JSON form, so any process can read it
    def __init__(self):
        self.steps = ["fetch", "score"]

    def __str__(self):
        return "Plan(fetch, score)"


def test_objects_of_the_applications_own_classes_thaw_as_their_json_form():
    assert thaw(freeze({"plan": Plan(), "n": 1})) == {"plan": "Plan(fetch, score)", "n": 1}


class Rating(enum.StrEnum):
    AA = "AA"


class Level(enum.IntEnum):
    HIGH = 3


def test_enum_members_thaw_as_their_plain_values_without_losing_the_rest_of_the_payload():
    thawed = thaw(freeze({"rating": Rating.AA, "levels": [Level.HIGH], "plan": Plan()}))
    assert thawed == {"rating": "AA", "levels": [3], "plan": "Plan(fetch, score)"}
    assert type(thawed["rating"]) is str and type(thawed["levels"][0]) is int


def test_a_payload_larger_than_a_cell_keeps_its_beginning_and_only_that():
    document = {"text": "x" * (MAX_FROZEN_BYTES + 1)}
    kept = thaw(freeze(document))
    assert type(kept) is Truncated and kept.value["text"] == "x" * len(kept.value["text"])
    assert STORED_CHARS < len(kept.value["text"]) <= PAYLOAD_CAPTURE_CHARS
    wide = {"text": "é" * (STORED_CHARS * 3 // 5)}  # within a cell, over a megabyte frozen: a copy, whole
    assert thaw(freeze(wide)) == wide and thaw(freeze(wide)) is not wide
    small = {"text": "x" * 1000}
    assert freeze(small) is not small and thaw(freeze(small)) == small
    blob = b"\0" * (MAX_FROZEN_BYTES + 1)
    assert thaw(freeze(blob)) == f"<{len(blob)} bytes>" and thaw(freeze(b"abc")) == b"abc"


def test_what_cannot_be_pickled_is_still_frozen_never_raised():
    generator = (i for i in range(3))
    frozen = freeze({"rows": generator})
    assert isinstance(thaw(frozen), dict) and "generator" in str(thaw(frozen)["rows"])


def test_messages_in_a_payload_thaw_as_messages_with_their_fields():
    state = {"messages": [HumanMessage("hi"), AIMessage("hello", tool_calls=[
        {"name": "lookup", "args": {"q": "x"}, "id": "call_1"}])]}
    thawed = thaw(freeze(state))
    assert thawed == state and type(thawed["messages"][1]) is AIMessage
    state["messages"][1].content = "edited later"
    assert thawed["messages"][1].content == "hello"


def test_a_chat_models_input_is_frozen_as_its_messages_fields_and_rebuilt():
    batches = [[SystemMessage("be brief"), HumanMessage("hi", name="ann", custom_field="kept"),
                ToolMessage("42", tool_call_id="call_1")]]
    frozen = freeze_messages(batches)
    assert frozen[0] != pickle.PROTO[0]  # plain data, not a pickle
    batches[0][1].content = "edited later"
    thawed = thaw_messages(frozen)
    assert [type(m) for m in thawed[0]] == [SystemMessage, HumanMessage, ToolMessage]
    assert thawed[0][1].content == "hi" and thawed[0][1].name == "ann"
    assert thawed[0][1].custom_field == "kept" and thawed[0][2].tool_call_id == "call_1"


class Note(HumanMessage):  # an application's own message class, with a field of its own
    priority: int = 0


def test_an_applications_own_message_class_thaws_as_the_langchain_class_it_extends():
    as_model_input = thaw_messages(freeze_messages([[Note("hi", priority=2)]]))[0][0]
    in_state = thaw(freeze({"messages": [Note("hi", priority=2)]}))["messages"][0]
    for message in (as_model_input, in_state):
        assert type(message) is HumanMessage and message.content == "hi" and message.priority == 2


def test_a_models_result_is_frozen_as_its_generations_and_rebuilt():
    usage = {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5}
    result = LLMResult(generations=[[
        ChatGeneration(message=AIMessage("answer", usage_metadata=usage,
                                         response_metadata={"model_name": "m"}), generation_info={"finish": "stop"}),
        ChatGenerationChunk(message=AIMessageChunk(content="streamed")),
    ], [Generation(text="completion", generation_info=None)]], llm_output={"token_usage": {"prompt_tokens": 3}})
    frozen = freeze_result(result)
    assert frozen[0] != pickle.PROTO[0]
    result.generations[0][0].message.content = "edited later"
    thawed = thaw_result(frozen)
    first, chunk, completion = thawed.generations[0][0], thawed.generations[0][1], thawed.generations[1][0]
    assert first.message.content == "answer" and first.text == "answer"
    assert first.message.usage_metadata == usage and first.message.response_metadata == {"model_name": "m"}
    assert first.generation_info == {"finish": "stop"} and chunk.message.content == "streamed"
    assert completion.text == "completion" and thawed.llm_output == {"token_usage": {"prompt_tokens": 3}}


def test_a_result_that_is_not_an_llm_result_is_frozen_as_any_payload():
    assert thaw_result(freeze_result({"text": "x"})) == {"text": "x"}


# --- payloads rows only preview: captured as far as the preview needs -------------------

sized = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20)
    | st.integers(0, 3 * CAPTURE_CHARS).map(lambda n: "\u00e9\"x" * (n // 3)),  # long, with escapes
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=5), inner, max_size=6),
    max_leaves=12,
)


@given(sized)
def test_a_previewed_payload_keeps_the_beginning_of_its_json_exactly(value):
    frozen = freeze_preview(value)
    whole, kept = to_json(value), to_json(thaw(frozen))
    if isinstance(thaw(frozen), Truncated):
        assert len(whole) > CAPTURE_CHARS and len(kept) >= CAPTURE_CHARS
        assert kept[:CAPTURE_CHARS] == whole[:CAPTURE_CHARS]  # (after it, what closes the cut)
    else:
        assert kept == whole  # exact JSON within the cap
    shown = preview(thaw(frozen))
    if not isinstance(thaw(frozen), Truncated):
        assert shown == preview(value)
    else:  # the same beginning; the marker gives the length capture saw, at most the whole
        body, marker = re.fullmatch(r"(.*)…\[truncated, (\d+)\+? chars\]", shown, re.S).groups()
        text = value if isinstance(value, str) else whole  # (text is previewed as it is)
        assert text.startswith(body) and len(body) >= PREVIEW_CHARS - 40 and int(marker) <= len(text)


def test_a_large_state_is_captured_as_its_beginning_not_copied_whole():
    state = {"log": ["parse"], "document": "x" * 5_000_000, "rows": list(range(1_000_000))}
    frozen = freeze_preview(state)
    assert held_bytes(frozen) <= 2 * CAPTURE_CHARS
    thawed = thaw(frozen)
    assert isinstance(thawed, Truncated) and to_json(thawed).startswith('{"log":["parse"],"document":"xxx')
    text = "y" * 1_000_000
    assert thaw(freeze_preview(text)) == Truncated("y" * CAPTURE_CHARS, len(text))
    assert preview(thaw(freeze_preview(text))) == preview(text)


def test_a_previewed_payload_is_walked_only_as_far_as_the_cap_needs():
    class Counting(dict):
        visited = 0

        def items(self):
            for item in super().items():
                Counting.visited += 1
                yield item

    jsonable_prefix(Counting({f"key {i}": "value" * 10 for i in range(100_000)}))
    assert 0 < Counting.visited < 1_000


def test_a_cut_state_does_not_change_when_a_later_node_edits_it():
    state = {"document": "x" * 100_000, "notes": ["first"]}
    frozen = freeze_preview({"notes": state["notes"], "document": state["document"]})
    state["notes"].append("added later")
    assert to_json(thaw(frozen)).startswith('{"notes":["first"],"document"')
