"""AgentDiff's platform API as its Python SDK (`agent-diff`) sends and reads it: the contract
of mock_services/agentdiff/router.py. Field names are AgentDiff's (camelCase and snake_case
as it mixes them)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

Service = str  # a registered pack's name (AgentDiff's own: slack, linear, box, calendar)
Visibility = Literal["public", "private"]
TestType = Literal["actionEval", "retriEval", "compositeEval"]


class Request(BaseModel):
    """What a caller sends: unknown fields are a clear 422, not silently dropped."""

    model_config = ConfigDict(extra="forbid")


class InitEnv(Request):
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


class StartRun(Request):
    envId: str
    testId: str | None = None
    testSuiteId: str | None = None


class StartRunResult(BaseModel):
    runId: str
    status: str
    beforeSnapshot: str | None = None


class EvaluateRun(Request):
    runId: str
    expectedOutput: dict[str, Any] | None = None


class EvaluateRunResult(BaseModel):
    runId: str
    status: str
    passed: bool
    score: dict[str, Any]


class DiffRun(Request):
    runId: str | None = None
    envId: str | None = None
    beforeSuffix: str | None = None


class DiffRunResult(BaseModel):
    beforeSnapshot: str | None = None
    afterSnapshot: str | None = None
    diff: dict[str, Any]


class Run(BaseModel):
    """A run as stored: what the results endpoint answers, plus its environment and test."""

    runId: str
    envId: str
    testId: str | None = None
    status: Literal["running", "completed"]
    passed: bool = False
    score: dict[str, Any] = {}
    failures: list[str] = []
    diff: dict[str, Any] | None = None
    createdAt: datetime


class TemplateSummary(BaseModel):
    id: str
    service: str
    description: str | None = None
    name: str


class TemplateDetail(TemplateSummary):
    version: str
    schemaName: str


class TemplateList(BaseModel):
    templates: list[TemplateSummary]


class TemplateFromEnvironment(Request):
    environmentId: str
    service: Service
    name: str
    description: str | None = None
    visibility: Visibility = "private"
    version: str = "v1"


class TemplateFromEnvironmentResult(BaseModel):
    templateId: str
    templateName: str
    service: Service


class TestItem(Request):
    name: str
    prompt: str
    type: TestType
    expected_output: dict[str, Any]
    environmentTemplate: str
    impersonateUserId: str | None = None

    @field_validator("expected_output", mode="before")
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        """AgentDiff accepts the expected output as JSON text too."""
        return json_object(value) if isinstance(value, str) else value


class Test(BaseModel):
    id: str
    name: str
    prompt: str
    type: TestType
    seed_template: str
    expected_output: dict[str, Any]
    impersonateUserId: str | None = None
    created_at: datetime
    updated_at: datetime


class CreateTests(Request):
    tests: list[TestItem]
    defaultEnvironmentTemplate: str | None = None


class CreateTestsResult(BaseModel):
    tests: list[Test]


class CreateSuite(Request):
    name: str
    description: str
    visibility: Visibility = "private"
    tests: list[TestItem] | None = None


class SuiteSummary(BaseModel):
    id: str
    name: str
    description: str


class CreateSuiteResult(SuiteSummary):
    visibility: Visibility


class Suite(SuiteSummary):
    owner: str
    visibility: Visibility
    created_at: datetime
    updated_at: datetime
    tests: list[Test]


class SuiteList(BaseModel):
    testSuites: list[SuiteSummary]


def json_object(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise ValueError(f"expected_output is not valid JSON: {e}") from None
