"""Trello's rules that its OpenAPI description does not say, over the generated pack: writes take
their fields as query parameters (as Trello's own examples send them) or a JSON body; ids are 24
hex digits; a card lives in a list of a board (`idList`, `idBoard`, moved by a new `idList`),
archived with `closed`; a board's and a list's cards are the open ones there, a board's lists
its open lists; a comment is a `commentCard` action of the acting member on the card, listed
with the card's actions; `/members/me` is the acting member, with their boards; and Trello's
error words (`invalid id`, `The requested resource was not found.`) in the `{"code", "message"}`
its description gives them."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.openapi import styles
from mock_services.rest.openapi.credentials import issuer
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import Row

HEX = {"kind": "prefix", "prefix": "", "length": 24, "alphabet": "hex"}
IDS = {table: HEX for table in ("trello_cards", "trello_boards", "trello_lists", "trello_actions")}
FIELDS = {"trello_cards": ("name", "desc", "pos", "due", "dueComplete", "idList", "idMembers", "idLabels", "closed",
                           "start"),
          "trello_lists": ("name", "idBoard", "pos", "closed"), "trello_boards": ("name", "desc", "closed")}
NOT_FOUND = "The requested resource was not found."


CODES = {400: "BAD_REQUEST", 401: "UNAUTHORIZED", 404: "NOT_FOUND", 429: "API_TOKEN_LIMIT_EXCEEDED",
         501: "NOT_IMPLEMENTED"}


def error_body(error: RestError) -> dict:
    return {"code": CODES.get(error.status, "ERROR"), "message": error.message}


def _now() -> str:
    return clock.utcnow().isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _given(call: Call, table: str) -> dict:
    """A write's fields: its query parameters and its JSON body, as Trello takes either."""
    body = call.body if isinstance(call.body, dict) else {}
    given = {k: v for k, v in {**call.params, **body}.items() if k in FIELDS[table] and v is not None}
    for name in ("idMembers", "idLabels"):
        if isinstance(given.get(name), str):
            given[name] = [i for i in given[name].split(",") if i]
    for name in ("closed", "dueComplete"):
        if isinstance(given.get(name), str):
            given[name] = given[name] == "true"
    return given


def _row(call: Call, table: str, key: Any) -> Row:
    if not isinstance(key, str) or len(key) != 24 or any(c not in "0123456789abcdef" for c in key.lower()):
        raise RestError(400, "invalid", "invalid id")
    found = call.state.first(table, id=key)
    if found is None:
        raise RestError(404, "resource_missing", NOT_FOUND)
    return found


def _answer(resources: Resources, call: Call, row: Row) -> Any:
    return resources.schemas.fill(dict(row), resources.response(call.operation.short_id)[1])


def _make(resources: Resources, call: Call, table: str, row: dict) -> Any:
    row = {**row, "id": styles.new_id(HEX, {r["id"] for r in call.state.rows(table)})}
    call.state.insert(table, row)
    return _answer(resources, call, row)


def create_card(resources: Resources, call: Call) -> Any:
    given = _given(call, "trello_cards")
    listed = _row(call, "trello_lists", given.get("idList"))
    short = 1 + max((int(c.get("idShort") or 0) for c in call.state.rows("trello_cards", idBoard=listed["idBoard"])),
                    default=0)
    made = {"name": "", "desc": "", "closed": False, "idMembers": [], "idLabels": [], "labels": [], "due": None,
            "dueComplete": False, "pos": 65536 * short, **given, "idBoard": listed["idBoard"], "idShort": short,
            "dateLastActivity": _now(), "badges": {"comments": 0}}
    answer = _make(resources, call, "trello_cards", made)
    card = call.state.first("trello_cards", id=answer["id"])
    call.state.update("trello_cards", {**card, "url": f"https://trello.com/c/{card['id'][:8]}/{short}",
                                       "shortUrl": f"https://trello.com/c/{card['id'][:8]}", "shortLink": card["id"][:8]})
    return _answer(resources, call, call.state.first("trello_cards", id=answer["id"]))


def update(table: str):
    def change(resources: Resources, call: Call) -> Any:
        row = _row(call, table, call.params.get("id"))
        given = _given(call, table)
        if table == "trello_cards" and "idList" in given:
            given["idBoard"] = _row(call, "trello_lists", given["idList"])["idBoard"]
        changed = {**row, **given, **({"dateLastActivity": _now()} if table == "trello_cards" else {})}
        call.state.update(table, changed)
        return _answer(resources, call, changed)
    return change


def read(table: str):
    def get(resources: Resources, call: Call) -> Any:
        return _answer(resources, call, _row(call, table, call.params.get("id")))
    return get


def create_list(resources: Resources, call: Call) -> Any:
    given = _given(call, "trello_lists")
    board = _row(call, "trello_boards", call.params.get("id") if "{id}" in call.operation.path else given.get("idBoard"))
    return _make(resources, call, "trello_lists", {"closed": False, "pos": 65536, **given, "idBoard": board["id"],
                                                   "subscribed": False})


def create_board(resources: Resources, call: Call) -> Any:
    me = call.state.first("trello_members", id=call.user) or {}
    answer = _make(resources, call, "trello_boards", {"closed": False, "desc": "", **_given(call, "trello_boards"),
                                                      "idMembers": [me.get("id")],
                                                      "memberships": [{"idMember": me.get("id"), "memberType": "admin"}]})
    for name in ("To Do", "Doing", "Done") if call.params.get("defaultLists", True) not in (False, "false") else ():
        call.state.insert("trello_lists", {"id": styles.new_id(HEX, {r["id"] for r in call.state.rows("trello_lists")}),
                                           "name": name, "idBoard": answer["id"], "closed": False, "subscribed": False,
                                           "pos": 65536 * (1 + ("To Do", "Doing", "Done").index(name))})
    return answer


def _many(resources: Resources, call: Call, rows: list[Row]) -> Any:
    schema = resources.schemas.resolve(resources.response(call.operation.short_id)[1]).get("items")
    return [resources.schemas.fill(dict(r), schema) for r in sorted(rows, key=lambda r: r.get("pos") or 0)]


def board_lists(resources: Resources, call: Call) -> Any:
    board = _row(call, "trello_boards", call.params.get("id"))
    return _many(resources, call, [r for r in call.state.rows("trello_lists", idBoard=board["id"]) if not r.get("closed")])


def board_cards(resources: Resources, call: Call) -> Any:
    board = _row(call, "trello_boards", call.params.get("id"))
    return _many(resources, call, [c for c in call.state.rows("trello_cards", idBoard=board["id"]) if not c.get("closed")])


def list_cards(resources: Resources, call: Call) -> Any:
    listed = _row(call, "trello_lists", call.params.get("id"))
    return _many(resources, call, [c for c in call.state.rows("trello_cards", idList=listed["id"]) if not c.get("closed")])


def comment(resources: Resources, call: Call) -> Any:
    card = _row(call, "trello_cards", call.params.get("id"))
    text = call.params.get("text") or (call.body.get("text") if isinstance(call.body, dict) else None)
    if not text:
        raise RestError(400, "invalid", "invalid value for text")
    me = call.state.first("trello_members", id=call.user) or {}
    action = {"type": "commentCard", "date": _now(), "idMemberCreator": me.get("id"), "cards_id": card["id"],
              "memberCreator": {"id": me.get("id"), "fullName": me.get("fullName"), "username": me.get("username")},
              "data": {"text": text, "card": {"id": card["id"], "name": card["name"], "idShort": card.get("idShort")},
                       "board": {"id": card["idBoard"]}, "list": {"id": card["idList"]}}}
    badges = {**(card.get("badges") or {}), "comments": int((card.get("badges") or {}).get("comments") or 0) + 1}
    call.state.update("trello_cards", {**card, "badges": badges, "dateLastActivity": action["date"]})
    return _make(resources, call, "trello_actions", action)


def card_actions(resources: Resources, call: Call) -> Any:
    card = _row(call, "trello_cards", call.params.get("id"))
    wanted = str(call.params.get("filter") or "commentCard").split(",")
    rows = [a for a in call.state.rows("trello_actions", cards_id=card["id"]) if "all" in wanted or a["type"] in wanted]
    schema = resources.schemas.resolve(resources.response(call.operation.short_id)[1]).get("items")
    return [resources.schemas.fill(dict(a), schema) for a in sorted(rows, key=lambda a: a["date"], reverse=True)]


def _member(call: Call) -> Row:
    key = call.params.get("id")
    found = call.state.first("trello_members", id=call.user) if key == "me" else \
        next((m for m in call.state.rows("trello_members") if key in (m["id"], m.get("username"))), None)
    if found is None:
        raise RestError(404, "resource_missing", "model not found")
    return found


def member(resources: Resources, call: Call) -> Any:
    return _answer(resources, call, _member(call))


def member_boards(resources: Resources, call: Call) -> Any:
    me = _member(call)
    return _many(resources, call, [b for b in call.state.rows("trello_boards") if me["id"] in (b.get("idMembers") or [])])


def board_members(resources: Resources, call: Call) -> Any:
    board = _row(call, "trello_boards", call.params.get("id"))
    return _many(resources, call, [m for m in call.state.rows("trello_members") if m["id"] in (board.get("idMembers") or [])])


def delete_card(resources: Resources, call: Call) -> Any:
    call.state.delete("trello_cards", _row(call, "trello_cards", call.params.get("id")))
    return {"limits": {}}


HANDLERS = {"post-cards": create_card, "put-cards-id": update("trello_cards"), "get-cards-id": read("trello_cards"),
            "delete-cards-id": delete_card, "post-lists": create_list, "post-boards-id-lists": create_list,
            "get-lists-id": read("trello_lists"), "put-lists-id": update("trello_lists"),
            "post-boards": create_board, "get-boards-id": read("trello_boards"), "put-boards-id": update("trello_boards"),
            "get-boards-id-lists": board_lists, "get-boards-id-cards": board_cards, "get-lists-id-cards": list_cards,
            "post-cards-id-actions-comments": comment, "get-cards-id-actions": card_actions,
            "get-members=id": member, "get-members-id-boards": member_boards, "get-boards-id-members": board_members}

# Credentials: Trello's API key and token (sent as `key` and `token`, or in an OAuth header).
credentials = issuer("ATTA", {"TRELLO_API_KEY": "acme0000000000000000000000000000", "TRELLO_TOKEN": "{token}"})
