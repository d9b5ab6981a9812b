"""Builds templates/sentry_default.json: Acme's Sentry organization (slug `acme`). The acme
world's people (mock_services/worlds/acme/people.json) are its members (emails kept, John the
owner); acme-web and checkout-api are its projects; checkout-api's unresolved issues include
ENG-5's large-cart error (assigned to Robert, with its latest event), and the others are one
unresolved and unassigned, one resolved.

    python -m mock_services.sentry.build_seed
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

HERE = Path(__file__).parent
PEOPLE = HERE.parent / "worlds" / "acme" / "people.json"
ORG = "acme"
AT, LAST = "2026-01-05T09:00:00.000Z", "2026-01-05T11:30:00.000Z"


def number(name: str, digits: int) -> str:
    return str(10 ** (digits - 1) + int(hashlib.sha256(f"acme:sentry:{name}".encode()).hexdigest(), 16)
               % (9 * 10 ** (digits - 1)))


def build() -> dict:
    people = json.loads(PEOPLE.read_text())["people"]
    members = {}
    for p in people:
        user = {"id": number(f"user:{p['email']}", 7), "name": p["name"], "username": p["email"],
                "email": p["email"], "isActive": True, "hasPasswordAuth": True, "isManaged": False,
                "dateJoined": AT, "has2fa": False, "isStaff": False, "isSuperuser": False, "avatar": {
                    "avatarType": "letter_avatar", "avatarUuid": None}}
        members[p["person"]] = {"id": number(f"member:{p['email']}", 7), "organization_id_or_slug": ORG,
                                "email": p["email"], "name": p["name"], "user": user,
                                "orgRole": "owner" if p["person"] == "john" else "member",
                                "role": "owner" if p["person"] == "john" else "member", "pending": False,
                                "expired": False, "inviteStatus": "approved", "inviterName": None,
                                "dateCreated": AT, "teams": ["engineering"], "teamRoles": [], "teamRoleList": [],
                                "orgRoleList": [], "flags": {}, "isOnlyOwner": p["person"] == "john",
                                "invite_link": None}
    projects = [{"id": number(f"project:{slug}", 7), "organization_id_or_slug": ORG, "slug": slug, "name": slug,
                 "platform": platform, "platforms": [platform], "dateCreated": AT, "isBookmarked": False,
                 "isMember": True, "hasAccess": True, "firstEvent": AT, "team": {"id": "1", "slug": "engineering",
                                                                              "name": "Engineering"},
                 "teams": [{"id": "1", "slug": "engineering", "name": "Engineering"}]}
                for slug, platform in (("acme-web", "javascript-react"), ("checkout-api", "python"))]
    web, api = ({"id": p["id"], "name": p["name"], "slug": p["slug"], "platform": p["platform"]} for p in projects)
    issues = []
    for number_in_project, (project, title, culprit, level, status, who, count) in enumerate((
            (api, "CartPageError: cart of 51 items exceeds the checkout page", "checkout.cart.load_items", "error",
             "unresolved", "robert", 412),
            (api, "TimeoutError: payment gateway did not answer in 10s", "checkout.gateway.call", "error",
             "unresolved", None, 37),
            (web, "TypeError: Cannot read properties of undefined (reading 'price')", "CartSummary", "error",
             "resolved", "yuki", 5)), start=1):
        user = members[who]["user"] if who else None
        issue_id = number(f"issue:{title}", 10)
        short = f"{project['slug'].upper()}-{number_in_project}"
        issues.append({
            "id": issue_id, "organization_id_or_slug": ORG, "shortId": short, "title": title, "culprit": culprit,
            "permalink": f"https://acme.sentry.io/issues/{issue_id}/", "level": level, "status": status,
            "substatus": "ongoing" if status == "unresolved" else None, "statusDetails": {}, "isPublic": False,
            "platform": project["platform"], "project": project, "type": "error", "issueType": "error",
            "issueCategory": "error", "metadata": {"type": title.split(":")[0], "value": title.split(": ", 1)[-1]},
            "numComments": 0, "assignedTo": {"type": "user", "id": user["id"], "name": user["name"],
                                              "email": user["email"]} if user else None,
            "isBookmarked": False, "isSubscribed": False, "subscriptionDetails": None, "hasSeen": True,
            "annotations": [], "logger": None, "shareId": None, "count": str(count), "userCount": count // 3,
            "firstSeen": AT, "lastSeen": LAST, "activity": [], "participants": [], "seenBy": [],
            "priority": "high" if status == "unresolved" else "medium", "priorityLockedAt": None,
            "userReportCount": 0, "seerFixabilityScore": None, "seerAutofixLastTriggered": None,
            "seerExplorerAutofixLastTriggered": None})
    event = {"id": "4e5d1b1d0c9f4a8bb5f1a0c2d3e4f5a6", "eventID": "4e5d1b1d0c9f4a8bb5f1a0c2d3e4f5a6",
             "issue_id": issues[0]["id"], "groupID": issues[0]["id"], "projectID": api["id"],
             "title": issues[0]["title"], "message": "", "platform": "python", "type": "error",
             "dateCreated": LAST, "dateReceived": LAST, "culprit": issues[0]["culprit"],
             "tags": [{"key": "environment", "value": "production"}, {"key": "release", "value": "checkout@2.0.1"}],
             "entries": [{"type": "exception", "data": {"values": [{"type": "CartPageError",
                                                                    "value": "cart of 51 items exceeds the checkout page"}]}}],
             "user": {"id": "cust_42", "email": "peter@initech.example.com"}, "contexts": {}, "context": {},
             "metadata": issues[0]["metadata"], "errors": [], "packages": {}, "sdk": {"name": "sentry.python",
                                                                                      "version": "2.20.0"}}
    return {"sentry_members": list(members.values()), "sentry_projects": projects, "sentry_issues": issues,
            "sentry_events": [event]}


def main() -> None:
    (HERE / "templates" / "sentry_default.json").write_text(json.dumps(build(), indent=1) + "\n")


if __name__ == "__main__":
    main()
