"""detour's client: drive detour stacks over HTTP from a trainer's own environment.

It imports no part of the stack (no mitmproxy, no replicas, no sandboxes) and needs only httpx,
so it installs beside any trainer's pins (`pip install detour-client`); the stack runs
elsewhere (`detour serve`, compose, Kubernetes, or one per Ray node: detour_client.ray).

    from detour_client import Client
    client = Client("http://127.0.0.1:8000", api_key="...")    # or DETOUR_URL, DETOUR_API_KEY
    for outcome in client.rollouts("suite.json", ["python3", "agent.py"], n=8, workers=4):
        outcome.id, outcome.rollout, outcome.score
    client.rollouts("suite.json", agent, n=8, ray_address="auto")   # a stack per Ray node
"""

from detour_client.client import Client
from detour_client.http import StackClient, StackError
from detour_client.rollouts import Outcome, Rollout, SuiteError

__all__ = ["Client", "Outcome", "Rollout", "StackClient", "StackError", "SuiteError"]
