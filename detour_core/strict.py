"""Input from outside (policy files, the platform API, assertions) is read strictly: a key
detour does not know is an error that names it, never a setting silently dropped (a misspelled
`redcat` would have turned redaction off without a word).

Files in another tool's format are read as that tool reads them: AgentDiff's suite files (no
schema of their own; its loader reads the keys it knows) load with keys detour does not read
kept and named in one warning (`Lenient`, `KeptKeys`), never refused. AgentDiff's assertion
language has a schema that forbids unknown keys, so assertions stay strict."""

from __future__ import annotations

import difflib
import warnings
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError


def _hint(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def unknown_name(kind: str, name: str, known: list[str]) -> str:
    """`unknown key 'alow' (did you mean 'allow'?); known: allow, capture, ...`: the one wording
    of every "no such name" error."""
    return f"unknown {kind} {name!r}{_hint(name, known)}; known: {', '.join(sorted(known)) or 'none'}"


class Strict(BaseModel):
    """A model of input from outside: every key must be one of its fields."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            known = [field.alias or name for name, field in cls.model_fields.items()]
            unknown = [key for key in data if key not in known]
            if unknown:
                # the message goes in the context: a key may hold braces, which a template would read
                raise PydanticCustomError("unknown_key", "{message}",
                                          {"message": unknown_name("key", str(unknown[0]), known)})
        return data


class KeptKeys(UserWarning):
    """Keys of another tool's file that detour does not read: kept, named, never refused."""


class Lenient(BaseModel):
    """A model of a file in another tool's format: keys it does not know are kept as given."""

    model_config = ConfigDict(extra="allow")

    def kept_keys(self, where: str = "") -> list[str]:
        """Every kept key, here and in the models below, by its place (`tests.3._step_sequence`)."""
        known = [field.alias or name for name, field in type(self).model_fields.items()]
        kept = [f"{where}{key}{_hint(key, known)}" for key in self.model_extra or {}]
        for name in type(self).model_fields:
            value = getattr(self, name)
            for index, item in enumerate(value) if isinstance(value, list) else [(None, value)]:
                if isinstance(item, Lenient):
                    kept += item.kept_keys(f"{where}{name}." + ("" if index is None else f"{index}."))
        return kept


def warn_kept(source: str, model: Lenient) -> None:
    """One warning naming every kept key of `model`, read from `source`."""
    kept = model.kept_keys()
    if kept:
        warnings.warn(f"{source}: kept keys detour does not read: {', '.join(kept)}", KeptKeys, stacklevel=2)


def first_error(error: ValueError) -> str:
    """A validation error's first problem in one line: where it is (`limits`, `rules.2`) and what."""
    if not isinstance(error, ValidationError):
        return str(error)
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message
