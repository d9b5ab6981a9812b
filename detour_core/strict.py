"""Input from outside (policy files, the platform API, suites and assertions) is read strictly:
a key detour does not know is an error that names it, never a setting silently dropped (a
misspelled `redcat` would have turned redaction off without a word)."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic_core import PydanticCustomError


def unknown_name(kind: str, name: str, known: list[str]) -> str:
    """`unknown key 'alow' (did you mean 'allow'?); known: allow, capture, ...`: the one wording
    of every "no such name" error."""
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown {kind} {name!r}{hint}; known: {', '.join(sorted(known)) or 'none'}"


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


def first_error(error: ValueError) -> str:
    """A validation error's first problem in one line: where it is (`limits`, `rules.2`) and what."""
    if not isinstance(error, ValidationError):
        return str(error)
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message
