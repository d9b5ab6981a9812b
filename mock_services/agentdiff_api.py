"""AgentDiff's run lifecycle on the replica server, in the shapes its Python SDK (`agent-diff`)
sends and reads: initEnv, env deletion, startRun, evaluateRun, diffRun and results.

A run keeps its own before-state (a snapshot in the environment's database), so several
runs on one environment diff independently; evaluations use detour's assertion engine;
runs and their results are files under $DETOUR_HOME, so they survive restarts.
"""

from __future__ import annotations

import secrets
import time
from datetime import datetime, timezone
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict

from detour.assertions import evaluate, parse_spec
from detour.errors import DetourError
from mock_services.deps import StoreDep
from mock_services.errors import EnvironmentNotFound
from mock_services.store import EnvironmentStore
from mock_services.templates import load_template

router = APIRouter(prefix="/api/platform", tags=["agentdiff"])
Service = Literal["slack", "linear", "box", "calendar"]


class NotSupported(DetourError):
    pass


class RunNotFound(EnvironmentNotFound):
    pass


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InitEnv(Model):
    testId: str | None = None
    templateId: str | None = None
    templateService: Service | None = None
    templateName: str | None = None
    templateSchema: str | None = None
    ttlSeconds: int | None = None
    impersonateUserId: str | None = None
    impersonateEmail: str | None = None


class InitEnvResult(BaseModel):
    environmentId: str
    templateSchema: str
    schemaName: str
    service: str
    environmentUrl: str
    expiresAt: datetime | None


class DeleteEnvResult(BaseModel):
    environmentId: str
    status: str


class StartRun(Model):
    envId: str
    testId: str | None = None
    testSuiteId: str | None = None


class StartRunResult(BaseModel):
    runId: str
    status: str
    beforeSnapshot: str | None = None


class EvaluateRun(Model):
    runId: str
    expectedOutput: dict[str, Any] | None = None


class EvaluateRunResult(BaseModel):
    runId: str
    status: str
    passed: bool
    score: dict[str, Any]


class DiffRun(Model):
    runId: str | None = None
    envId: str | None = None
    beforeSuffix: str | None = None


class DiffRunResult(BaseModel):
    beforeSnapshot: str | None = None
    afterSnapshot: str | None = None
    diff: dict[str, Any]


class Run(BaseModel):
    """A run as stored: what AgentDiff's results endpoint answers, plus its environment."""

    runId: str
    envId: str
    status: Literal["running", "completed"]
    passed: bool = False
    score: dict[str, Any] = {}
    failures: list[str] = []
    diff: dict[str, Any] | None = None
    createdAt: datetime


class RunBook:
    """Runs as JSON files under $DETOUR_HOME/agentdiff/runs."""

    def __init__(self, store: EnvironmentStore) -> None:
        self.folder = store.state.home / "agentdiff" / "runs"

    def save(self, run: Run) -> Run:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / f"{run.runId}.json.tmp"
        tmp.write_text(run.model_dump_json())
        tmp.rename(self.folder / f"{run.runId}.json")
        return run

    def get(self, run_id: str) -> Run:
        path = self.folder / f"{run_id}.json"
        if not run_id.replace("-", "").isalnum() or not path.is_file():
            raise RunNotFound(f"no run {run_id!r}")
        return Run.model_validate_json(path.read_text())


def template_for(body: InitEnv) -> str:
    if body.testId or body.templateId:
        raise NotSupported("initEnv by testId or templateId is not supported yet: give templateService and "
                           "templateName (detour's template names: GET /api/platform/templates)")
    if body.impersonateEmail:
        raise NotSupported("impersonateEmail is not supported yet: give impersonateUserId")
    name = body.templateName or body.templateSchema
    if not name:
        raise NotSupported("initEnv needs templateName (or templateSchema)")
    return name


@router.post("/initEnv")
def init_env(body: InitEnv, store: StoreDep, request: Request) -> InitEnvResult:
    name = template_for(body)
    template = load_template(store.state, name)
    if body.templateService and body.templateService != template.service:
        raise NotSupported(f"template {name!r} is a {template.service} template, not {body.templateService}")
    info = store.create(name, acting_user=body.impersonateUserId)
    expires = datetime.fromtimestamp(time.time() + body.ttlSeconds, timezone.utc) if body.ttlSeconds else None
    base = str(request.base_url).rstrip("/")
    return InitEnvResult(environmentId=info.env_id, templateSchema=template.name, schemaName=info.env_id,
                         service=info.service, environmentUrl=f"{base}/api/env/{info.env_id}/services/{info.service}",
                         expiresAt=expires)


@router.delete("/env/{env_id}")
def delete_env(env_id: str, store: StoreDep) -> DeleteEnvResult:
    store.delete(env_id)
    return DeleteEnvResult(environmentId=env_id, status="deleted")


@router.post("/startRun")
def start_run(body: StartRun, store: StoreDep) -> StartRunResult:
    if body.testId or body.testSuiteId:
        raise NotSupported("startRun with a testId is not supported yet: give envId and pass expectedOutput "
                           "to evaluateRun")
    run = Run(runId=secrets.token_hex(8), envId=body.envId, status="running", createdAt=datetime.now(timezone.utc))
    store.snapshot(body.envId, run.runId)
    RunBook(store).save(run)
    return StartRunResult(runId=run.runId, status=run.status)


@router.post("/evaluateRun")
def evaluate_run(body: EvaluateRun, store: StoreDep) -> EvaluateRunResult:
    book = RunBook(store)
    run = book.get(body.runId)
    if body.expectedOutput is None:
        raise NotSupported("evaluateRun needs expectedOutput (runs started from a test are not supported yet)")
    diff = store.diff(run.envId, since=run.runId)
    results = evaluate(parse_spec(body.expectedOutput), diff)
    passed = sum(r.passed for r in results)
    run = book.save(run.model_copy(update={
        "status": "completed", "passed": passed == len(results), "diff": diff.model_dump(),
        "score": {"passed": passed, "total": len(results),
                  "percent": round(100 * passed / len(results), 1) if results else 100.0},
        "failures": [f"#{r.index} {r.assertion.diff_type} {r.assertion.entity}: {r.message}"
                     for r in results if not r.passed]}))
    return EvaluateRunResult(runId=run.runId, status=run.status, passed=run.passed, score=run.score)


@router.post("/diffRun")
def diff_run(body: DiffRun, store: StoreDep) -> DiffRunResult:
    if body.runId:
        run = RunBook(store).get(body.runId)
        return DiffRunResult(diff=store.diff(run.envId, since=run.runId).model_dump())
    if body.envId:
        return DiffRunResult(diff=store.diff(body.envId).model_dump())
    raise NotSupported("diffRun needs runId or envId")


@router.get("/results/{run_id}")
def results(run_id: str, store: StoreDep) -> Run:
    return RunBook(store).get(run_id)
