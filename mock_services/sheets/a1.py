"""A1 notation, as Sheets reads it: `Sheet1!A1:C3`, `'My sheet'!B:B`, `A2:D` (the first sheet),
`Sheet1` (the whole sheet). A range is its sheet's title and zero-based, end-exclusive rows and
columns (None where the range is open)."""

from __future__ import annotations

import re
from typing import NamedTuple

from mock_services.rest.errors import RestError

CELL = re.compile(r"^([A-Za-z]*)(\d*)$")
MAX = 10_000  # what an open end stands for when a range is written


class Range(NamedTuple):
    sheet: str
    row: int
    col: int
    end_row: int | None
    end_col: int | None


def column(letters: str) -> int:
    number = 0
    for letter in letters.upper():
        number = number * 26 + ord(letter) - 64
    return number - 1


def letters(index: int) -> str:
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(65 + rest) + out
    return out


def _cell(text: str, given: str) -> tuple[int | None, int | None]:
    found = CELL.match(text)
    if not found or not (found.group(1) or found.group(2)):
        raise RestError(400, "badRequest", f"Unable to parse range: {given}")
    col = column(found.group(1)) if found.group(1) else None
    row = int(found.group(2)) - 1 if found.group(2) else None
    return row, col


def parse(given: str, sheets: list[str]) -> Range:
    """`given` over a spreadsheet whose sheets are titled `sheets` (the first is the default)."""
    sheet, bang, cells = given.rpartition("!")
    if not bang:
        sheet, cells = (given, "") if given.strip("'") in sheets else (sheets[0], given)
    sheet = sheet.strip("'").replace("''", "'")
    if sheet not in sheets:
        raise RestError(400, "badRequest", f"Unable to parse range: {given}")
    if not cells:
        return Range(sheet, 0, 0, None, None)
    first, _, last = cells.partition(":")
    row, col = _cell(first, given)
    end_row, end_col = _cell(last, given) if last else (row, col)
    return Range(sheet, row or 0, col or 0, None if end_row is None else end_row + 1,
                 None if end_col is None else end_col + 1)


def name(sheet: str, row: int, col: int, end_row: int, end_col: int) -> str:
    """The A1 name Sheets answers with (`Sheet1!A1:C3`, `Sheet1!B3` for one cell; a title with spaces quoted)."""
    title = f"'{sheet}'" if re.search(r"[^A-Za-z0-9_]", sheet) else sheet
    first, last = f"{letters(col)}{row + 1}", f"{letters(end_col - 1)}{end_row}"
    return f"{title}!{first}" if first == last else f"{title}!{first}:{last}"
