"""Provides frozen value classes for the records a subcommand's fast path builds.

``zett-browser search`` answers in a fresh process; importing :mod:`dataclasses` (it
imports :mod:`inspect`, which imports ``ast``, ``dis``, ``tokenize`` and ``enum``) cost it
~8 ms of a ~30 ms floor (issue 29). The records that path and ``usage`` build (the parsed
query, hits, session nodes, the label rule's siblings, usage totals) are declared with
:func:`frozen` instead: the declaration of ``@dataclass(frozen=True, slots=True)``
(annotated fields in order, defaults, :func:`field` for ``compare=False``; the declaring
module has ``from __future__ import annotations``, so the class body holds them in
``__annotations__``), the same behaviour (keyword or positional construction, ``==`` and
``hash`` over the compared fields, a ``repr`` of every field, assignment refused, copy and
pickle; slotted: no ``__dict__``, no weak references), and :func:`replace` for
``dataclasses.replace``. Type checkers see a dataclass (``dataclass_transform``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: object) -> object:
        return lambda decorated: decorated


#: The attribute naming a frozen class's fields, in order.
FIELDS = "__frozen_fields__"
_NO_DEFAULT = object()


class FrozenInstanceError(AttributeError):
    """An assignment to a field of a frozen record."""


class _Field:
    __slots__ = ("compare", "default")

    def __init__(self, default: object, compare: bool) -> None:
        self.default = default
        self.compare = compare


def field(*, default: Any = _NO_DEFAULT, compare: bool = True) -> Any:
    """A field's default and whether ``==`` and ``hash`` look at it (as ``dataclasses.field``)."""
    return _Field(default, compare)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(cls: type[T]) -> type[T]:
    """``cls`` as a frozen, slotted value class of its annotated fields (see the module)."""
    if cls.__bases__ != (object,):
        raise TypeError(f"{cls.__name__}: a frozen record derives from object only")
    namespace = dict(cls.__dict__)
    if "__annotations__" not in namespace:
        raise TypeError(f"{cls.__name__}: no annotated fields (declare from __future__ import annotations)")
    overridden = {"__init__", "__eq__", "__hash__", "__repr__", "__setattr__", "__delattr__"} & set(namespace)
    if overridden:
        raise TypeError(f"{cls.__name__}: a frozen record makes {sorted(overridden)[0]} itself")
    names: list[str] = []
    defaults: dict[str, object] = {}
    compared: list[str] = []
    for name, annotation in namespace.get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = namespace.pop(name, _NO_DEFAULT)
        compare = True
        if isinstance(value, _Field):
            compare = value.compare
            value = value.default
        if isinstance(value, (list, dict, set)):
            raise ValueError(f"{cls.__name__}.{name}: a mutable default is shared by every instance")
        if value is _NO_DEFAULT and defaults:
            raise TypeError(f"{cls.__name__}.{name}: a field without a default follows one with a default")
        if value is not _NO_DEFAULT:
            defaults[name] = value
        names.append(name)
        if compare:
            compared.append(name)
    for name in ("__dict__", "__weakref__"):
        namespace.pop(name, None)
    namespace["__slots__"] = tuple(names)
    namespace["__match_args__"] = tuple(names)
    namespace[FIELDS] = tuple(names)
    namespace.update(_methods(cls.__name__, names, defaults, compared))
    made = type(cls.__name__, (object,), namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _methods(name: str, names: list[str], defaults: dict[str, object], compared: list[str]) -> dict[str, object]:
    """``__init__`` (generated source, as :mod:`dataclasses` does) and the other methods."""
    parameters = ", ".join(
        f"{field_name}=_defaults[{field_name!r}]" if field_name in defaults else field_name for field_name in names
    )
    body = "".join(f"    _set(self, {field_name!r}, {field_name})\n" for field_name in names) or "    pass\n"
    scope: dict[str, Any] = {"_defaults": defaults, "_set": object.__setattr__}
    exec(f"def __init__(self, {parameters}):\n{body}", scope)  # noqa: S102 - our own field names
    init = scope["__init__"]
    init.__qualname__ = f"{name}.__init__"
    methods = value_methods(tuple(names), tuple(compared), tuple(names), frozen=True)
    methods["__init__"] = init
    return methods


def value_methods(
    fields: tuple[str, ...], compared: tuple[str, ...], shown: tuple[str, ...], *, frozen: bool
) -> dict[str, object]:
    """A value class's methods but ``__init__`` (here and in :mod:`.record`): ``==`` over
    ``compared`` for the same class, a ``repr`` of ``shown``, and when ``frozen`` a ``hash``,
    assignment refused, copy and pickle through the fields (else ``__hash__`` None)."""

    def key(self: object) -> tuple[object, ...]:
        return tuple(getattr(self, field_name) for field_name in compared)

    def __eq__(self: object, other: object) -> bool:  # noqa: N807
        if other.__class__ is not self.__class__:
            return NotImplemented
        return key(self) == key(other)

    def __repr__(self: object) -> str:  # noqa: N807
        listed = ", ".join(f"{field_name}={getattr(self, field_name)!r}" for field_name in shown)
        return f"{type(self).__qualname__}({listed})"

    methods: dict[str, object] = {"__eq__": __eq__, "__repr__": __repr__}
    if not frozen:
        methods["__hash__"] = None
        return methods

    def __hash__(self: object) -> int:  # noqa: N807
        return hash(key(self))

    def __setattr__(self: object, attribute: str, value: object) -> None:  # noqa: N807
        raise FrozenInstanceError(f"cannot assign to field {attribute!r}")

    def __delattr__(self: object, attribute: str) -> None:  # noqa: N807
        raise FrozenInstanceError(f"cannot delete field {attribute!r}")

    def __getstate__(self: object) -> tuple[object, ...]:  # noqa: N807
        return tuple(getattr(self, field_name) for field_name in fields)

    def __setstate__(self: object, state: tuple[object, ...]) -> None:  # noqa: N807
        for field_name, value in zip(fields, state, strict=True):
            object.__setattr__(self, field_name, value)

    methods.update(
        __hash__=__hash__,
        __setattr__=__setattr__,
        __delattr__=__delattr__,
        __getstate__=__getstate__,
        __setstate__=__setstate__,
    )
    return methods


def replace(record: T, **changes: Any) -> T:
    """A copy of ``record`` with ``changes`` (``dataclasses.replace`` for a frozen record)."""
    fields: tuple[str, ...] | None = getattr(type(record), FIELDS, None)
    if fields is None:
        raise TypeError(f"replace() needs a frozen record, not {type(record).__name__}")
    unknown = set(changes) - set(fields)
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {sorted(unknown)[0]!r}")
    return type(record)(**{name: changes[name] if name in changes else getattr(record, name) for name in fields})


__all__ = ["FIELDS", "FrozenInstanceError", "field", "frozen", "replace", "value_methods"]
