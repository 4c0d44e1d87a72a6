"""record behaves as the part of @dataclass it stands for: each check is made on both."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from botmemory.core.base import record as R


def _pair(frozen: bool) -> tuple[type, type]:
    made = []
    for deco, fld in ((dataclasses.dataclass(frozen=frozen), dataclasses.field), (R.record(frozen=frozen), R.field)):
        class P:
            __qualname__ = "P"
            a: int
            b: str = "x"
            c: list[int] = fld(default_factory=list)
            d: object = fld(default=None, compare=False, repr=False)
        made.append(deco(P))
    return made[0], made[1]


@pytest.mark.parametrize("frozen", [False, True])
def test_a_record_behaves_as_the_dataclass(frozen: bool) -> None:
    D, Rc = _pair(frozen)
    for cls in (D, Rc):
        assert cls.__match_args__ == ("a", "b", "c", "d")
    for args, kw in (((1,), {}), ((1, "y"), {"c": [2]}), ((), {"a": 3, "d": "ignored"})):
        d, r = D(*args, **kw), Rc(*args, **kw)
        assert repr(d) == repr(r) and vars(d) == vars(r)
        assert (d == D(*args, **kw)) == (r == Rc(*args, **kw)) is True
        assert (D(*args, **kw) == D(9)) == (Rc(*args, **kw) == Rc(9))
        assert r != d and r != (1, "x")
        assert Rc(1, d="a") == Rc(1, d="b")                       # compare=False
        assert R.replace(r, b="z") == Rc(**{**vars(r), "b": "z"}) and r.b == kw.get("b", args[1] if len(args) > 1 else "x")
        assert copy.deepcopy(r) == r and copy.copy(r) == r
        assert Rc(1).c is not Rc(1).c
        if frozen:
            assert hash(Rc(1, c=(), d=1)) == hash(Rc(1, c=(), d=2)) == hash(D(1, c=()))   # the fields compared, as a tuple
            with pytest.raises(dataclasses.FrozenInstanceError):
                d.a = 5
            with pytest.raises(AttributeError):
                r.a = 5
            with pytest.raises(AttributeError):
                del r.b
        else:
            with pytest.raises(TypeError):
                hash(r)
            with pytest.raises(TypeError):
                hash(d)
            r.a = 5
            assert r.a == 5
    with pytest.raises(TypeError):
        Rc()
    with pytest.raises(TypeError):
        Rc(1, "x", [], None, 5)


def test_a_method_the_class_defines_is_kept_and_a_field_without_default_cannot_follow_one() -> None:
    @R.record(frozen=True)
    class Q:
        a: int
        b: int = 0

        def __repr__(self) -> str:
            return "mine"

    assert repr(Q(1)) == "mine" and Q(1) == Q(1, 0) and {Q(1), Q(1, 0)} == {Q(1)}
    with pytest.raises(TypeError):
        class Bad:
            a: int = 0
            b: int
        R.record()(Bad)


def test_records_pickle_as_dataclasses_do() -> None:
    from botmemory.core.text.entries import Document, parse
    from botmemory.core.text.frontmatter import Frontmatter

    for obj in (Frontmatter("T", None, ("a",)), parse("- 2026-10-14 · from cli · a note\n"), Document()):
        assert pickle.loads(pickle.dumps(obj)) == obj


def test_replace_also_copies_a_dataclass() -> None:
    D, _ = _pair(True)
    assert R.replace(D(1), b="y") == D(1, "y")


@pytest.mark.parametrize("body, says", [
    ("    a: int\n    def __post_init__(self):\n        self.a += 1\n", "__post_init__"),
    ("    __slots__ = ('a',)\n    a: int\n", "__slots__"),
    ("    a: 'InitVar[int]'\n", "init-only"),
    ("    _: 'KW_ONLY'\n    a: int = 0\n", "keyword-only"),
])
def test_what_a_dataclass_would_honour_and_a_record_cannot_is_refused(body, says):
    """A record that silently skipped __post_init__ (or an InitVar) would build wrong objects: it is refused."""
    env: dict[str, object] = {"record": R.record}
    with pytest.raises(TypeError, match=says):
        exec(f"@record()\nclass R:\n{body}", env)   # noqa: S102 - the class under test


@pytest.mark.parametrize("option", ["order", "eq", "init", "slots", "kw_only"])
def test_dataclass_options_a_record_does_not_have_are_refused(option):
    with pytest.raises(TypeError):
        R.record(**{option: True})   # type: ignore[call-arg]


@pytest.mark.parametrize("first", ["init", "repr", "eq", "hash"])
def test_methods_are_compiled_at_first_use_whichever_comes_first(first: str) -> None:
    """A short process makes few of the records its modules declare: their methods are compiled when first
    called (any of them), then stand in place; until then, and after, they behave as the dataclass's."""
    @R.record(frozen=True)
    class P:
        __qualname__ = "P"
        a: int
        b: str = "x"

    stand_ins = {name: P.__dict__[name] for name in ("__init__", "__repr__", "__eq__", "__hash__")}
    p = object.__new__(P)
    p.__dict__.update(a=1, b="x")       # made without __init__, as copy and pickle make one
    if first == "init":
        p = P(1)
    elif first == "repr":
        assert repr(p) == "P(a=1, b='x')"
    elif first == "eq":
        assert p == p and p != object()
    else:
        assert hash(p) == hash((1, "x"))
    for name, stand_in in stand_ins.items():   # one first call compiles them all
        assert P.__dict__[name] is not stand_in and P.__dict__[name].__qualname__.endswith(f"P.{name}")
    assert P(1) == p and repr(P(2, "y")) == "P(a=2, b='y')" and hash(P(1)) == hash(p)
    with pytest.raises(TypeError):
        P()   # the compiled __init__'s own check


def test_a_plain_subclass_of_a_record_not_yet_compiled_is_built_by_the_records_methods() -> None:
    @R.record()
    class Base:
        __qualname__ = "Base"
        a: int

    class Sub(Base):
        __qualname__ = "Sub"

        def describe(self) -> str:
            return f"sub {self.a}"

    s = Sub(3)
    assert s.describe() == "sub 3" and s == Sub(3) and repr(s) == "Sub(a=3)" and Base.__dict__["__init__"] is not None
    assert "__init__" not in Sub.__dict__
