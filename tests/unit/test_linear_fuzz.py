"""The Linear replica driven with random valid queries drawn from Linear's schema, random
mutations, malformed bodies, and oversized or deep queries: never a 5xx, never an internal error."""

import json

import pytest
from fastapi.testclient import TestClient
from graphql import (GraphQLEnumType, GraphQLInputObjectType, GraphQLInterfaceType, GraphQLList, GraphQLNonNull,
                     GraphQLObjectType, GraphQLScalarType, GraphQLUnionType, get_named_type, get_nullable_type)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from detour_core.paths import StatePaths
from detour.apps.server import create_app
from mock_services.graphql.limits import MAX_DEPTH
from mock_services.linear.router import schema
from mock_services.store import EnvironmentStore

SEEDED = ["ENG-1", "ENG-2", "ad608998-915c-4bad-bcd9-85ebfccccee8", "2dcc8dc2-ca19-475d-9882-3ba5e911e7ec",
          "6c2b0d3c-3d6d-4d91-9a77-b93b59b8d5a0", "c6e168e3-fed4-45d0-b03f-a1c1f89ee7ab"]
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])


@pytest.fixture(scope="module")
def replica(tmp_path_factory):
    state = StatePaths(tmp_path_factory.mktemp("linear-fuzz")).ensure()
    client = TestClient(create_app(state), raise_server_exceptions=False)
    env = EnvironmentStore(state).create("linear_default").env_id

    def post(body: bytes | dict, content_type: str = "application/json"):
        content = json.dumps(body).encode() if isinstance(body, dict) else body
        return client.post(f"/api/env/{env}/services/linear/graphql", content=content,
                           headers={"Authorization": "lin_api_fuzz", "Content-Type": content_type})
    return post


def literal(draw, gql_type, depth: int = 0) -> str:
    """A GraphQL literal of the type (sometimes of the wrong type: validation must catch it)."""
    inner = get_nullable_type(gql_type)
    if not isinstance(gql_type, GraphQLNonNull) and draw(st.integers(0, 5)) == 0:
        return "null"
    if isinstance(inner, GraphQLList):
        return "[" + ", ".join(literal(draw, inner.of_type, depth + 1) for _ in range(draw(st.integers(0, 2)))) + "]"
    if isinstance(inner, GraphQLEnumType):
        return draw(st.sampled_from(list(inner.values)))
    if isinstance(inner, GraphQLInputObjectType):
        if depth > 3:
            return "{}"
        names = draw(st.lists(st.sampled_from(sorted(inner.fields)), max_size=3, unique=True))
        required = [n for n, f in inner.fields.items() if isinstance(f.type, GraphQLNonNull)]
        return "{" + ", ".join(f"{n}: {literal(draw, inner.fields[n].type, depth + 1)}"
                               for n in dict.fromkeys([*required, *names])) + "}"
    name = inner.name if isinstance(inner, GraphQLScalarType) else "String"
    if name in ("Int", "Float"):
        return str(draw(st.integers(-5, 10**12)) if name == "Int" else draw(st.floats(-1e9, 1e9)))
    if name == "Boolean":
        return draw(st.sampled_from(["true", "false"]))
    value = draw(st.one_of(st.sampled_from(SEEDED), st.text(max_size=12),
                           st.sampled_from(["-P2W", "2024-01-01", "P1D", "blocks", ""])))
    return json.dumps(value)


def selection(draw, gql_type, depth: int) -> str:
    named = get_named_type(gql_type)
    if isinstance(named, GraphQLUnionType | GraphQLInterfaceType):
        return "{ __typename }"
    if not isinstance(named, GraphQLObjectType):
        return ""
    if depth >= 3:
        leaves = [n for n, f in named.fields.items() if not isinstance(get_named_type(f.type), GraphQLObjectType)
                  and not any(isinstance(a.type, GraphQLNonNull) for a in f.args.values())]
        return "{ " + (leaves[0] if leaves else "__typename") + " }"
    names = draw(st.lists(st.sampled_from(sorted(named.fields)), min_size=1, max_size=3, unique=True))
    parts = []
    for name in names:
        field = named.fields[name]
        args = [f"{a}: {literal(draw, arg.type)}" for a, arg in field.args.items()
                if isinstance(arg.type, GraphQLNonNull) or draw(st.integers(0, 3)) == 0]
        parts.append(name + (f"({', '.join(args)})" if args else "") + " " + selection(draw, field.type, depth + 1))
    return "{ " + " ".join(parts) + " }"


@st.composite
def operations(draw):
    root_name = draw(st.sampled_from(["query", "query", "mutation"]))
    root = schema().query_type if root_name == "query" else schema().mutation_type
    return root_name + " " + selection(draw, root, 0)


def assert_no_server_error(response) -> None:
    assert response.status_code < 500, response.text
    body = response.json()
    assert all(e.get("message") != "Internal error" for e in body.get("errors", [])), body["errors"]


@settings(max_examples=400, **SETTINGS)
@given(document=operations())
def test_random_operations_from_linears_schema(replica, document):
    assert_no_server_error(replica({"query": document}))


@settings(max_examples=150, **SETTINGS)
@given(raw=st.one_of(st.binary(max_size=80), st.text(max_size=80).map(str.encode)),
       content_type=st.sampled_from(["application/json", "text/plain", ""]))
def test_malformed_bodies(replica, raw, content_type):
    response = replica(raw, content_type)
    assert response.status_code < 500 and "errors" in response.json()


@pytest.mark.parametrize("body", [
    {"query": "{ viewer { id } }", "variables": "not an object"},
    {"query": "{ viewer { id } }", "operationName": 7},
    {"query": 7},
    {"query": "{ __schema { types { name fields { name } } } }"},
    {"query": "query A { viewer { id } } query B { viewer { id } }"},
    {"query": "fragment F on User { ...F } { viewer { ...F } }"},
    {"query": "{ viewer { id } }" + " " * 10 + "{" * 5000},
    {"query": "{ " + " ".join(f"a{i}: viewer {{ id }}" for i in range(6000)) + " }"},
])
def test_odd_documents_are_client_errors(replica, body):
    assert_no_server_error(replica(body))


def test_depth_and_size_are_bounded(replica):
    deep = "{ issues { nodes { " + "parent { " * (MAX_DEPTH + 2) + "id" + " }" * (MAX_DEPTH + 2) + " } } }"
    response = replica({"query": deep})
    assert response.status_code == 400 and "too deep" in response.json()["errors"][0]["message"]
    fields = " ".join(sorted(schema().type_map["Organization"].fields)[:25])  # scalars and objects alike
    leaves = " ".join(n for n in fields.split() if not isinstance(
        get_named_type(schema().type_map["Organization"].fields[n].type), GraphQLObjectType))
    wide = ("{ " + " ".join(f"a{i}: organization {{ ...F }}" for i in range(400)) + " } "
            f"fragment F on Organization {{ {leaves} }}")
    response = replica({"query": wide})
    assert response.status_code == 400 and "too complex" in response.json()["errors"][0]["message"]
    huge = replica({"query": "{ viewer { id } }" + " " * 1_100_000})
    assert huge.status_code == 413
    many_tokens = replica({"query": "{ " + "viewer { id } " * 8000 + "}"})
    assert many_tokens.status_code == 400
    introspection = replica({"query": "{ __schema { queryType { name } } }"})
    assert introspection.json()["data"]["__schema"]["queryType"]["name"] == "Query"


def test_entity_mutations_of_another_shape_are_not_generic(replica):
    """organizationDelete takes an input, not an id: it is refused, not run as a generic delete."""
    body = replica({"query": 'mutation { organizationDelete(input: {deletionCode: "x"}) { success } }'}).json()
    assert "not supported" in body["errors"][0]["message"]
