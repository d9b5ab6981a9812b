"""Jira's generated pack against Atlassian's description (tests/unit/openapi_properties.py):
every modeled operation of projects, issues and comments."""

from tests.unit.openapi_properties import property_test

test_jira_answers_as_its_description_says = property_test(
    "jira", examples=6, paths=r"^/rest/api/3/(project|issue)(/\{[^/]+\})?(/comment(/\{id\})?)?$")
