"""The replica's schema is Linear's: generated from @linear/sdk and in sync, and every document the SDK ships validates."""

import re

from graphql import parse, validate, validate_schema

from mock_services.linear.router import schema
from mock_services.linear.schema.generate import OUTPUT, SDK_DIST, generate


def sdk_documents() -> dict[str, str]:
    """Every operation document @linear/sdk's build carries (`const XDocument = new TypedDocumentString(...)`)."""
    text = (SDK_DIST / "index.mjs").read_text()
    return dict(re.findall(r"const (\w+Document) = new TypedDocumentString\(`(.*?)`", text, re.S))


def test_generated_schema_is_up_to_date():
    assert OUTPUT.read_text() == generate(), "run: python -m mock_services.linear.schema.generate"


def test_the_schema_is_valid_and_has_no_stubs():
    built = schema()
    assert validate_schema(built) == []
    issue = built.type_map["Issue"].fields
    assert str(issue["parent"].type) == "Issue" and str(issue["children"].type) == "IssueConnection!"
    update = built.type_map["IssueUpdateInput"].fields
    assert {"addedLabelIds", "removedLabelIds", "parentId"} <= set(update)
    assert str(built.type_map["IssueFilter"].fields["createdAt"].type) == "DateComparator"
    sdl = OUTPUT.read_text()
    assert '"""' not in sdl and sum(line.startswith("#") for line in sdl.splitlines()) == 2  # no descriptions


def test_every_sdk_document_validates(capsys):
    documents = sdk_documents()
    failures = {name: validate(schema(), parse(doc)) for name, doc in documents.items()}
    failures = {name: errors[0].message for name, errors in failures.items() if errors}
    with capsys.disabled():
        print(f"\n@linear/sdk documents valid against the replica's schema: "
              f"{len(documents) - len(failures)}/{len(documents)}")
    assert len(documents) > 500
    assert failures == {}


def test_every_bound_root_resolver_takes_every_argument_linear_declares():
    """A resolver that forgot an optional argument fails only when a client sends it."""
    import inspect
    for root in (schema().query_type, schema().mutation_type):
        for name, field in root.fields.items():
            params = inspect.signature(field.resolve).parameters
            if any(p.kind == p.VAR_KEYWORD for p in params.values()):
                continue
            assert set(field.args) <= set(params), (root.name, name, sorted(set(field.args) - set(params)))
