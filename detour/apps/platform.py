"""The platform API: environments and templates over HTTP, for callers that are not the CLI."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from detour_core.strict import Strict
from detour_core.credentials import secret_for
from detour_core.faults import Fault
from detour_core.policy import set_faults
from mock_services.clock import Clock, moved
from mock_services.deps import StoreDep
from mock_services.request_budget import RequestBudget
from mock_services.store import EnvironmentInfo, StateDiff
from mock_services.timelines.run import set_clock

router = APIRouter(prefix="/api/platform", tags=["platform"])
# Open to anyone who can reach the server: a load balancer's or `detour serve`'s health check.
health_router = APIRouter(prefix="/api/platform", tags=["platform"])


class EnvironmentCreate(Strict):
    template: str | list[str] = Field(description="The template it starts from (a service's or a world's), or "
                                                  "several of different services joined into one world.")
    env_id: str | None = Field(None, description="Its id; without one, a new id.")
    acting_user: str | None = Field(None, description="The user whose tokens its runs get (default: the seed's "
                                                      "first); in a world, a person's handle.")
    request_budget: RequestBudget | None = None
    ttl_s: float | None = Field(None, description="Seconds before it is deleted.")
    require_issued_tokens: bool = Field(False, description="Refuse a token the environment did not issue.")


class EnvironmentsPublic(BaseModel):
    data: list[EnvironmentInfo]
    count: int


@health_router.get("/health")
def health() -> dict:
    return {"status": "ok"}


class EnvironmentAccess(BaseModel):
    """What a client needs to use an environment through the stack's proxy (behind the API key)."""

    secret: str = Field(description="The environment's proxy password; the proxy URL's user is the env_id.")
    proxy_url: str | None = Field(description="http://ENV_ID:SECRET@HOST:PORT of this stack's proxy; null on a "
                                              "server with no proxy beside it (compose's replicas container).")


class EnvironmentCreated(EnvironmentInfo, EnvironmentAccess):
    """The new environment, and how to reach it."""


def access(request: Request, env_id: str) -> EnvironmentAccess:
    secret = secret_for(request.app.state.store.state, env_id)
    client = request.app.state.run_client  # a whole stack's server knows its proxy (detour.apps.server)
    return EnvironmentAccess(secret=secret, proxy_url=client.stack.access(env_id, secret).url() if client else None)


@health_router.get("/docs", include_in_schema=False)
def docs() -> HTMLResponse:
    """FastAPI's page over /openapi.json: every path of the platform API, its models and their fields."""
    return get_swagger_ui_html(openapi_url="/openapi.json", title="detour platform API")


@router.post("/environments", status_code=201)
def create_environment(body: EnvironmentCreate, store: StoreDep, request: Request) -> EnvironmentCreated:
    info = store.create(body.template, env_id=body.env_id, acting_user=body.acting_user,
                        request_budget=body.request_budget, ttl_s=body.ttl_s,
                        require_issued_tokens=body.require_issued_tokens)
    return EnvironmentCreated(**info.model_dump(), **access(request, info.env_id).model_dump())


@router.get("/environments/{env_id}/access")
def environment_access(env_id: str, store: StoreDep, request: Request) -> EnvironmentAccess:
    """The environment's proxy credentials and URL, for a client that is not detour's CLI."""
    store.get(env_id)
    return access(request, env_id)


@router.get("/environments")
def list_environments(store: StoreDep) -> EnvironmentsPublic:
    envs = store.list()
    return EnvironmentsPublic(data=envs, count=len(envs))


@router.get("/environments/{env_id}")
def get_environment(env_id: str, store: StoreDep) -> EnvironmentInfo:
    return store.get(env_id)


@router.get("/environments/{env_id}/tokens")
def issued_tokens(env_id: str, store: StoreDep) -> dict[str, str]:
    """The token the environment issued each of its users."""
    return store.credentials(env_id).tokens


@router.put("/environments/{env_id}/request-budget")
def set_request_budget(env_id: str, store: StoreDep,
                       budget: Annotated[RequestBudget | None, Body()] = None) -> EnvironmentInfo:
    """Requests beyond the budget get the service's rate-limit answer (Slack: 429 `ratelimited`)."""
    return store.set_request_budget(env_id, budget)


class ForkRequest(Strict):
    count: int = Field(1, ge=1, le=1000, description="How many copies of the environment, as it stands now.")


@router.post("/environments/{env_id}/fork", status_code=201)
def fork_environment(env_id: str, store: StoreDep, body: Annotated[ForkRequest | None, Body()] = None
                     ) -> EnvironmentsPublic:
    """Each copy its own environment (id, credentials, state); each one's diff starts now."""
    forks = store.fork(env_id, (body or ForkRequest()).count)
    return EnvironmentsPublic(data=forks, count=len(forks))


class ClockSet(Strict):
    """The environment's time from now on: `at` (ISO 8601 or epoch seconds), frozen or running from
    it; `advance_s` steps the current time; `real` returns to the wall clock."""
    at: datetime | None = None
    mode: Literal["frozen", "running", "real"] = "frozen"
    advance_s: float | None = None


@router.put("/environments/{env_id}/clock")
def set_environment_clock(env_id: str, store: StoreDep, body: ClockSet) -> Clock:
    return set_clock(store, env_id, moved(store.get(env_id).clock, body.at, body.mode, body.advance_s)).clock


@router.put("/environments/{env_id}/faults")
def set_environment_faults(env_id: str, store: StoreDep, faults: Annotated[list[Fault], Body()]) -> list[Fault]:
    """What goes wrong on purpose (detour_core.faults), from the proxy's next request on; [] clears."""
    store.get(env_id)
    return set_faults(store.state, env_id, faults).faults


@router.get("/environments/{env_id}/diff")
def diff_environment(env_id: str, store: StoreDep) -> StateDiff:
    return store.diff(env_id)


@router.delete("/environments/{env_id}", status_code=204)
def delete_environment(env_id: str, store: StoreDep) -> None:
    store.delete(env_id)
