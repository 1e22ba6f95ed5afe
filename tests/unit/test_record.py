"""``model.record``: classes declared as dataclasses are, made without :mod:`dataclasses`.

Every record class of the package is compared with the real dataclass declared the same way
(its twin: fields in order with their flags, ``__init__``'s signature, ``__match_args__``,
hashability), and classes declared both ways are compared in behaviour: construction,
defaults and factories, ``__post_init__``, ``==``, ``hash``, ``repr``, frozen assignment,
copy and pickle, and pydantic's validation (the codec's reference decoder).
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import inspect
import pickle
import subprocess
import sys
from typing import Any, ClassVar, Generic, TypeVar

import pytest
from pydantic import TypeAdapter

from zett_browser.model import record as record_module
from zett_browser.model.messages import AssistantMessage, StopInfo, StopReason, ToolCall
from zett_browser.model.record import FrozenInstanceError, field, record, specs, twin
from zett_browser.model.records import ModelUsage

#: Every module that declares record classes.
DECLARING = (
    "zett_browser.model.messages",
    "zett_browser.model.records",
    "zett_browser.model.context",
    "zett_browser.views.offered",
    "zett_browser.views.time_travel",
)
T = TypeVar("T")


def _record_classes() -> list[type]:
    found: list[type] = []
    for name in DECLARING:
        module = importlib.import_module(name)
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type) and value.__module__ == name and record_module.SPECS in value.__dict__
        ]
    return found


RECORDS = _record_classes()


def test_every_declaring_module_declares_records() -> None:
    assert {cls.__module__ for cls in RECORDS} == set(DECLARING)
    assert len(RECORDS) >= 28


@pytest.mark.parametrize("cls", RECORDS, ids=lambda cls: cls.__qualname__)
def test_a_record_class_is_its_twin_dataclass(cls: type) -> None:
    double = twin(cls)
    theirs = dataclasses.fields(double)
    assert [spec.name for spec in specs(cls)] == [item.name for item in theirs]
    for spec, item in zip(specs(cls), theirs, strict=True):
        assert (spec.compare, spec.repr, spec.kw_only) == (item.compare, item.repr, item.kw_only), item.name
    assert [item.name for item in dataclasses.fields(cls)] == [item.name for item in theirs]
    assert cls.__match_args__ == double.__match_args__  # type: ignore[attr-defined]
    assert (cls.__hash__ is None) == (double.__hash__ is None)
    ours, real = inspect.signature(cls), inspect.signature(double)
    assert [(p.name, p.kind, p.default is p.empty) for p in ours.parameters.values()] == [
        (p.name, p.kind, p.default is p.empty) for p in real.parameters.values()
    ]
    assert "__dict__" not in dir(cls) or not hasattr(cls, "__slots__")


def _declared_both_ways() -> tuple[tuple[Any, Any], ...]:
    def make(decorate: Any, factory: Any) -> tuple[Any, ...]:
        @decorate(frozen=True)
        class Point:
            x: int
            y: int = 0
            label: str = factory(default="", compare=False)

            def __post_init__(self) -> None:
                if self.x < 0:
                    raise ValueError("x < 0")

        @decorate(kw_only=True)
        class Base:
            kind: ClassVar[str]
            tags: dict[str, int] = factory(default_factory=dict)
            persist: bool = True
            hidden: list[int] = factory(default_factory=list, repr=False, compare=False)

        @decorate(kw_only=True)
        class Child(Base):
            kind: ClassVar[str] = "child"
            content: str
            persist: bool = False

        @decorate()
        class Call:
            id: str
            name: str
            arguments: dict[str, int] = factory(default_factory=dict)
            extra: dict[str, int] = factory(default_factory=dict, repr=False, compare=False, kw_only=True)

        @decorate(frozen=True)
        class Box(Generic[T]):
            items: tuple[T, ...]

        return Point, Base, Child, Call, Box

    ours = make(record, field)
    theirs = make(lambda **options: dataclasses.dataclass(slots=True, **options), dataclasses.field)
    return tuple(zip(ours, theirs, strict=True))


PAIRS = _declared_both_ways()


def test_records_behave_as_their_dataclasses() -> None:
    (point, real_point), (base, real_base), (child, real_child), (call, real_call), (box, real_box) = PAIRS
    for ours, theirs in PAIRS:
        assert repr(ours.__dataclass_fields__) and list(ours.__dataclass_fields__) == list(theirs.__dataclass_fields__)
    p, q = point(1, 2, label="a"), real_point(1, 2, label="a")
    assert repr(p).replace(point.__qualname__, "P") == repr(q).replace(real_point.__qualname__, "P")
    assert p == point(1, 2, label="other") and p != point(1, 3) and hash(p) == hash(point(1, 2))
    assert p != q  # another class: not equal, as dataclasses
    with pytest.raises(FrozenInstanceError):
        p.x = 3
    with pytest.raises(ValueError, match="x < 0"):
        point(-1)
    with pytest.raises(TypeError):
        point()
    c, d = child(content="c"), real_child(content="c")
    assert repr(c).replace(child.__qualname__, "C") == repr(d).replace(real_child.__qualname__, "C")
    assert c.persist is False and c.tags == {} and c.tags is not child(content="c").tags
    assert c == child(content="c", hidden=[1]) and c != child(content="c", persist=True)
    with pytest.raises(TypeError):
        child("c")
    with pytest.raises(TypeError):
        hash(c)
    c.content = "changed"
    assert c.content == "changed" and child.kind == "child"
    assert [item.name for item in dataclasses.fields(child)] == [item.name for item in dataclasses.fields(real_child)]
    made = call("1", "tool", {"a": 1}, extra={"x": 2})
    assert made.extra == {"x": 2} and made == call("1", "tool", {"a": 1})
    assert box((1, 2)).items == (1, 2) and box[int]((3,)).items == (3,)
    for value in (p, c, made, box((1,))):
        for copied in (copy.copy(value), copy.deepcopy(value)):
            assert copied == value and type(copied) is type(value)
    stop = StopInfo(StopReason.REFUSAL, message="no")
    message = AssistantMessage(content="a", tool_calls=(ToolCall("1", "t", {"k": [1]}),), stop=stop)
    message.unknown_fields["later"] = 1
    for value in (message, stop, ModelUsage(input_tokens=3)):
        for copied in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
            assert copied == value and type(copied) is type(value)
    assert pickle.loads(pickle.dumps(message)).unknown_fields == {"later": 1}
    assert dataclasses.replace(p, y=5) == point(1, 5)
    assert not hasattr(p, "__dict__") and not hasattr(c, "__dict__")
    _ = (real_base, base, real_call, real_box)


def test_pydantic_validates_a_record_as_its_dataclass() -> None:
    (_, _), (_, _), (child, real_child), (call, real_call), _ = PAIRS
    data = {"content": "hi", "persist": True, "tags": {"a": "1"}}
    assert vars_of(TypeAdapter(child).validate_python(data)) == vars_of(TypeAdapter(real_child).validate_python(data))
    data = {"id": "1", "name": "n", "arguments": {"k": 2}}
    assert vars_of(TypeAdapter(call).validate_python(data)) == vars_of(TypeAdapter(real_call).validate_python(data))


def vars_of(value: object) -> dict[str, object]:
    return {item.name: getattr(value, item.name) for item in dataclasses.fields(value)}  # type: ignore[arg-type]


def test_refused_declarations() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        @record()
        class Shared:
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="non-default argument"):

        @record()
        class Order:
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(TypeError, match="makes __eq__"):

        @record()
        class Own:
            a: int

            def __eq__(self, other: object) -> bool:
                return True

    @record(frozen=True)
    class Frozen:
        a: int

    with pytest.raises(TypeError, match="frozen and mutable"):

        @record()
        class Thawed(Frozen):  # type: ignore[misc]
            b: int


def test_messages_load_without_dataclasses() -> None:
    """A fresh process decodes a message without importing dataclasses (issue 29)."""
    script = (
        "import sys\nfrom zett_browser.storage.fastdecode import decode_fast\n"
        "from zett_browser.views import time_travel\n"
        'message = decode_fast(\'[{"kind": 2, "data": {"content": "hi"}}]\')\n'
        "assert message is not None and message.content == 'hi', message\n"
        "print('dataclasses' in sys.modules, 'inspect' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_threads_asking_at_once_all_get_every_class_as_a_dataclass() -> None:
    """Review case: the first thread to ask marked the classes attached before it attached
    them; a second one asking meanwhile found no dataclass (pydantic failed, unknown fields
    were dropped). Fresh processes, eight threads asking for eight classes at once."""
    script = """
import dataclasses, threading
from zett_browser.model import messages, records
classes = [messages.UserMessage, messages.AssistantMessage, messages.ToolMessage, messages.SystemMessage,
           messages.ToolCall, messages.StopInfo, records.RawMessageRecord, records.SnapshotInfo]
barrier, found = threading.Barrier(len(classes)), {}
def ask(cls):
    barrier.wait()
    found[cls.__name__] = dataclasses.is_dataclass(cls) and [f.name for f in dataclasses.fields(cls)]
threads = [threading.Thread(target=ask, args=(cls,)) for cls in classes]
for thread in threads: thread.start()
for thread in threads: thread.join()
assert all(found.values()) and len(found) == len(classes), found
assert found["UserMessage"][-1] == "content" and "stop" in found["AssistantMessage"], found
print("ok")
"""
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
        assert out.strip() == "ok"


def test_a_plain_subclass_and_an_unhashable_default() -> None:
    @record(frozen=True)
    class Base:
        a: int

    class Plain(Base):
        pass

    assert [item.name for item in dataclasses.fields(Plain)] == ["a"]
    mutable = PAIRS[2][0](content="c")  # a mutable record: unhashable, refused as a default
    with pytest.raises(ValueError, match="mutable default"):

        @record()
        class Holder:
            inner: object = mutable
