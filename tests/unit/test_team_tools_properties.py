"""The team-tool packs generated from the vendors' own OpenAPI descriptions (PagerDuty, SendGrid,
Asana, Intercom, Sentry, Discord, Trello, GitLab), each against its own description (tests/unit/openapi_properties.py),
on a small sample."""

from tests.unit.openapi_properties import property_test

test_pagerduty_answers_as_its_description_says = property_test("pagerduty", examples=2, coverage=False)
# SendGrid's description calls every template id a uuid; a dynamic template's is `d-` and 32 hex
# digits (as SendGrid answers and its seed holds), so its templates are checked by the client test.
test_sendgrid_answers_as_its_description_says = property_test("sendgrid", examples=2, coverage=False,
                                                              paths="^/v3/(mail|teammates|suppression)")
test_asana_answers_as_its_description_says = property_test("asana", examples=2, coverage=False)
test_intercom_answers_as_its_description_says = property_test("intercom", examples=2, coverage=False)
test_sentry_answers_as_its_description_says = property_test("sentry", examples=2, coverage=False)
test_discord_answers_as_its_description_says = property_test("discord", examples=2, coverage=False)
test_trello_answers_as_its_description_says = property_test("trello", examples=2, coverage=False)
test_gitlab_answers_as_its_description_says = property_test("gitlab", examples=2, coverage=False)
