# expect: proxy=ok rewrite=ok
# template: linear_default
import httpx

API = "https://api.linear.app/graphql"
with httpx.Client(headers={"Authorization": "lin_api_1"}) as linear:
    teams = linear.post(API, json={"query": "{ teams { nodes { id key } } }"}).json()["data"]["teams"]["nodes"]
    eng = next(t["id"] for t in teams if t["key"] == "ENG")
    created = linear.post(API, json={
        "query": "mutation($i: IssueCreateInput!) { issueCreate(input: $i) { success issue { identifier } } }",
        "variables": {"i": {"teamId": eng, "title": "Flaky login test", "priority": 2}}}).json()
    assert created["data"]["issueCreate"]["success"], created
