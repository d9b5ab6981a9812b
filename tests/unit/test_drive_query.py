"""Drive's query language (files.list `q`): what parses into what, what a term matches, and
that what does not parse is refused with a reason instead of matching nothing."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mock_services.drive.query import Both, InvalidQuery, Not, Term, matches, parse

FILE = {"name": "Q3 Roadmap.txt", "mimeType": "text/plain", "fullText": "Ship the redesigned onboarding flow",
        "modifiedTime": datetime(2025, 9, 14, 12, tzinfo=UTC), "createdTime": datetime(2025, 9, 1, tzinfo=UTC),
        "trashed": False, "starred": True, "sharedWithMe": False, "parents": ["1folder", "root"],
        "owners": ["john@example.com"], "writers": ["john@example.com", "agent@example.com"], "readers": [],
        "properties": {"team": "eng"}, "appProperties": {}, "visibility": "limited", "viewedByMeTime": None}


def facts(**changes):
    merged = {**FILE, **changes}
    return {k: (lambda v=v: v) for k, v in merged.items()}


def test_precedence_not_then_and_then_or_and_parentheses():
    tree = parse("'1folder' in parents and not trashed = true or (starred and modifiedTime > '2025-01-01T00:00:00')")
    assert tree == Both("or", (
        Both("and", (Term("parents", "in", "1folder"), Not(Term("trashed", "=", True)))),
        Both("and", (Term("starred", "=", True),
                     Term("modifiedTime", ">", datetime(2025, 1, 1, tzinfo=UTC))))))


@pytest.mark.parametrize("q, expected", [
    ("name contains 'Road'", True), ("name contains 'q3'", True), ("name contains 'map'", False),  # prefixes of words
    ("name = 'Q3 Roadmap.txt'", True), ("name != 'Q3 Roadmap.txt'", False),
    ("fullText contains 'onboarding'", True), ("fullText contains 'redesigned onboarding'", True),
    ("fullText contains 'board'", False),  # whole words only
    ("mimeType = 'text/plain'", True), ("mimeType contains 'text/'", True),
    ("mimeType != 'application/vnd.google-apps.folder'", True),
    ("'1folder' in parents", True), ("'root' in parents", True), ("'other' in parents", False),
    ("'john@example.com' in owners", True), ("'agent@example.com' in writers", True),
    ("modifiedTime > '2025-09-14T11:59:59Z'", True), ("modifiedTime > '2025-09-14T12:00:00'", False),
    ("modifiedTime >= '2025-09-14T12:00:00+00:00'", True), ("createdTime < '2025-09-01T00:00:01Z'", True),
    ("trashed = false", True), ("trashed = true", False), ("not trashed", True), ("starred", True),
    ("sharedWithMe", False), ("sharedWithMe = false", True),
    ("properties has { key='team' and value='eng' }", True), ("properties has { key='team' and value='ops' }", False),
    ("name contains 'x' or (starred and not sharedWithMe)", True),
    ("(name contains 'Road' or name contains 'Budget') and mimeType = 'text/csv'", False),
    ("name = 'it\\'s'", False), ("visibility = 'limited'", True),
])
def test_terms_match_as_drive_reads_them(q, expected):
    assert matches(parse(q), facts()) is expected


def test_a_quote_inside_a_value_is_escaped():
    assert parse(r"name = 'it\'s \\ here'") == Term("name", "=", "it's \\ here")
    assert matches(parse(r"name contains 'it\'s'"), facts(name="it's done")) is True


@pytest.mark.parametrize("q", ["name", "name = ", "name >> 'x'", "(name = 'x'", "foo = 'x'", "trashed = maybe",
                               "name contains 'a' and", "'x' in children", "modifiedTime > 'yesterday'",
                               "fullText = 'x'", "name = 'x' 'y'", "mimeType > 'text/plain'", "name = \"x\""])
def test_what_does_not_parse_is_refused(q):
    with pytest.raises(InvalidQuery):
        parse(q)
