"""AgentDiff's platform API on the replica server, so AgentDiff's SDK works unmodified with
detour's base URL: environments (initEnv, deletion), templates, test suites and tests, and
runs (startRun, evaluateRun, diffRun, results).

A run keeps its own before-state (a snapshot in the environment's database), so several
runs on one environment diff independently; evaluations use detour's assertion engine.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime, timezone
from typing import Any

from fastapi import APIRouter, Depends, Request

from mock_services.assertions import evaluate_environment, parse_spec
from detour_core.errors import DetourError
from detour.apps.agentdiff import models as m
from detour.apps.agentdiff.library import Library, now, template_id, template_name
from mock_services.deps import StoreDep
from mock_services.store import EnvironmentStore
from detour_core.registry import pack
from mock_services.templates import Template, load_template, save_template, template_names

router = APIRouter(prefix="/api/platform", tags=["agentdiff"])


class NotSupported(DetourError):
    pass


def library(store: StoreDep) -> Library:
    return Library(store.state)


LibraryDep = Depends(library)


def seed_for(body: m.InitEnv, lib: Library) -> tuple[str, str | None]:
    """The template and the acting user an initEnv asks for (by id; an email comes later)."""
    if body.testId:
        test = lib.test(body.testId)
        return test.seed_template, body.impersonateUserId or test.impersonateUserId
    name = body.templateId or body.templateName or body.templateSchema
    if not name:
        raise NotSupported("initEnv needs testId, templateId or templateName")
    return template_name(lib.state, name), body.impersonateUserId


def user_by_email(template: Template, email: str) -> str:
    """The user (in a world, the person) with that email."""
    if template.is_world:
        person = next((p for p in template.people if p.email.lower() == email.lower()), None)
        if person is None:
            raise NotSupported(f"no person with email {email!r} in world {template.name!r}")
        return person.person
    service = pack(template.service)
    key = service.primary_key(service.users_table)[0]
    for user in template.tables.get(service.users_table, []):
        if str(user.get("email", "")).lower() == email.lower():
            return user[key]
    raise NotSupported(f"no user with email {email!r} in template {template.name!r}")


@router.post("/initEnv")
def init_env(body: m.InitEnv, store: StoreDep, request: Request, lib: Library = LibraryDep) -> m.InitEnvResult:
    name, user = seed_for(body, lib)
    template = load_template(store.state, name)
    if body.templateService and body.templateService not in (template.service, *template.held()):
        raise NotSupported(f"template {name!r} is a {template.service} template, not {body.templateService}")
    if body.impersonateEmail:
        user = user_by_email(template, body.impersonateEmail)
    info = store.create(name, acting_user=user, ttl_s=body.ttlSeconds)
    expires = datetime.fromtimestamp(info.expires_at, timezone.utc) if info.expires_at else None
    base = str(request.base_url).rstrip("/")
    return m.InitEnvResult(environmentId=info.env_id, templateSchema=template.name, schemaName=info.env_id,
                           service=info.service, expiresAt=expires,
                           environmentUrl=f"{base}/api/env/{info.env_id}" + (
                               "" if info.is_world else f"/services/{info.service}"))


@router.delete("/env/{env_id}")
def delete_env(env_id: str, store: StoreDep) -> m.DeleteEnvResult:
    store.delete(env_id)
    return m.DeleteEnvResult(environmentId=env_id, status="deleted")


def template_summary(store: EnvironmentStore, name: str) -> m.TemplateDetail:
    template = load_template(store.state, name)
    return m.TemplateDetail(id=template_id(name), service=template.service, name=name, version="v1",
                            schemaName=name, description=None)


@router.get("/templates")
def list_templates(store: StoreDep) -> m.TemplateList:
    return m.TemplateList(templates=[template_summary(store, name) for name in template_names(store.state)])


@router.get("/templates/{name_or_id}")
def get_template(name_or_id: str, store: StoreDep) -> m.TemplateDetail:
    return template_summary(store, template_name(store.state, name_or_id))


@router.post("/templates/from-environment")
def template_from_environment(body: m.TemplateFromEnvironment, store: StoreDep) -> m.TemplateFromEnvironmentResult:
    info = store.get(body.environmentId)
    if body.service not in (info.service, *info.held()):
        raise NotSupported(f"environment {body.environmentId!r} is not a {body.service} environment")
    with store.open(body.environmentId) as state:
        save_template(store.state, body.name, state.template_body())
    return m.TemplateFromEnvironmentResult(templateId=template_id(body.name), templateName=body.name,
                                           service=body.service)


@router.post("/testSuites")
def create_suite(body: m.CreateSuite, lib: Library = LibraryDep) -> m.CreateSuiteResult:
    stamp = now()
    suite = m.Suite(id=str(uuid.uuid4()), name=body.name, description=body.description, owner="detour",
                    visibility=body.visibility, created_at=stamp, updated_at=stamp,
                    tests=lib.new_tests(body.tests or []))
    lib.suites.save(suite.id, suite)
    return m.CreateSuiteResult(id=suite.id, name=suite.name, description=suite.description,
                               visibility=suite.visibility)


@router.get("/testSuites")
def list_suites(name: str | None = None, id: str | None = None, visibility: m.Visibility | None = None,
                lib: Library = LibraryDep) -> m.SuiteList:
    suites = [s for s in lib.suites.all() if (name is None or name.lower() in s.name.lower())
              and (id is None or s.id == id) and (visibility is None or s.visibility == visibility)]
    return m.SuiteList(testSuites=[m.SuiteSummary(id=s.id, name=s.name, description=s.description) for s in suites])


@router.get("/testSuites/{suite_id}")
def get_suite(suite_id: str, expand: str | None = None, lib: Library = LibraryDep) -> dict[str, Any]:
    """With ?expand=tests the whole suite; otherwise only its tests, as AgentDiff answers."""
    suite = lib.suites.get(suite_id)
    return suite.model_dump(mode="json") if expand else {"tests": [t.model_dump(mode="json") for t in suite.tests]}


@router.post("/testSuites/{suite_id}/tests")
def create_tests(suite_id: str, body: m.CreateTests, lib: Library = LibraryDep) -> m.CreateTestsResult:
    suite = lib.suites.get(suite_id)
    tests = lib.new_tests(body.tests, body.defaultEnvironmentTemplate)
    lib.suites.save(suite.id, suite.model_copy(update={"tests": [*suite.tests, *tests], "updated_at": now()}))
    return m.CreateTestsResult(tests=tests)


@router.get("/tests/{test_id}")
def get_test(test_id: str, lib: Library = LibraryDep) -> m.Test:
    return lib.test(test_id)


@router.post("/startRun")
def start_run(body: m.StartRun, store: StoreDep, lib: Library = LibraryDep) -> m.StartRunResult:
    if body.testId:
        lib.test(body.testId)  # a clear 404 now rather than at evaluation
    run = m.Run(runId=secrets.token_hex(8), envId=body.envId, testId=body.testId, status="running",
                createdAt=now())
    store.snapshot(body.envId, run.runId)
    lib.runs.save(run.runId, run)
    return m.StartRunResult(runId=run.runId, status=run.status)


def expected_for(body: m.EvaluateRun, run: m.Run, lib: Library) -> dict[str, Any]:
    if body.expectedOutput is not None:
        return body.expectedOutput
    if run.testId:
        return lib.test(run.testId).expected_output
    raise NotSupported("evaluateRun needs expectedOutput, or a run started with a testId")


@router.post("/evaluateRun")
def evaluate_run(body: m.EvaluateRun, store: StoreDep, lib: Library = LibraryDep) -> m.EvaluateRunResult:
    run = lib.runs.get(body.runId)
    results = evaluate_environment(parse_spec(expected_for(body, run, lib)), store, run.envId, since=run.runId)
    diff = store.diff(run.envId, since=run.runId)
    passed = sum(r.passed for r in results)
    run = lib.runs.save(run.runId, run.model_copy(update={
        "status": "completed", "passed": passed == len(results), "diff": diff.model_dump(),
        "score": {"passed": passed, "total": len(results),
                  "percent": round(100 * passed / len(results), 1) if results else 100.0},
        "failures": [f"#{r.index} {r.assertion.diff_type} {r.assertion.entity}: {r.message}"
                     for r in results if not r.passed]}))
    return m.EvaluateRunResult(runId=run.runId, status=run.status, passed=run.passed, score=run.score)


@router.post("/diffRun")
def diff_run(body: m.DiffRun, store: StoreDep, lib: Library = LibraryDep) -> m.DiffRunResult:
    if body.runId:
        run = lib.runs.get(body.runId)
        return m.DiffRunResult(diff=store.diff(run.envId, since=run.runId).model_dump())
    if body.envId:
        return m.DiffRunResult(diff=store.diff(body.envId).model_dump())
    raise NotSupported("diffRun needs runId or envId")


@router.get("/results/{run_id}")
def results(run_id: str, lib: Library = LibraryDep) -> m.Run:
    return lib.runs.get(run_id)
