"""Notion's pack against the description derived from its official client's types
(tests/unit/openapi_properties.py): every operation it serves (pages, databases, data sources
and their query, blocks, users, search; all answered by its overrides), generated requests never
a 5xx, answers as the description says, a created page, database or data source read back."""

from tests.unit.openapi_properties import property_test

# The current version's answers are the description's; 2022-06-28's keep their older shape
# (tests/unit/test_notion_rules.py checks them).
test_notion_answers_as_its_description_says = property_test("notion", examples=5, overridden=True, coverage=False,
                                                            headers={"Notion-Version": "2025-09-03"})
