"""A detour stack over HTTP: its platform API (environments, runs, rollouts), and nothing of the
stack imported. The seam is one `httpx.Client`; tests may hand in their own transport."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from typing import Any

import httpx

from detour_client.rollouts import Outcome, Rollout, agent_argv, plan, read_suite, stream

URL_VARIABLE = "DETOUR_URL"          # the stack's replica server, e.g. http://127.0.0.1:8000
KEY_VARIABLE = "DETOUR_API_KEY"      # `detour api-key` on the stack's machine prints it


class StackError(RuntimeError):
    """The stack refused a request or could not be reached; the message is its own words."""


class StackClient:
    """One stack's platform API. Every call blocks until the stack answers: a rollout's request
    returns once it is scored (and its environment gone), so a thread per rollout under way."""

    def __init__(self, url: str | None = None, api_key: str | None = None,
                 http: httpx.Client | None = None, timeout_s: float | None = None) -> None:
        url = url or os.environ.get(URL_VARIABLE, "")  # none: Ray's stacks only (`rollouts(ray_address=)`)
        key = api_key or os.environ.get(KEY_VARIABLE)
        self.http = http or httpx.Client(base_url=url, timeout=timeout_s, trust_env=False,
                                         headers={"X-API-Key": key} if key else {})
        self.live: set[str] = set()  # the run ids of this client's rollouts under way

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        if not str(self.http.base_url):
            raise StackError(f"no stack to talk to: pass its URL or set {URL_VARIABLE}")
        try:
            answer = self.http.request(method, f"/api/platform{path}", json=body)
        except httpx.HTTPError as e:
            raise StackError(f"the stack at {self.http.base_url} could not be reached: {e}") from None
        if answer.status_code >= 400:
            raise StackError(f"the stack refused {method} {path} ({answer.status_code}): {_detail(answer)}")
        return answer.json() if answer.content else None

    def health(self) -> bool:
        try:
            return self.http.get("/api/platform/health").status_code == 200
        except httpx.HTTPError:
            return False

    def create_environment(self, template: str | list[str], **fields: Any) -> dict[str, Any]:
        """The platform API's fields (env_id, acting_user, ttl_s, ...); the answer has its proxy URL."""
        return self._call("POST", "/environments", {"template": template, **fields})

    def environments(self) -> list[dict[str, Any]]:
        return self._call("GET", "/environments")["data"]

    def diff(self, env_id: str) -> dict[str, Any]:
        return self._call("GET", f"/environments/{env_id}/diff")

    def delete_environment(self, env_id: str) -> None:
        self._call("DELETE", f"/environments/{env_id}")

    def run(self, code: str, **fields: Any) -> dict[str, Any]:
        """A program in a sandbox behind the stack's proxy (language, env, template, backend, limits)."""
        return self._call("POST", "/run", {"code": code, **fields})

    def rollout(self, suite: dict[str, Any], job: Rollout, agent: list[str], **options: Any) -> Outcome:
        """One test played once on this stack (options: backend, mode, limits, keep)."""
        run_id = uuid.uuid4().hex
        self.live.add(run_id)
        try:
            return Outcome.of(self._call("POST", "/rollouts", {
                "suite": suite, "test": job.test, "rollout": job.rollout, "agent": agent_argv(agent),
                "run_id": run_id, **options}))
        finally:
            self.live.discard(run_id)

    def stop(self) -> None:
        """Ends the agents of this client's rollouts under way: each is then scored as not passed
        and its environment goes (what a Ctrl-C in `rollouts` does)."""
        for run_id in list(self.live):
            try:
                self.http.post(f"/api/platform/runs/{run_id}/stop")
            except httpx.HTTPError:
                pass  # the stack is gone: so is the rollout

    def rollouts(self, suite: str | os.PathLike | dict[str, Any], agent: list[str], n: int = 1, workers: int = 4,
                 test: str | None = None, **options: Any) -> Iterator[Outcome]:
        """Each test (or `test`) `n` times on this stack, `workers` at once, yielded as they
        finish (`score` is the reward); options as `rollout`'s."""
        data = read_suite(suite)
        return stream(plan(data, n, test), lambda job: self.rollout(data, job, agent, **options), workers,
                      stop=self.stop)

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> StackClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _detail(answer: httpx.Response) -> str:
    try:
        detail = answer.json().get("detail", answer.text)
    except ValueError:
        detail = answer.text
    return str(detail)[:500]
