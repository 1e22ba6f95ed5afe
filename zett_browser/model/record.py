"""Provides :func:`record`: dataclass-declared classes made without importing :mod:`dataclasses`.

``zett-browser context`` decodes messages in a fresh process, and every message and record
class was a dataclass: importing :mod:`dataclasses` (with :mod:`inspect`, ``ast``, ``dis``,
``tokenize``) and generating ~30 classes' methods cost it ~20 ms of a ~35 ms floor (issue
29). :func:`record` takes the same declaration as ``@dataclass(slots=True)`` with
``frozen``/``kw_only`` (annotated fields in order, defaults, :func:`field` with
``default_factory``, ``compare``, ``repr``, ``kw_only``; ``ClassVar`` annotations are not
fields; a subclass of a record extends it, an overridden field keeping its place) and makes
the same class: the same ``__init__`` signature (``__post_init__`` called last), ``==`` over
the compared fields of the same class, ``hash`` when frozen (none when mutable), the same
``repr``, assignment refused when frozen, ``__match_args__``, slots.

What reads a class *as* a dataclass (``dataclasses.fields``/``is_dataclass``, the envelope
codec writing fields in declaration order, pydantic validating messages as zett-agent does)
finds ``__dataclass_fields__`` and ``__dataclass_params__``: the first time any record class
is asked for them, every record class gets those of a real dataclass declared the same way
(made then, once, under a lock, subclasses before their bases so that no thread reads a
base's fields through a subclass; :func:`_attach_all`). A test compares each record class
with that twin.
"""

from __future__ import annotations

import _thread

from .frozen import FrozenInstanceError as FrozenInstanceError  # one error for both kinds of record
from .frozen import value_methods

TYPE_CHECKING = False  # not typing's: a subcommand starts without importing typing (issue 29)

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    from typing_extensions import dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**_: object) -> object:
        return lambda decorated: decorated


#: The attribute holding a record class's field specs, in order (its bases' first).
SPECS = "__record_fields__"
_MISSING = object()
_DATACLASS_NAMES = frozenset({"__dataclass_fields__", "__dataclass_params__"})


class Spec:
    """One field: its name, annotation (as written), default or factory, and flags."""

    __slots__ = ("annotation", "compare", "default", "factory", "kw_only", "name", "repr")

    def __init__(self, name: str, annotation: object, default: object, kw_only: bool) -> None:
        self.name, self.annotation, self.default, self.factory = name, annotation, default, _MISSING
        self.compare, self.repr, self.kw_only = True, True, kw_only


class _Field:
    __slots__ = ("compare", "default", "factory", "kw_only", "repr")

    def __init__(self, default: object, factory: object, compare: bool, shown: bool, kw_only: object) -> None:
        self.default, self.factory, self.compare, self.repr, self.kw_only = default, factory, compare, shown, kw_only


def field(
    *,
    default: Any = _MISSING,
    default_factory: Any = _MISSING,
    compare: bool = True,
    repr: bool = True,  # noqa: A002 - dataclasses.field's name
    kw_only: Any = _MISSING,
) -> Any:
    """A field's default (or factory) and flags, as ``dataclasses.field`` takes them."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return _Field(default, default_factory, compare, repr, kw_only)


class _RecordType(type):
    """The record classes' type: gives them a real dataclass's metadata when first asked."""

    def __getattr__(cls, name: str) -> Any:
        if name in _DATACLASS_NAMES:
            _attach_all()
            return type.__getattribute__(cls, name)  # its own, or (a plain subclass) its base's
        raise AttributeError(name)


_REGISTRY: list[type] = []
_TWINS: dict[type, type] = {}
_ATTACHED = False
#: Held while the classes are attached (worker threads decode too) and while one is made.
_LOCK = _thread.RLock()


@dataclass_transform(field_specifiers=(field,))
def record(*, frozen: bool = False, kw_only: bool = False) -> Callable[[type[T]], type[T]]:
    """The decorator making a record class of its declaration (see the module)."""

    def make(cls: type[T]) -> type[T]:
        made = _make(cls, frozen, kw_only)
        with _LOCK:
            _REGISTRY.append(made)
            if _ATTACHED:
                _attach(made)
        return made  # type: ignore[return-value]

    return make


def _own_specs(cls: type, namespace: dict[str, Any], kw_only: bool) -> list[Spec]:
    own: list[Spec] = []
    for name, annotation in namespace.get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = namespace.get(name, _MISSING)
        spec = Spec(name, annotation, value, kw_only)
        if isinstance(value, _Field):
            spec.default, spec.factory = value.default, value.factory
            spec.compare, spec.repr = value.compare, value.repr
            spec.kw_only = kw_only if value.kw_only is _MISSING else bool(value.kw_only)
        if spec.default is not _MISSING and type(spec.default).__hash__ is None:  # as dataclasses refuses
            raise ValueError(f"{cls.__name__}.{name}: mutable default {type(spec.default)} is not allowed")
        own.append(spec)
    return own


def _make(cls: type, frozen: bool, kw_only: bool) -> type:
    namespace = dict(cls.__dict__)
    overridden = {"__init__", "__eq__", "__repr__", "__setattr__", "__delattr__", "__hash__"} & set(namespace)
    if overridden - {"__hash__"} or (overridden and namespace["__hash__"] is not None):
        raise TypeError(f"{cls.__name__}: a record makes {sorted(overridden)[0]} itself")
    inherited: list[Spec] = []
    for base in reversed(cls.__mro__[1:]):
        inherited = list(getattr(base, SPECS, inherited)) if SPECS in base.__dict__ else inherited
        if SPECS in base.__dict__ and getattr(base, "__record_frozen__", False) != frozen:
            raise TypeError(f"{cls.__name__}: frozen and mutable records do not derive from each other")
    specs, slotted = list(inherited), {spec.name for spec in inherited}
    for spec in _own_specs(cls, namespace, kw_only):
        at = next((index for index, old in enumerate(specs) if old.name == spec.name), None)
        if at is None:
            specs.append(spec)
        else:
            specs[at] = spec
    positional = [spec for spec in specs if not spec.kw_only]
    for before, after in zip(positional, positional[1:], strict=False):
        if _has_default(before) and not _has_default(after):
            raise TypeError(f"non-default argument {after.name!r} follows default argument")
    for spec in specs:
        namespace.pop(spec.name, None)
    for name in ("__dict__", "__weakref__"):
        namespace.pop(name, None)
    namespace["__slots__"] = tuple(spec.name for spec in specs if spec.name not in slotted)
    namespace["__match_args__"] = tuple(spec.name for spec in positional)
    namespace[SPECS] = tuple(specs)
    namespace["__record_frozen__"] = frozen
    namespace["__record_kw_only__"] = kw_only
    namespace.update(_methods(cls, specs, frozen, "__post_init__" in namespace or hasattr(cls, "__post_init__")))
    made = _RecordType(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


def _has_default(spec: Spec) -> bool:
    return spec.default is not _MISSING or spec.factory is not _MISSING


def _methods(cls: type, specs: list[Spec], frozen: bool, post_init: bool) -> dict[str, object]:
    """``__init__`` (generated source, as :mod:`dataclasses` does) and the other methods."""
    scope: dict[str, Any] = {"_set": object.__setattr__, "_FACTORY": _MISSING}
    parameters: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    for index, spec in enumerate(specs):
        if spec.factory is not _MISSING:
            scope[f"_f{index}"] = spec.factory
            parameter = f"{spec.name}=_FACTORY"
            value = f"_f{index}() if {spec.name} is _FACTORY else {spec.name}"
        elif spec.default is not _MISSING:
            scope[f"_d{index}"] = spec.default
            parameter, value = f"{spec.name}=_d{index}", spec.name
        else:
            parameter, value = spec.name, spec.name
        (keywords if spec.kw_only else parameters).append(parameter)
        body.append(f"    _set(self, {spec.name!r}, {value})" if frozen else f"    self.{spec.name} = {value}")
    if keywords:
        parameters += ["*", *keywords]
    if post_init:
        body.append("    self.__post_init__()")
    exec(f"def __init__(self, {', '.join(parameters)}):\n" + ("\n".join(body) or "    pass") + "\n", scope)  # noqa: S102
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    compared = tuple(spec.name for spec in specs if spec.compare)
    shown = tuple(spec.name for spec in specs if spec.repr)
    methods = value_methods(tuple(spec.name for spec in specs), compared, shown, frozen=frozen)
    methods["__init__"] = init
    return methods


def specs(cls: type) -> tuple[Spec, ...]:
    """A record class's fields in order (what ``dataclasses.fields`` lists)."""
    return cls.__dict__[SPECS]  # type: ignore[no-any-return]


def _attach_all() -> None:
    """Give every record class a real dataclass's metadata (bases first: declared first)."""
    global _ATTACHED  # noqa: PLW0603 - once per process
    if _ATTACHED:
        return
    with _LOCK:  # another thread asking meanwhile waits until every class has them
        if _ATTACHED:
            return
        waiting = [cls for cls in _REGISTRY if "__dataclass_fields__" not in cls.__dict__]
        for cls in waiting:
            twin(cls)
        # Subclasses first (declared after their bases): a class another thread looks at in
        # the meantime finds either its own metadata or none at all (and then waits here),
        # never its base's through inheritance.
        for cls in reversed(waiting):
            _attach(cls)
        _ATTACHED = True


def twin(cls: type) -> type:
    """The real dataclass declared as ``cls`` is (without its methods; its bases' twins)."""
    import dataclasses
    import typing

    if cls in _TWINS:
        return _TWINS[cls]
    # Only the fields matter: a base that is no record (``Generic``) is left out.
    bases = tuple(twin(base) for base in cls.__bases__ if SPECS in base.__dict__) or (object,)
    annotations: dict[str, Any] = {}
    namespace: dict[str, Any] = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
    fields = {spec.name: spec for spec in specs(cls)}
    for name in cls.__dict__.get("__annotations__", {}):  # the class's own, in its order
        spec = fields.get(name)
        if spec is None:  # a ClassVar: a pseudo-field of the dataclass, as declared
            annotations[name] = typing.ClassVar
            if name in cls.__dict__:
                namespace[name] = cls.__dict__[name]
            continue
        annotations[name] = spec.annotation
        options: dict[str, Any] = {"compare": spec.compare, "repr": spec.repr, "kw_only": spec.kw_only}
        if spec.factory is not _MISSING:
            options["default_factory"] = spec.factory
        elif spec.default is not _MISSING:
            options["default"] = spec.default
        namespace[name] = dataclasses.field(**options)
    namespace["__annotations__"] = annotations
    made: type = dataclasses.dataclass(frozen=cls.__dict__["__record_frozen__"])(type(cls.__name__, bases, namespace))
    _TWINS[cls] = made
    return made


def _attach(cls: type) -> None:
    double = twin(cls)
    type.__setattr__(cls, "__dataclass_fields__", double.__dataclass_fields__)  # type: ignore[attr-defined]
    type.__setattr__(cls, "__dataclass_params__", double.__dataclass_params__)  # type: ignore[attr-defined]


__all__ = ["SPECS", "FrozenInstanceError", "Spec", "field", "record", "specs", "twin"]
