"""The seventh description, generated with no hand-written code: Jira Software Cloud's agile
API (boards, sprints, quick filters, a board's issues) against its own description
(tests/unit/openapi_properties.py)."""

from tests.unit.openapi_properties import property_test

test_jira_agile_answers_as_its_description_says = property_test("jira_agile", examples=6)
