"""The platform API: environments and templates over HTTP, for callers that are not the CLI."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel

from detour.credentials import InvalidEnvId
from mock_services.deps import StoreDep
from mock_services.errors import EnvironmentExists, EnvironmentNotFound, InvalidTemplate, UnknownTemplate
from mock_services.store import EnvironmentInfo, StateDiff
from mock_services.templates import template_names

router = APIRouter(prefix="/api/platform", tags=["platform"])


class EnvironmentCreate(BaseModel):
    template: str
    env_id: str | None = None
    acting_user: str | None = None


class EnvironmentsPublic(BaseModel):
    data: list[EnvironmentInfo]
    count: int


def _http_error(e: Exception) -> HTTPException:
    if isinstance(e, EnvironmentNotFound):
        return HTTPException(404, str(e))
    if isinstance(e, EnvironmentExists):
        return HTTPException(409, str(e))
    return HTTPException(400, str(e))


USER_ERRORS = (EnvironmentNotFound, EnvironmentExists, UnknownTemplate, InvalidTemplate, InvalidEnvId)


@router.get("/health")
def health() -> dict:
    return {"status": "ok"}


@router.get("/templates")
def list_templates(store: StoreDep) -> list[str]:
    return template_names(store.state)


@router.post("/environments", status_code=201)
def create_environment(body: EnvironmentCreate, store: StoreDep) -> EnvironmentInfo:
    try:
        return store.create(body.template, env_id=body.env_id, acting_user=body.acting_user)
    except USER_ERRORS as e:
        raise _http_error(e) from None


@router.get("/environments")
def list_environments(store: StoreDep) -> EnvironmentsPublic:
    envs = store.list()
    return EnvironmentsPublic(data=envs, count=len(envs))


@router.get("/environments/{env_id}")
def get_environment(env_id: str, store: StoreDep) -> EnvironmentInfo:
    try:
        return store.get(env_id)
    except USER_ERRORS as e:
        raise _http_error(e) from None


@router.get("/environments/{env_id}/diff")
def diff_environment(env_id: str, store: StoreDep) -> StateDiff:
    try:
        return store.diff(env_id)
    except USER_ERRORS as e:
        raise _http_error(e) from None


@router.delete("/environments/{env_id}", status_code=204)
def delete_environment(env_id: str, store: StoreDep) -> None:
    try:
        store.delete(env_id)
    except USER_ERRORS as e:
        raise _http_error(e) from None
