"""Drive's search query language (files.list `q`), parsed into a tree and read against a file.

    name contains 'plan' and mimeType != 'application/vnd.google-apps.folder'
    '1AbC' in parents and not trashed = true or (starred and modifiedTime > '2025-01-01T00:00:00')

Terms are `field operator value` (`name`, `fullText`, `mimeType`, `modifiedTime`, `createdTime`,
`viewedByMeTime`, `trashed`, `starred`, `sharedWithMe`, `visibility`), `'value' in collection`
(`parents`, `owners`, `writers`, `readers`), `properties has { key='k' and value='v' }` (and
`appProperties`), and the bare booleans `sharedWithMe`, `starred`, `trashed`; joined with
`and`, `or`, `not` and parentheses (`not` binds tightest, then `and`, then `or`). A query that
does not parse is Google's 400 `invalid` "Invalid Value", with the place it stopped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

TOKEN = re.compile(r"\s*(?:(?P<string>'(?:[^'\\]|\\.)*')|(?P<op><=|>=|!=|=|<|>|\(|\)|\{|\})"
                   r"|(?P<word>[A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d+)?))")
TEXT_FIELDS = {"name": ("contains", "=", "!="), "fullText": ("contains",), "mimeType": ("contains", "=", "!="),
               "visibility": ("=", "!=")}
TIME_FIELDS = {"modifiedTime", "createdTime", "viewedByMeTime", "sharedWithMeTime"}
BOOLEAN_FIELDS = {"trashed", "starred", "sharedWithMe", "hidden"}
COLLECTIONS = {"parents", "owners", "writers", "readers"}
PROPERTY_FIELDS = {"properties", "appProperties"}
COMPARISONS = ("<", "<=", "=", "!=", ">", ">=")


class InvalidQuery(ValueError):
    pass


@dataclass(frozen=True)
class Term:
    field: str
    operator: str          # contains, =, !=, <, ..., in, has
    value: object          # text, bool, a datetime, or (key, value) for `has`


@dataclass(frozen=True)
class Not:
    inner: Node


@dataclass(frozen=True)
class Both:
    kind: str              # and, or
    parts: tuple[Node, ...]


Node = Term | Not | Both


def _tokens(text: str) -> list[tuple[str, str]]:
    found, at = [], 0
    while at < len(text):
        if text[at:].strip() == "":
            break
        matched = TOKEN.match(text, at)
        if not matched:
            raise InvalidQuery(f"Invalid Value: unexpected {text[at:at + 10].strip()!r} at {at}")
        kind = matched.lastgroup or "word"
        found.append((kind, matched.group(kind)))
        at = matched.end()
    return found


def _unquote(token: str) -> str:
    return re.sub(r"\\(.)", r"\1", token[1:-1])


def _time(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidQuery(f"Invalid Value: {text!r} is not an RFC 3339 time") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)  # Drive reads a time without a zone as UTC


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self, kind: str | None = None, value: str | None = None) -> str:
        token = self.peek()
        if token is None or (kind and token[0] != kind) or (value and token[1].lower() != value.lower()):
            wanted = value or kind or "more"
            got = token[1] if token else "the end"
            raise InvalidQuery(f"Invalid Value: expected {wanted} but found {got}")
        self.at += 1
        return token[1]

    def is_word(self, word: str) -> bool:
        token = self.peek()
        return token is not None and token[0] == "word" and token[1].lower() == word

    def parse(self) -> Node:
        node = self.either()
        if self.peek() is not None:
            raise InvalidQuery(f"Invalid Value: unexpected {self.peek()[1]!r}")  # type: ignore[index]
        return node

    def either(self) -> Node:
        return self.joined("or", self.both)

    def both(self) -> Node:
        return self.joined("and", self.single)

    def joined(self, word: str, part: Callable[[], Node]) -> Node:
        """`part (word part)*`: one node, or all of them joined by `word`."""
        parts = [part()]
        while self.is_word(word):
            self.take()
            parts.append(part())
        return parts[0] if len(parts) == 1 else Both(word, tuple(parts))

    def single(self) -> Node:
        if self.is_word("not"):
            self.take()
            return Not(self.single())
        if self.peek() == ("op", "("):
            self.take()
            inner = self.either()
            self.take("op", ")")
            return inner
        return self.term()

    def term(self) -> Term:
        token = self.peek()
        if token is None:
            raise InvalidQuery("Invalid Value: the query ends where a term should be")
        if token[0] == "string":
            value = _unquote(self.take())
            self.take("word", "in")
            collection = self.take("word")
            if collection not in COLLECTIONS:
                raise InvalidQuery(f"Invalid Value: {collection!r} is not a collection (parents, owners, writers, readers)")
            return Term(collection, "in", value)
        field = self.take("word")
        if field in PROPERTY_FIELDS:
            return self.has(field)
        following = self.peek()
        if field in BOOLEAN_FIELDS and (following is None or following[0] != "op" or following[1] in (")",)):
            return Term(field, "=", True)
        operator = self.take("word").lower() if following and following[0] == "word" else self.take("op")
        return self.value(field, operator)

    def value(self, field: str, operator: str) -> Term:
        if field in TEXT_FIELDS:
            if operator not in TEXT_FIELDS[field]:
                raise InvalidQuery(f"Invalid Value: {field} does not take {operator}")
            return Term(field, operator, _unquote(self.take("string")))
        if field in TIME_FIELDS:
            if operator not in COMPARISONS:
                raise InvalidQuery(f"Invalid Value: {field} does not take {operator}")
            return Term(field, operator, _time(_unquote(self.take("string"))))
        if field in BOOLEAN_FIELDS:
            if operator not in ("=", "!="):
                raise InvalidQuery(f"Invalid Value: {field} does not take {operator}")
            word = self.take("word").lower()
            if word not in ("true", "false"):
                raise InvalidQuery(f"Invalid Value: {field} is true or false, not {word}")
            return Term(field, operator, word == "true")
        raise InvalidQuery(f"Invalid Value: unknown field {field!r}")

    def has(self, field: str) -> Term:
        self.take("word", "has")
        self.take("op", "{")
        self.take("word", "key")
        self.take("op", "=")
        key = _unquote(self.take("string"))
        self.take("word", "and")
        self.take("word", "value")
        self.take("op", "=")
        value = _unquote(self.take("string"))
        self.take("op", "}")
        return Term(field, "has", (key, value))


def parse(text: str) -> Node:
    return _Parser(text).parse()


Facts = Mapping[str, Callable[[], object]]  # a file's field -> its value, read only when a term asks


def name_contains(name: str, text: str) -> bool:
    """Drive matches a name term by prefix: of the name, or of a word in it (`HelloWorld`
    contains 'Hello', not 'World'; `Q3 plan.txt` contains 'plan')."""
    return re.search(r"(?:^|[^0-9A-Za-z])" + re.escape(text.lower()), name.lower()) is not None


def full_text_contains(text: str, phrase: str) -> bool:
    """fullText matches whole words (and phrases of them), ignoring case."""
    return re.search(r"(?<![0-9A-Za-z])" + re.escape(phrase.lower()) + r"(?![0-9A-Za-z])", text.lower()) is not None


def _compare(left: object, operator: str, right: object) -> bool:
    if operator == "contains":
        return isinstance(left, str) and isinstance(right, str) and right.lower() in left.lower()
    if operator == "in":
        return isinstance(left, list | set | tuple) and right in left
    if operator == "has":
        return isinstance(left, dict) and isinstance(right, tuple) and left.get(right[0]) == right[1]
    if left is None:
        return operator == "!="
    return {"=": left == right, "!=": left != right, "<": left < right, "<=": left <= right,  # type: ignore[operator]
            ">": left > right, ">=": left >= right}[operator]  # type: ignore[operator]


def matches(node: Node, facts: Facts) -> bool:
    if isinstance(node, Not):
        return not matches(node.inner, facts)
    if isinstance(node, Both):
        test = all if node.kind == "and" else any
        return test(matches(part, facts) for part in node.parts)
    if node.operator == "contains" and node.field in ("name", "fullText"):
        test = name_contains if node.field == "name" else full_text_contains
        return test(str(facts[node.field]() or ""), str(node.value))
    return _compare(facts[node.field](), node.operator, node.value)
