"""Google Sheets over the pack generated from its discovery document (google-api-python-client's
sheets.v4.json): a spreadsheet is its row (as Sheets answers it), and each sheet's cells a row of
`sheets_values` (its grid of values, rows of cells), which the values methods read and write in
A1 notation (a1.py). `spreadsheets.batchUpdate` adds sheets; other request kinds are refused,
naming them, in Google's error shape."""

from __future__ import annotations

from typing import Any

from mock_services.rest.errors import RestError
from mock_services.rest.google import generated_error_body as error_body
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.sheets import a1
from mock_services.store import Row

TABLE, CELLS = "sheets_spreadsheets", "sheets_values"
IDS = {TABLE: {"kind": "prefix", "prefix": "1", "length": 43}}
MISSING = {TABLE: "Requested entity was not found."}
GRID = {"rowCount": 1000, "columnCount": 26}


def sheet(title: str, sheet_id: int, index: int) -> dict:
    return {"properties": {"sheetId": sheet_id, "title": title, "index": index, "sheetType": "GRID",
                           "gridProperties": dict(GRID)}}


def create(resources: Resources, call: Call) -> Any:
    body = resources.body(call)
    made = styles.new_id(resources.model["resources"][TABLE]["id"], {r["id"] for r in call.state.rows(TABLE)})
    titles = [s.get("properties", {}).get("title") or f"Sheet{n + 1}" for n, s in enumerate(body.get("sheets") or [{}])]
    return resources.create(call, {
        "id": made, "properties": {"title": "Untitled spreadsheet", "locale": "en_US", "timeZone": "Etc/GMT",
                                   **(body.get("properties") or {})},
        "sheets": [sheet(title, 0 if n == 0 else 1000 + n, n) for n, title in enumerate(titles)],
        "spreadsheetUrl": f"https://docs.google.com/spreadsheets/d/{made}/edit"})


def _spreadsheet(resources: Resources, call: Call) -> Row:
    return resources.find(call, resources.model["resources"][TABLE], call.params["spreadsheetId"])


def _cells(call: Call, spreadsheet: Row, title: str) -> tuple[Row, list[list]]:
    """The sheet's row of cells (a new one where nothing was written yet) and its grid."""
    sheet_id = next(s["properties"]["sheetId"] for s in spreadsheet["sheets"] if s["properties"]["title"] == title)
    key = f"{spreadsheet['id']}:{sheet_id}"
    row = call.state.first(CELLS, id=key) or {"id": key, "spreadsheet_id": spreadsheet["id"], "sheet_id": sheet_id,
                                              "sheet": title, "values": []}
    return row, [list(line) for line in row["values"]]


def _save(call: Call, row: Row, grid: list[list]) -> None:
    while grid and not any(cell not in ("", None) for cell in grid[-1]):
        grid.pop()  # Sheets keeps no trailing empty rows
    stored = {**row, "values": grid}
    (call.state.update if call.state.first(CELLS, id=row["id"]) else call.state.insert)(CELLS, stored)


def _range(call: Call, spreadsheet: Row, given: str) -> a1.Range:
    return a1.parse(given, [s["properties"]["title"] for s in spreadsheet["sheets"]])


def _entered(value: Any, option: str) -> Any:
    """What a cell holds: with USER_ENTERED, text that reads as a number or boolean is one."""
    if option != "USER_ENTERED" or not isinstance(value, str):
        return value
    if value.upper() in ("TRUE", "FALSE"):
        return value.upper() == "TRUE"
    try:
        number = float(value.replace(",", ""))
    except ValueError:
        return value
    return int(number) if number.is_integer() and "." not in value else number


def _shown(value: Any, render: str) -> Any:
    if render == "UNFORMATTED_VALUE" or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _read(call: Call, spreadsheet: Row, given: str) -> dict:
    found = _range(call, spreadsheet, given)
    _, grid = _cells(call, spreadsheet, found.sheet)
    end_row, end_col = found.end_row or GRID["rowCount"], found.end_col or GRID["columnCount"]
    render = call.params.get("valueRenderOption") or "FORMATTED_VALUE"
    values = [[_shown(c, render) for c in line[found.col:end_col]] for line in grid[found.row:end_row]]
    while values and not values[-1]:
        values.pop()
    answer: dict[str, Any] = {"range": a1.name(found.sheet, found.row, found.col, end_row, end_col),
                              "majorDimension": call.params.get("majorDimension") or "ROWS"}
    if answer["majorDimension"] == "COLUMNS":
        width = max((len(line) for line in values), default=0)
        values = [[line[n] if n < len(line) else "" for line in values] for n in range(width)]
    if values:
        answer["values"] = values
    return answer


def _write(call: Call, spreadsheet: Row, found: a1.Range, values: list[list], option: str) -> dict:
    row, grid = _cells(call, spreadsheet, found.sheet)
    for n, line in enumerate(values):
        at = found.row + n
        grid += [[] for _ in range(at + 1 - len(grid))]
        grid[at] += [""] * (found.col + len(line) - len(grid[at]))
        grid[at][found.col:found.col + len(line)] = [_entered(v, option) for v in line]
    _save(call, row, grid)
    rows, cols = len(values), max((len(line) for line in values), default=0)
    return {"spreadsheetId": spreadsheet["id"], "updatedRange": a1.name(found.sheet, found.row, found.col,
                                                                       found.row + rows, found.col + cols),
            "updatedRows": rows, "updatedColumns": cols, "updatedCells": sum(len(line) for line in values)}


def _option(call: Call) -> str:
    option = call.params.get("valueInputOption") or (call.body or {}).get("valueInputOption")
    if option not in ("RAW", "USER_ENTERED"):
        raise RestError(400, "badRequest", "'valueInputOption' is required but not specified")
    return option


def values_get(resources: Resources, call: Call) -> Any:
    return _read(call, _spreadsheet(resources, call), call.params["range"])


def values_batch_get(resources: Resources, call: Call) -> Any:
    spreadsheet = _spreadsheet(resources, call)
    return {"spreadsheetId": spreadsheet["id"],
            "valueRanges": [_read(call, spreadsheet, given) for given in call.params.get("ranges") or []]}


def values_update(resources: Resources, call: Call) -> Any:
    spreadsheet = _spreadsheet(resources, call)
    found = _range(call, spreadsheet, call.params["range"])
    return _write(call, spreadsheet, found, resources.body(call).get("values") or [], _option(call))


def values_batch_update(resources: Resources, call: Call) -> Any:
    spreadsheet, option = _spreadsheet(resources, call), _option(call)
    answers = [_write(call, spreadsheet, _range(call, spreadsheet, part["range"]), part.get("values") or [], option)
               for part in resources.body(call).get("data") or []]
    total = {f"total{k[0].upper()}{k[1:]}": sum(a[k] for a in answers)
             for k in ("updatedRows", "updatedColumns", "updatedCells")}
    return {"spreadsheetId": spreadsheet["id"], **total, "totalUpdatedSheets": len({a["updatedRange"].rpartition("!")[0]
                                                                                   for a in answers}),
            "responses": answers}


def values_append(resources: Resources, call: Call) -> Any:
    """After the last row with a value in the range's columns, as Sheets finds a table's end."""
    spreadsheet = _spreadsheet(resources, call)
    found = _range(call, spreadsheet, call.params["range"])
    _, grid = _cells(call, spreadsheet, found.sheet)
    end_col = found.end_col or GRID["columnCount"]
    used = [n for n, line in enumerate(grid) if n >= found.row and any(c not in ("", None) for c in line[found.col:end_col])]
    start = used[-1] + 1 if used else found.row
    updates = _write(call, spreadsheet, found._replace(row=start), resources.body(call).get("values") or [],
                     _option(call))
    answer = {"spreadsheetId": spreadsheet["id"], "updates": updates}
    if used:
        answer["tableRange"] = a1.name(found.sheet, used[0], found.col, used[-1] + 1,
                                       max(len(grid[n]) for n in used))
    return answer


def values_clear(resources: Resources, call: Call) -> Any:
    spreadsheet = _spreadsheet(resources, call)
    found = _range(call, spreadsheet, call.params["range"])
    row, grid = _cells(call, spreadsheet, found.sheet)
    end_row, end_col = found.end_row or GRID["rowCount"], found.end_col or GRID["columnCount"]
    for line in grid[found.row:end_row]:
        line[found.col:end_col] = [""] * len(line[found.col:end_col])
    _save(call, row, grid)
    return {"spreadsheetId": spreadsheet["id"], "clearedRange": a1.name(found.sheet, found.row, found.col, end_row, end_col)}


def batch_update(resources: Resources, call: Call) -> Any:
    """Adds sheets (`addSheet`); other structural requests are not applied, and say so."""
    spreadsheet = _spreadsheet(resources, call)
    sheets, replies = list(spreadsheet["sheets"]), []
    for number, request in enumerate(resources.body(call).get("requests") or []):
        kind = next(iter(request), "")
        if kind != "addSheet":
            raise RestError(501, "notImplemented", f"detour's Sheets replica does not apply requests[{number}].{kind} "
                                                   "(it applies addSheet)")
        properties = request[kind].get("properties") or {}
        title = properties.get("title") or f"Sheet{len(sheets) + 1}"
        if title in [s["properties"]["title"] for s in sheets]:
            raise RestError(400, "badRequest", f"Invalid requests[{number}].addSheet: A sheet with the name "
                                               f"\"{title}\" already exists. Please enter another name.")
        added = sheet(title, properties.get("sheetId", 1000 + len(sheets)), len(sheets))
        sheets.append(added)
        replies.append({"addSheet": added})
    call.state.update(TABLE, {**spreadsheet, "sheets": sheets})
    return {"spreadsheetId": spreadsheet["id"], "replies": replies}


HANDLERS = {"sheets.spreadsheets.create": create, "sheets.spreadsheets.batchUpdate": batch_update,
            "sheets.spreadsheets.values.get": values_get, "sheets.spreadsheets.values.batchGet": values_batch_get,
            "sheets.spreadsheets.values.update": values_update,
            "sheets.spreadsheets.values.batchUpdate": values_batch_update,
            "sheets.spreadsheets.values.append": values_append, "sheets.spreadsheets.values.clear": values_clear}

__all__ = ["HANDLERS", "IDS", "MISSING", "error_body"]
