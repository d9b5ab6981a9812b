"""Gmail's search language (`q` of messages.list and threads.list), parsed into a tree and
matched against one message's facts.

    from:ann to:(bob OR carol) subject:"Q3 numbers" -label:done is:unread has:attachment
    filename:pdf after:2026/01/01 newer_than:7d {budget forecast} "exact phrase" OR

Words are ANDed; `OR` (or `|`, or a `{...}` group) binds tighter than the implicit AND, as in
Gmail; `-` negates; `op:(a b)` applies `op` to each word inside. Dates are read in UTC.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

OPERATORS = {"from", "to", "cc", "bcc", "subject", "label", "is", "in", "has", "filename", "after", "before",
             "older", "newer", "newer_than", "older_than", "larger", "smaller", "category", "rfc822msgid",
             "deliveredto", "list"}
IN_LABELS = {"inbox": "INBOX", "sent": "SENT", "trash": "TRASH", "spam": "SPAM", "drafts": "DRAFT",
             "draft": "DRAFT", "starred": "STARRED", "important": "IMPORTANT", "chats": "CHAT"}
IS_LABELS = {"unread": "UNREAD", "starred": "STARRED", "important": "IMPORTANT", "chat": "CHAT", "draft": "DRAFT"}
PERIODS = {"d": 86400, "m": 30 * 86400, "y": 365 * 86400, "h": 3600}
SIZES = {"": 1, "k": 1024, "m": 1024 * 1024}

Node = tuple  # ("and", [nodes]) | ("or", [nodes]) | ("not", node) | ("term", op or None, value) | ("phrase", text)


class InvalidQuery(ValueError):
    pass


@dataclass
class Facts:
    """What a query can ask of one message; the body is read only if a word needs it."""

    sender: str = ""                      # the From header, lower-cased
    to: str = ""
    cc: str = ""
    bcc: str = ""
    subject: str = ""
    label_ids: set[str] = field(default_factory=set)
    label_names: dict[str, str] = field(default_factory=dict)  # user label id -> name
    filenames: list[str] = field(default_factory=list)
    seconds: float = 0.0                  # internalDate
    size: int = 0
    rfc822_id: str = ""
    body: Callable[[], str] = lambda: ""
    now: float = 0.0                      # for newer_than/older_than
    me: str = ""                          # the mailbox owner's address (`from:me`)

    def text(self) -> str:
        if not hasattr(self, "_text"):
            self._text = " ".join([self.subject, self.sender, self.to, self.cc, " ".join(self.filenames),
                                   self.body()]).lower()
        return self._text


def _tokens(query: str) -> list[tuple[str, str, str]]:
    """(kind, operator, value): kinds word, phrase, opgroup, or, neg, open, close, lbrace, rbrace."""
    found: list[tuple[str, str, str]] = []
    at, n = 0, len(query)
    while at < n:
        char = query[at]
        if char.isspace():
            at += 1
        elif char in "(){}":
            found.append(({"(": "open", ")": "close", "{": "lbrace", "}": "rbrace"}[char], "", ""))
            at += 1
        elif char == "-" and at + 1 < n and not query[at + 1].isspace():
            found.append(("neg", "", ""))
            at += 1
        elif char == '"':
            end = query.find('"', at + 1)
            end = n if end < 0 else end
            found.append(("phrase", "", query[at + 1:end]))
            at = end + 1
        else:
            match = re.match(r"([A-Za-z_0-9]+):", query[at:])
            operator = match.group(1).lower() if match and match.group(1).lower() in OPERATORS else ""
            if operator:
                at += len(match.group(0))  # type: ignore[union-attr]
                if at < n and query[at] == '"':
                    end = query.find('"', at + 1)
                    end = n if end < 0 else end
                    found.append(("word", operator, query[at + 1:end]))
                    at = end + 1
                    continue
                if at < n and query[at] in "({":
                    closing = ")" if query[at] == "(" else "}"
                    end = query.find(closing, at + 1)
                    end = n if end < 0 else end
                    inner = query[at + 1:end]
                    found.append(("opgroup", operator, inner if closing == ")" else " OR ".join(inner.split())))
                    at = end + 1
                    continue
            start = at
            while at < n and not query[at].isspace() and query[at] not in "(){}\"":
                at += 1
            word = query[start:at]
            if word in ("OR", "|"):
                found.append(("or", "", ""))
            elif word != "AND" and (word or operator):
                found.append(("word", operator, word))
    return found


class _Parser:
    def __init__(self, tokens: list[tuple[str, str, str]], default: str | None) -> None:
        self.tokens, self.at, self.default = tokens, 0, default

    def peek(self) -> str | None:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else None

    def sequence(self, until: str | None = None) -> Node:
        items = []
        while self.peek() is not None and self.peek() != until:
            if self.peek() in ("close", "rbrace") or self.peek() == "or" and not items:
                self.at += 1  # a stray closer or a leading OR: Gmail ignores it
                continue
            items.append(self.alternatives())
        return items[0] if len(items) == 1 else ("and", items)

    def alternatives(self) -> Node:
        options = [self.unary()]
        while self.peek() == "or":
            self.at += 1
            if self.peek() in (None, "close", "rbrace"):
                break
            options.append(self.unary())
        return options[0] if len(options) == 1 else ("or", options)

    def unary(self) -> Node:
        kind, operator, value = self.tokens[self.at]
        self.at += 1
        if kind == "neg":
            return ("not", self.unary()) if self.peek() not in (None, "close", "rbrace", "or") else ("and", [])
        if kind == "open":
            inner = self.sequence(until="close")
            self.at += 1
            return inner
        if kind == "lbrace":
            options = []
            while self.peek() not in (None, "rbrace"):
                options.append(self.unary() if self.peek() != "or" else self._skip())
            self.at += 1
            return ("or", [o for o in options if o is not None])
        if kind == "opgroup":
            return _Parser(_tokens(value), operator).sequence()
        if kind == "phrase":
            return ("term", self.default, value) if self.default else ("phrase", value)
        if kind == "or":
            return ("and", [])
        return ("term", operator or self.default, value)

    def _skip(self) -> None:
        self.at += 1


def parse(query: str) -> Node:
    """The query's tree; an empty query matches everything (`("and", [])`)."""
    return _Parser(_tokens(query or ""), None).sequence()


def mentions_labels(node: Node, labels: set[str]) -> bool:
    """Whether the query asks for one of `labels` itself (in:trash lifts the trash's exclusion)."""
    if node[0] in ("and", "or"):
        return any(mentions_labels(n, labels) for n in node[1])
    if node[0] == "not":
        return mentions_labels(node[1], labels)
    if node[0] == "term" and node[1] in ("in", "label", "is"):
        value = node[2].lower()
        return value == "anywhere" or IN_LABELS.get(value, value.upper()) in labels
    return False


def _date(value: str) -> float:
    if value.isdigit():
        return float(value)
    for form in ("%Y/%m/%d", "%Y-%m-%d", "%m/%d/%Y"):
        try:
            return datetime.strptime(value, form).replace(tzinfo=UTC).timestamp()
        except ValueError:
            continue
    raise InvalidQuery(f"Invalid date in query: {value}")


def _period(value: str) -> float:
    match = re.fullmatch(r"(\d+)([dmyh])", value.lower())
    if not match:
        raise InvalidQuery(f"Invalid time period in query: {value}")
    return int(match.group(1)) * PERIODS[match.group(2)]


def _bytes(value: str) -> int:
    match = re.fullmatch(r"(\d+)([km]?)b?", value.lower())
    if not match:
        raise InvalidQuery(f"Invalid size in query: {value}")
    return int(match.group(1)) * SIZES[match.group(2)]


def _words(text: str, needle: str) -> bool:
    """`needle`'s words, in order, as whole words of `text` (both compared lower-cased)."""
    words = needle.lower().split()
    if not words:
        return True
    pattern = r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)"
    return re.search(pattern, text) is not None


def _label_matches(facts: Facts, value: str) -> bool:
    wanted = value.lower().replace("/", "-").replace(" ", "-")
    if wanted.upper() in facts.label_ids or IN_LABELS.get(wanted) in facts.label_ids:
        return True
    return any(facts.label_names.get(i, "").lower().replace("/", "-").replace(" ", "-") == wanted
               for i in facts.label_ids)


def _term(facts: Facts, operator: str | None, value: str) -> bool:
    low = value.lower()
    if operator is None:
        return _words(facts.text(), value)
    if operator in ("from", "to", "cc", "bcc"):
        header = {"from": facts.sender, "to": f"{facts.to} {facts.cc} {facts.bcc}", "cc": facts.cc,
                  "bcc": facts.bcc}[operator]
        return (facts.me if low == "me" else low) in header
    if operator == "deliveredto":
        return low in f"{facts.to} {facts.cc} {facts.bcc}"
    if operator == "subject":
        return _words(facts.subject, value)
    if operator == "label":
        return _label_matches(facts, value)
    if operator == "in":
        return low == "anywhere" or IN_LABELS.get(low, low.upper()) in facts.label_ids or _label_matches(facts, value)
    if operator == "is":
        if low == "read":
            return "UNREAD" not in facts.label_ids
        return IS_LABELS.get(low, low.upper()) in facts.label_ids
    if operator == "category":
        return f"CATEGORY_{low.upper()}" in facts.label_ids
    if operator == "has":
        if low == "attachment":
            return bool(facts.filenames)
        if low == "userlabels":
            return any(i in facts.label_names for i in facts.label_ids)
        if low == "nouserlabels":
            return not any(i in facts.label_names for i in facts.label_ids)
        return low.upper() in facts.label_ids  # has:yellow-star and such: no such label here
    if operator == "filename":
        return any(low in name.lower() for name in facts.filenames)
    if operator in ("after", "newer"):
        return facts.seconds >= _date(value)
    if operator in ("before", "older"):
        return facts.seconds < _date(value)
    if operator == "newer_than":
        return facts.seconds >= facts.now - _period(value)
    if operator == "older_than":
        return facts.seconds < facts.now - _period(value)
    if operator == "larger":
        return facts.size > _bytes(value)
    if operator == "smaller":
        return facts.size < _bytes(value)
    if operator == "rfc822msgid":
        return value.strip("<>").lower() == facts.rfc822_id.strip("<>").lower()
    return _words(facts.text(), value)  # list: and the rest, as words


def matches(node: Node, facts: Facts) -> bool:
    kind = node[0]
    if kind == "and":
        return all(matches(n, facts) for n in node[1])
    if kind == "or":
        return any(matches(n, facts) for n in node[1])
    if kind == "not":
        return not matches(node[1], facts)
    if kind == "phrase":
        return _words(facts.text(), node[1])
    return _term(facts, node[1], node[2])
