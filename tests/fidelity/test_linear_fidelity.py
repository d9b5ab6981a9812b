"""The fidelity suite for Linear: every query and mutation document `@linear/sdk` ships, sent
through the proxy as LinearClient sends it, with its required variables filled from the seed.
Linear's schema (generated from the same SDK) types every answer, so the check is what each
answers: data with no error, or an error of a type @linear/sdk maps to its typed errors (a
mutation the replica does not model answers `not supported`, which it reads as unknown). A
score per family (the document's root entity) is printed.

Documents that name an entity the seed has none of (an agent session, a customer, a document)
are counted and named, not sent: the replica cannot know what such an id would be.
"""

import json
from collections import Counter, defaultdict

import pytest

from tests.fidelity.linear_plan import SEED, plan, root_field
from tests.unit.test_linear_schema import sdk_documents

RUNNER = """
import json, httpx
answers = []
with httpx.Client(timeout=30) as client:
    for name, document, variables in json.loads(PLAN):
        r = client.post("https://api.linear.app/graphql", headers={"Authorization": "lin_api_fidelity"},
                        json={"query": document, "variables": variables})
        answers.append([name, r.status_code, r.json()])
print(json.dumps(answers))
"""
LINEAR_ERROR_TYPES = {"invalid input", "entity not found", "authentication error", "forbidden", "feature not accessible",
                      "ratelimited", "bootstrap error", "graphql error", "internal error", "lock timeout",
                      "network error", "other", "unknown", "user error", "usage limit exceeded", "not supported"}
# What the replica answered when this was written: every sent query; of the mutations it models,
# the share that succeeds with only their required fields (others refuse as Linear would: a
# comment needs an issue, a relation two issues).
QUERIES_FLOOR, MUTATIONS_FLOOR = 1.0, 0.5


def verdict(status: int, body: dict) -> str:
    if status == 200 and body.get("data") is not None and not body.get("errors"):
        return "ok"
    types = {e.get("extensions", {}).get("type") for e in body.get("errors", [])}
    return "not supported" if types == {"not supported"} else "refused"


@pytest.fixture(scope="module")
def answers(live_stack):
    documents = sdk_documents()
    steps, left = plan(documents)
    env = live_stack.store.create(SEED).env_id
    result = live_stack.run(env, f"PLAN = {json.dumps(json.dumps(steps))}\n" + RUNNER, ".py")
    assert result.exit_code == 0, result.stderr[-2000:]
    kinds = {name: root_field(document)[0] for name, document in documents.items()}
    return json.loads(result.stdout), left, kinds


def test_linear_answers_the_sdks_documents_and_prints_a_score_per_kind(answers):
    answered, left, kinds = answers
    table: dict[str, Counter] = defaultdict(Counter)
    untyped, refused = [], []
    for name, status, body in answered:
        found = verdict(status, body)
        table[kinds[name]][found] += 1
        untyped += [name for e in body.get("errors", []) if e.get("extensions", {}).get("type") not in LINEAR_ERROR_TYPES]
        if found == "refused":
            refused.append(f"{name.removesuffix('Document')}: {body['errors'][0]['message'][:70]}")
    unsent = Counter(kinds[name] for name in left)
    print("\nLinear fidelity against @linear/sdk's documents (linear_default):")
    for kind, label in (("query", "queries"), ("mutation", "mutations")):
        row = table[kind]
        print(f"  {label:10} sent {sum(row.values()):4}   answered {row['ok']:4}   not supported {row['not supported']:4}"
              f"   refused {row['refused']:4}   not sent (no such entity in the seed) {unsent[kind]:4}")
    print("  refused:", "; ".join(refused))
    assert untyped == [], "errors @linear/sdk cannot type"
    assert table["query"]["ok"] / sum(table["query"].values()) >= QUERIES_FLOOR
    modeled = table["mutation"]["ok"] + table["mutation"]["refused"]
    assert table["mutation"]["ok"] / modeled >= MUTATIONS_FLOOR
