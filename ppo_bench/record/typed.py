"""A JSON object as a dataclass: built, checked against its fields' types on reading, written back.

The record (`results.Record`) and each of its parts are `Part`s: one field per key, its type the
JSON it may hold (`int`: an integer; `float`: a number, integers too; `Optional[...]`: also null;
`list[float]`, `dict[str, float]`, another Part, plain `dict`, `list` or `Any`). Reading a file
checks every value against its field's type and names the first that is wrong, with its dotted
place (`throughput.reps[0]: boolean, expected number`), then runs the part's own `check`.

Older files lack keys that later ones have, and a key holding null is not the same as a key left
out (a job that ended before its measurement has no `warmup_s`; a learning run has a null
`first_step_s`). So a part keeps the keys it was read or built with (`present`): a file read and
written back holds the same keys in the same order, and a part built in code writes the fields it
was given, null where given None, none of those left at `UNSET`. Keys a part does not name are
kept as they were read (`other`: e.g. the versions of the backends' packages in the provenance).
"""

from __future__ import annotations

import functools
import json
import math
import types
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar, Union, get_args, get_origin, get_type_hints


class BadResult(ValueError):
    """A result file that cannot be used: unreadable JSON, wrong schema, missing or mistyped fields,
    figures that disagree with each other."""


class _Unset:
    """The default of every field of a Part: not given, so not written (unlike None, written as null)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
OWN = ("present", "other")  # the base's own fields, never a key of the JSON object


_KIND_OF = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string", list: "array",
            dict: "object"}


def kind(value: Any) -> str:
    """The JSON type name of a parsed or built value (a bool is no integer, though in Python a bool is
    an int; a subclass, as torch's version string or numpy's float64, is its base's kind)."""
    found = _KIND_OF.get(type(value))
    if found is None:
        found = next((name for t, name in _KIND_OF.items() if isinstance(value, t)), type(value).__name__)
    return found


def non_finite(value: Any, where: str = "") -> list[tuple[str, float]]:
    """(dotted place, number) of every inf, -inf and nan in a parsed or built JSON value."""
    try:
        json.dumps(value, allow_nan=False)  # in C: the walk below only where it finds one
        return []
    except ValueError:
        pass
    return _non_finite(value, where)


def _non_finite(value: Any, where: str) -> list[tuple[str, float]]:
    if isinstance(value, float) and not math.isfinite(value):
        return [(where, value)]
    if isinstance(value, dict):
        return [x for k, v in value.items() for x in _non_finite(v, f"{where}.{k}" if where else str(k))]
    if isinstance(value, (list, tuple)):
        return [x for i, v in enumerate(value) for x in _non_finite(v, f"{where}[{i}]")]
    return []


def plain(value: Any) -> Any:
    """A value as JSON: parts as their objects, containers copied."""
    if isinstance(value, Part):
        return value.to_json()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def inside(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


@dataclass(kw_only=True)
class Part:
    """A JSON object with one field per key it names (see the module's docstring)."""

    present: tuple = field(default=(), compare=False, repr=False)
    """The keys it holds, in order: as read, or the fields given when built (computed then)."""
    other: dict = field(default_factory=dict)
    """Keys it does not name, as read."""
    REQUIRED: ClassVar[tuple[str, ...]] = ()
    """Keys a file must hold."""
    FLAT: ClassVar[tuple[str, ...]] = ()
    """Fields that are parts whose keys stand in this object itself (the record's measured part)."""

    def __post_init__(self) -> None:
        names = _fields_of(type(self))
        if not self.present:
            self.present = tuple(n for n in names if getattr(self, n) is not UNSET)
        for name in names:
            if getattr(self, name) is UNSET:
                setattr(self, name, None)

    def check(self, where: str) -> None:
        """What a part checks of itself once its values are typed; raises BadResult."""

    @classmethod
    def from_json(cls, value: Any, where: str = "") -> Any:
        """The part a parsed JSON object holds, every value checked (BadResult names the first wrong one)."""
        if not isinstance(value, dict):
            raise BadResult(f"{where}: {kind(value)}, expected object")
        missing = [k for k in cls.REQUIRED if k not in value]
        if missing:
            raise BadResult(f"{where + ': ' if where else ''}missing fields: {', '.join(missing)}")
        hints, names = _hints(cls), keys_of(cls)
        values = {n: typed(value[n], hints[n], inside(where, n)) for n in names if n in value}
        for name in cls.FLAT:
            part = _part_type(hints[name])
            held = {k: v for k, v in value.items() if k in keys_of(part)}
            values[name] = part.from_json(held, where) if held else None
        flat = {k for name in cls.FLAT for k in keys_of(_part_type(hints[name]))}
        other = {k: v for k, v in value.items() if k not in names and k not in flat}
        part = cls(**values, other=other, present=tuple(value))
        part.check(where)
        return part

    def to_json(self) -> dict:
        """The JSON object: the keys it holds in their order, then any field set since (not None)."""
        names, hints = keys_of(type(self)), _hints(type(self))
        owners = {k: name for name in self.FLAT for k in (name, *keys_of(_part_type(hints[name])))}
        keys = list(self.present) + [n for n in _fields_of(type(self))
                                     if n not in self.present and getattr(self, n) is not None]
        out: dict = {}
        for key in keys:
            if key in self.other:
                out[key] = plain(self.other[key])
            elif key in owners:
                part = getattr(self, owners[key])
                out.update(part.to_json() if part is not None else {})
            elif key in names:
                out[key] = plain(getattr(self, key))
        return out


@functools.cache
def _fields_of(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls) if f.name not in OWN)


@functools.cache
def keys_of(cls: type) -> tuple[str, ...]:
    """The keys a part names: its fields, but the flat ones (whose keys are their parts')."""
    return tuple(n for n in _fields_of(cls) if n not in cls.FLAT)


@functools.cache
def _hints(cls: type) -> dict:
    return get_type_hints(cls)


def _part_type(hint: Any) -> type:
    """The Part class of a field typed `SomePart` or `Optional[SomePart]`."""
    return next(a for a in (hint, *get_args(hint)) if isinstance(a, type) and issubclass(a, Part))


_KINDS = {int: "integer", float: "number", str: "string", bool: "boolean", list: "array", dict: "object"}


@functools.cache
def _plan(hint: Any) -> tuple[tuple[str, ...], Any]:
    """The JSON kinds a type takes, and what its value holds: a Part class, (list or dict, the
    items' type), or None (a plain value)."""
    args = [a for a in get_args(hint) if a is not type(None)] if get_origin(hint) in (Union, types.UnionType) else []
    if args:
        return _plan(args[0])[0] + ("null",), _plan(args[0])[1]
    if hint is type(None):
        return ("null",), None
    if isinstance(hint, type) and issubclass(hint, Part):
        return ("object",), hint
    origin = get_origin(hint) or hint
    items = get_args(hint)[-1:] if origin in (list, dict) else ()
    return (_KINDS[origin],), (origin, items[0]) if items else None


def _takes(allowed: tuple[str, ...], got: str) -> bool:
    return got in allowed or (got == "integer" and "number" in allowed)


def typed(value: Any, hint: Any, where: str) -> Any:
    """`value` checked against `hint` (BadResult: `where: <kind>, expected <kinds>`), parts built."""
    if hint is Any:
        return value
    allowed, holds = _plan(hint)
    got = kind(value)
    if not _takes(allowed, got):
        raise BadResult(f"{where}: {got}, expected {' or '.join(allowed)}")
    if value is None or holds is None:
        return value
    if not isinstance(holds, tuple):
        return holds.from_json(value, where)
    container, item = holds
    pairs = enumerate(value) if container is list else value.items()
    if _plan(item)[1] is None:  # plain items (a curve's numbers): checked without building anything
        item_kinds = _plan(item)[0]
        for k, v in pairs:
            if not _takes(item_kinds, kind(v)):  # raises, naming its place
                typed(v, item, f"{where}[{k}]" if container is list else f"{where}.{k}")
        return value
    if container is list:
        return [typed(v, item, f"{where}[{i}]") for i, v in pairs]
    return {k: typed(v, item, f"{where}.{k}") for k, v in pairs}
