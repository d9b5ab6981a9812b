"""HubSpot's generated pack against HubSpot's CRM descriptions (tests/unit/openapi_properties.py):
contacts, companies and deals."""

from tests.unit.openapi_properties import property_test

test_hubspot_answers_as_its_description_says = property_test("hubspot", examples=6)
