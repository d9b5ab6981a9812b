"""Builds templates/trello_default.json: Acme's Trello. The acme world's people
(mock_services/worlds/acme/people.json) are its members (emails kept); the Checkout v2 board
(lists To Do, Doing, Done) holds the launch's cards, ENG-5's in Doing with Robert on it and a
comment from Yuki; ids are 24 hex digits drawn from a hash of what they name.

    python -m mock_services.trello.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
AT = "2026-01-05T09:00:00.000Z"


def hex_id(name: str) -> str:
    return hashlib.sha256(f"acme:trello:{name}".encode()).hexdigest()[:24]


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    members = {p["person"]: {"id": hex_id(p["email"]), "username": p["person"], "fullName": p["name"],
                             "email": p["email"], "initials": "".join(w[0] for w in p["name"].split()),
                             "memberType": "normal", "confirmed": True, "status": "active", "bio": p["title"]}
               for p in people}
    board = {"id": hex_id("board:checkout-v2"), "name": "Checkout v2", "desc": "The checkout v2 launch",
             "closed": False, "idMembers": [m["id"] for m in members.values()],
             "url": "https://trello.com/b/acmeCkV2/checkout-v2",
             "memberships": [{"idMember": m["id"], "memberType": "admin" if who == "john" else "normal"}
                             for who, m in members.items()]}
    lists = {name: {"id": hex_id(f"list:{name}"), "name": name, "idBoard": board["id"], "closed": False,
                    "pos": 65536 * (i + 1), "subscribed": False} for i, name in enumerate(("To Do", "Doing", "Done"))}
    cards = []
    for short, (name, where, who) in enumerate((("Fix checkout for carts over 50 items (ENG-5)", "Doing", "robert"),
                                                ("Write the launch announcement", "To Do", "sarah"),
                                                ("Sign off the checkout v2 spec", "Done", "john")), start=1):
        card_id = hex_id(f"card:{name}")
        cards.append({"id": card_id, "idShort": short, "name": name, "desc": "", "closed": False,
                      "idList": lists[where]["id"], "idBoard": board["id"], "idMembers": [members[who]["id"]],
                      "idLabels": [], "labels": [], "due": None, "dueComplete": where == "Done", "pos": 65536 * short,
                      "dateLastActivity": AT, "badges": {"comments": 1 if short == 1 else 0},
                      "url": f"https://trello.com/c/{card_id[:8]}/{short}", "shortUrl": f"https://trello.com/c/{card_id[:8]}",
                      "shortLink": card_id[:8]})
    yuki = members["yuki"]
    action = {"id": hex_id("action:1"), "type": "commentCard", "date": AT, "idMemberCreator": yuki["id"],
              "cards_id": cards[0]["id"], "memberCreator": {"id": yuki["id"], "fullName": yuki["fullName"],
                                                            "username": yuki["username"]},
              "data": {"text": "I can reproduce with 51 items in the cart.",
                       "card": {"id": cards[0]["id"], "name": cards[0]["name"], "idShort": 1},
                       "board": {"id": board["id"]}, "list": {"id": lists["Doing"]["id"]}}}
    return {"trello_members": list(members.values()), "trello_boards": [board], "trello_lists": list(lists.values()),
            "trello_cards": cards, "trello_actions": [action]}


def main() -> None:
    (HERE / "templates" / "trello_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
