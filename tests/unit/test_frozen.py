"""The frozen records of the subcommand path behave as ``@dataclass(frozen=True, slots=True)``.

``zett_browser.model.frozen`` stands in for :mod:`dataclasses` on ``search``'s path (issue 29:
importing dataclasses cost ~8 ms of a fresh process); every behaviour the code relies on is
compared here with a real dataclass declared the same way.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from zett_browser.model.frozen import FrozenInstanceError, field, frozen, replace
from zett_browser.model.nodes import SessionNode


@frozen
class Ours:
    """A record."""

    name: str
    count: int = 0
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def shout(self) -> str:
        return self.name.upper()


@dataclasses.dataclass(frozen=True, slots=True)
class Theirs:
    """A record."""

    name: str
    count: int = 0
    notes: tuple[str, ...] = dataclasses.field(default=(), compare=False)


def test_construction_equality_hash_and_repr_are_a_dataclass_s() -> None:
    for args, kwargs in (((), {"name": "a"}), (("a", 2), {}), (("a",), {"count": 3, "notes": ("x",)})):
        ours, theirs = Ours(*args, **kwargs), Theirs(*args, **kwargs)
        assert repr(ours).replace("Ours", "Theirs") == repr(theirs)
        assert (ours.name, ours.count, ours.notes) == (theirs.name, theirs.count, theirs.notes)
    assert Ours("a", 1, ("x",)) == Ours("a", 1, ("y",)), "notes is not compared"
    assert hash(Ours("a", 1, ("x",))) == hash(Ours("a", 1))
    other: object = Theirs("a")
    assert Ours("a") != Ours("b") and Ours("a") != other
    assert Ours("a").shout == "A" and Ours.__doc__ == "A record."
    assert not hasattr(Ours("a"), "__dict__"), "slotted"
    with pytest.raises(TypeError):
        Ours()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Ours("a", unknown=1)  # type: ignore[call-arg]


def test_assignment_is_refused_and_copies_keep_the_values() -> None:
    record = Ours("a", 2, ("n",))
    with pytest.raises(FrozenInstanceError):
        record.count = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del record.name  # type: ignore[misc]
    for copied in (copy.copy(record), copy.deepcopy(record), pickle.loads(pickle.dumps(record))):
        assert copied == record and copied.notes == ("n",) and copied is not record


def test_replace_changes_the_named_fields_only() -> None:
    record = Ours("a", 2, ("n",))
    assert replace(record, count=5) == Ours("a", 5) and replace(record, count=5).notes == ("n",)
    with pytest.raises(TypeError, match="no field 'size'"):
        replace(record, size=1)
    with pytest.raises(TypeError, match="frozen record"):
        replace(Theirs("a"), count=1)


def test_declarations_a_dataclass_refuses_are_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        @frozen
        class Shared:
            items: list[str] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="without a default follows"):

        @frozen
        class Order:
            first: int = 0
            second: int  # type: ignore[misc]


def test_a_class_that_makes_its_own_methods_or_has_no_fields_is_refused() -> None:
    with pytest.raises(TypeError, match="makes __eq__ itself"):

        @frozen
        class Own:
            name: str

            def __eq__(self, other: object) -> bool:
                return True

    with pytest.raises(TypeError, match="no annotated fields"):

        @frozen
        class Empty:
            pass


def test_the_session_node_is_one() -> None:
    node = SessionNode("s", None, 1, None, None, None, None, 3, 0, 0)  # type: ignore[arg-type]
    assert replace(node, label_hint="asked").label_hint == "asked"
    assert replace(node, problems=("x",)) == node, "problems are not compared"
    assert match_root(node)


def match_root(node: SessionNode) -> bool:
    match node:
        case SessionNode(session_id, None):
            return session_id == "s"
    return False


@pytest.mark.parametrize(
    "module",
    [
        "zett_browser.storage.asked",
        "zett_browser.storage.quicklabels",
        "zett_browser.storage.contextsql",
        "zett_browser.index.hit_labels",
        "zett_browser.startup.lifecycle",
        "zett_browser.model.usage",
    ],
)
def test_every_name_a_subcommand_module_exports_exists_at_run_time(module: str) -> None:
    """Review case: names moved under ``if TYPE_CHECKING:`` stayed in ``__all__`` (``import *``
    raised AttributeError)."""
    import importlib

    loaded = importlib.import_module(module)
    assert all(hasattr(loaded, name) for name in getattr(loaded, "__all__", ()))
