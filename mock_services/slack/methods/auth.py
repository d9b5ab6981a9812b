"""auth.*"""

from __future__ import annotations

from mock_services.slack.call import SlackCall


def auth_test(call: SlackCall) -> dict:
    user = call.user
    team = call.state.first("teams") or {}
    domain = (team.get("team_name") or "workspace").lower().replace(" ", "-")
    return {
        "url": f"https://{domain}.slack.com/",
        "team": team.get("team_name", ""),
        "user": user.get("username", ""),
        "team_id": team.get("team_id", ""),
        "user_id": user["user_id"],
        "is_enterprise_install": False,
    }


METHODS = {"auth.test": auth_test}
