"""Record classes as :mod:`dataclasses` makes them, without importing :mod:`dataclasses`.

``import dataclasses`` loads :mod:`inspect` (with ``ast``, ``dis``, ``tokenize``…):
milliseconds a ``botmemory recall`` before every turn would pay for nothing.
The modules on recall's and search's path declare their value classes with
:func:`record` instead — the part of ``@dataclass`` they use, the same
behaviour:

- fields are the class's annotations in order (a base record's first); a class
  attribute is the field's default; :func:`field` gives a ``default_factory``
  or leaves a field out of ``==`` / ``hash`` (``compare=False``) or ``repr``;
- ``__init__`` takes the fields by position or name, ``__repr__`` is
  ``Name(a=1, b='x')``, ``==`` compares the fields of two objects of the same
  class (and ``hash`` does, for a frozen record; a record that is not frozen
  is unhashable), ``__match_args__`` lists the fields; a method the class
  defines itself is kept;
- what ``@dataclass`` would honour and a record cannot is refused when the class is made, not ignored:
  ``__post_init__``, ``__slots__``, ``InitVar`` and ``KW_ONLY`` fields are a ``TypeError``, as are the
  options ``order``, ``eq``, ``init`` (``record`` takes only ``frozen``);
- ``frozen=True``: assigning or deleting an attribute raises
  :class:`FrozenError` (an ``AttributeError``, as ``FrozenInstanceError``);
- :func:`replace` is ``dataclasses.replace`` (for a record or a dataclass). Copying and pickling work as for
  a dataclass.

Unlike ``@dataclass``, a record's ``__init__``, ``__repr__``, ``__eq__`` and ``__hash__`` are compiled when
one of them is first called, not when the class is made: about 0.4 ms a class, and a short process (each
``botmemory`` call a hook makes) declares some 25 records and makes a handful.

mypy reads :func:`record` as a dataclass (``dataclass_transform``), so the
constructors stay checked.
"""
from __future__ import annotations

TYPE_CHECKING = False   # as typing's: typing itself is not imported at run time
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform, overload

    _T = TypeVar("_T")


class FrozenError(AttributeError):
    """An attribute of a frozen record was assigned or deleted."""


_MISSING: object = object()


class Field:
    """A field's options (what :func:`field` returns in a class body)."""

    __slots__ = ("default", "default_factory", "compare", "repr")

    def __init__(self, default: object, default_factory: object, compare: bool, repr: bool) -> None:
        self.default = default
        self.default_factory = default_factory
        self.compare = compare
        self.repr = repr


if TYPE_CHECKING:
    @overload
    def field(*, default: _T, compare: bool = ..., repr: bool = ...) -> _T: ...

    @overload
    def field(*, default_factory: Callable[[], _T], compare: bool = ..., repr: bool = ...) -> _T: ...

    def field(*, default: Any = ..., default_factory: Any = ..., compare: bool = True, repr: bool = True) -> Any: ...

    @dataclass_transform(eq_default=True, field_specifiers=(field,))
    def record(*, frozen: bool = False) -> Callable[[type[_T]], type[_T]]: ...

    def replace(obj: _T, /, **changes: Any) -> _T: ...
else:
    def field(*, default=_MISSING, default_factory=_MISSING, compare=True, repr=True):
        """A field's default or ``default_factory``, and whether it counts in ``==`` and ``repr``."""
        return Field(default, default_factory, compare, repr)

    def record(*, frozen=False):
        """Make the decorated class a record (module docstring); *frozen*: its attributes cannot be set."""
        return lambda cls: _make(cls, frozen)

    def replace(obj, /, **changes):
        """A copy of record *obj* with *changes* (as ``dataclasses.replace``, which it calls for a dataclass)."""
        names = getattr(obj.__class__, "__record_fields__", None)
        if names is None:
            import dataclasses

            return dataclasses.replace(obj, **changes)
        for name in names:
            if name not in changes:
                changes[name] = getattr(obj, name)
        return obj.__class__(**changes)


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenError(f"cannot delete field {name!r}")


_UNSUPPORTED = {
    "__post_init__": "record never calls __post_init__ (use a dataclass, or a function that builds the record)",
    "__slots__": "record keeps its defaults as class attributes, which __slots__ would clash with",
}


def _lazily(cls: type, src: str, env: dict[str, object], names: list[str]) -> None:
    """Give *cls* the methods *names* of *src*, compiled when one of them is first called: compiling them costs
    about 0.4 ms a class, and a short process (a hook's ``botmemory`` call) makes a few of the records its
    modules declare. Until then each is a stand-in that compiles them all, puts them in its place and runs."""
    def compiled() -> None:
        made: dict[str, object] = {}
        exec(src, env, made)   # noqa: S102 - generated from the class's own field names, as dataclasses does
        for name in names:
            fn = made[name]
            fn.__qualname__ = f"{cls.__qualname__}.{name}"   # type: ignore[attr-defined]
            setattr(cls, name, fn)

    def stand_in(name: str) -> object:
        def first_call(self: object, *args: object, **kwargs: object) -> object:
            if cls.__dict__.get(name) is first_call:   # not compiled yet (another stand-in may have done it)
                compiled()
            return getattr(cls, name)(self, *args, **kwargs)
        first_call.__qualname__ = f"{cls.__qualname__}.{name}"
        return first_call

    for name in names:
        setattr(cls, name, stand_in(name))


def _make(cls: type, frozen: bool) -> type:  # noqa: C901
    for name, why in _UNSUPPORTED.items():   # what dataclasses would honour and record would silently ignore
        if name in cls.__dict__:
            raise TypeError(f"{cls.__qualname__} defines {name}: {why}")
    fields: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        fields.update(getattr(base, "__record_options__", {}))
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        if str(annotation).strip("'\"").startswith(("InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")):
            raise TypeError(f"{cls.__qualname__}.{name}: record has no init-only or keyword-only fields")
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, Field):
            f = value
            if f.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
        else:
            f = Field(value, _MISSING, True, True)
        fields[name] = f
    env: dict[str, object] = {"_MISSING": _MISSING}
    params, body = [], []
    for name, f in fields.items():
        if f.default_factory is not _MISSING:
            env[f"_f_{name}"] = f.default_factory
            params.append(f"{name}=_MISSING")
            body.append(f"    if {name} is _MISSING:\n        {name} = _f_{name}()")
        elif f.default is not _MISSING:
            env[f"_d_{name}"] = f.default
            params.append(f"{name}=_d_{name}")
        elif any("=" in p for p in params):
            raise TypeError(f"non-default argument {name!r} follows default argument")
        else:
            params.append(name)
        # a frozen record's fields go straight into its __dict__ (half the time of object.__setattr__ each)
        body.append(f"    __own__[{name!r}] = {name}" if frozen else f"    self.{name} = {name}")
    compared = [n for n, f in fields.items() if f.compare]
    shown = [n for n, f in fields.items() if f.repr]
    own = "".join(f"self.{n}," for n in compared)
    other = "".join(f"other.{n}," for n in compared)
    if frozen and body:
        body.insert(0, "    __own__ = self.__dict__")
    src = (f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
           "def __repr__(self):\n"
           f"    return self.__class__.__qualname__ + f\"({', '.join(f'{n}={{self.{n}!r}}' for n in shown)})\"\n"
           "def __eq__(self, other):\n"
           f"    if other.__class__ is self.__class__:\n        return ({own}) == ({other})\n"
           "    return NotImplemented\n"
           f"def __hash__(self):\n    return hash(({own}))\n")
    hashed = "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None and "__eq__" in cls.__dict__
    generated = [name for name in ("__init__", "__repr__", "__eq__") if name not in cls.__dict__]
    if hashed and frozen:
        generated.append("__hash__")
    elif hashed:
        setattr(cls, "__hash__", None)
    _lazily(cls, src, env, generated)
    if frozen:
        setattr(cls, "__setattr__", _frozen_setattr)
        setattr(cls, "__delattr__", _frozen_delattr)
    setattr(cls, "__match_args__", tuple(fields))
    setattr(cls, "__record_fields__", tuple(fields))
    setattr(cls, "__record_options__", fields)
    return cls
