"""The six Google packs generated from the discovery documents google-api-python-client ships,
each against its own description (tests/unit/openapi_properties.py), on a small sample."""

from tests.unit.openapi_properties import property_test

test_tasks_answers_as_its_description_says = property_test("tasks", examples=3, coverage=False)
test_docs_answers_as_its_description_says = property_test("docs", examples=3, coverage=False)
test_sheets_answers_as_its_description_says = property_test("sheets", examples=3, coverage=False)
test_people_answers_as_its_description_says = property_test("people", examples=3, coverage=False)
test_chat_answers_as_its_description_says = property_test("chat", examples=2, coverage=False)
test_pubsub_answers_as_its_description_says = property_test("pubsub", examples=3, coverage=False, overridden=True)
