"""The fidelity suite for Slack: every method the replica answers, called once through the proxy
with slack_sdk and typical arguments, each answer checked field by field against the response
type that Slack's npm client `@slack/web-api` declares for it; a score per family is printed
(`make fidelity` shows it).

It fails when an answer has a field of another type than the reference's, when a call answers
an error other than the ones listed with their reason, or when the share of fields the reference
knows falls below what it was when the suite was written. Fields the reference does not know are
counted and printed, not failed one by one: the reference is generated from samples of Slack's
answers and lacks some fields Slack does send (`auth.revoke`'s `revoked`, `dnd.info`'s
`snooze_enabled`, a user group's `auto_type`).
"""

import json
from collections import defaultdict

import pytest

from tests.fidelity.slack_plan import plan
from tests.fidelity.slack_reference import TYPES, verdict

RUNNER = """
import json, time
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

PNG = b"\\x89PNG\\r\\n\\x1a\\n" + bytes(32)
saved, answers = {"soon": int(time.time()) + 3600}, []

def resolved(value):
    if isinstance(value, str):
        for name, found in saved.items():
            value = value.replace("$" + name, str(found))
    return value

def dig(answer, path):
    for part in path.split("."):
        answer = answer.get(part) if isinstance(answer, dict) else None
    return answer

for method, args, saves in json.loads(PLAN):
    args = {k: resolved(v) for k, v in args.items()}
    files = {k: PNG for k, v in args.items() if v == "PNG"}
    args = {k: v for k, v in args.items() if k not in files}
    try:  # a token per method, so that auth.revoke revokes only its own
        data = WebClient(token="xoxb-" + method).api_call(method, data=args, files=files or None).data
    except SlackApiError as e:
        data = e.response.data
    for name, path in saves.items():
        saved[name] = dig(data, path)
    answers.append([method, data])
print(json.dumps(answers))
"""
# Calls of the plan that answer an error, and why that is Slack's answer too.
EXPECTED_ERRORS = {
    "files.completeUploadExternal: file_upload_not_complete": "the plan never POSTs bytes to the upload URL",
    "files.comments.delete: file_not_found": "Slack retired file comments; the file was deleted before",
    "apps.connections.open: not_allowed_token_type": "Socket Mode takes an app-level (xapp-) token, not the plan's",
    "apps.manifest.update: invalid_manifest": "the plan sends no manifest",
}
KNOWN_FIELDS_FLOOR = 0.97  # the share of answered fields the reference knows, when this was written


def family(method: str) -> str:
    return method.rsplit(".", 1)[0] if method.count(".") > 1 else method.split(".")[0]


@pytest.fixture(scope="module")
def answers(live_stack):
    if not TYPES.is_dir():
        pytest.fail(f"@slack/web-api's response types are not installed at {TYPES} (make installs them)")
    env = live_stack.store.create("slack_bench_v2").env_id
    script = f"PLAN = {json.dumps(json.dumps(plan()))}\n" + RUNNER
    result = live_stack.run(env, script, ".py")
    assert result.exit_code == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def scores(answers) -> dict[str, dict]:
    table: dict[str, dict] = defaultdict(lambda: {"methods": 0, "ok": 0, "ok_fields": 0, "unknown": 0, "type": [],
                                                  "covered": 0, "wanted": 0, "errors": []})
    for method, data in answers:
        row = table[family(method)]
        row["methods"] += 1
        if not data.get("ok"):
            row["errors"].append(f"{method}: {data.get('error')}")
            continue
        found = verdict(method, data)
        if found is None:
            continue
        row["ok"] += 1
        row["ok_fields"] += len(found["ok"])
        row["unknown"] += len(found["unknown"])
        row["type"] += [f"{method} {t}" for t in found["type"]]
        row["covered"] += len(found["covered"])
        row["wanted"] += len(found["covered"]) + len(found["missing"])
    return dict(table)


def test_slack_answers_have_the_reference_types_and_print_a_score_per_family(answers):
    table = scores(answers)
    print("\nSlack fidelity against @slack/web-api's response types (per family):")
    print(f"{'family':28} {'methods':>7} {'ok':>4} {'fields':>7} {'unknown':>7} {'wrong':>5} {'coverage':>8}")
    for name, row in sorted(table.items()):
        known = row["ok_fields"] + row["unknown"] + len(row["type"])
        coverage = f"{row['covered']}/{row['wanted']}"
        print(f"{name:28} {row['methods']:>7} {row['ok']:>4} {row['ok_fields']:>3}/{known:<3} {row['unknown']:>7} "
              f"{len(row['type']):>5} {coverage:>8}")
    unknown = sorted({f for method, data in answers if data.get("ok")
                      for f in (verdict(method, data) or {"unknown": []})["unknown"]})
    print("fields the reference does not know:", ", ".join(unknown))
    assert [t for row in table.values() for t in row["type"]] == [], "fields of another type than the reference's"
    assert sorted(e for row in table.values() for e in row["errors"]) == sorted(EXPECTED_ERRORS)
    ok_fields = sum(row["ok_fields"] for row in table.values())
    assert ok_fields / (ok_fields + sum(row["unknown"] for row in table.values())) >= KNOWN_FIELDS_FLOOR
