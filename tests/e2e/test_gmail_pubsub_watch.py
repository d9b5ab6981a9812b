"""Gmail's push notifications through Cloud Pub/Sub, end to end through the proxy in a namespace
sandbox with google-api-python-client: the agent makes a topic and a subscription, watches its
INBOX, a colleague's mail arrives (a timeline step's act, as that person), and the agent pulls
the notification, decodes it, reads users.history.list from its historyId, acknowledges it, and
finds the subscription empty on the next pull."""

import base64
import json

from mock_services.timelines.model import Step
from mock_services.timelines.run import act
from tests.conftest import needs_namespaces

SETUP = """
import json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build

creds = Credentials("token")
pubsub, gmail = build("pubsub", "v1", credentials=creds), build("gmail", "v1", credentials=creds)
topic = pubsub.projects().topics().create(name="projects/acme/topics/mail", body={}).execute()
pubsub.projects().subscriptions().create(name="projects/acme/subscriptions/mail-sub",
                                         body={"topic": topic["name"], "ackDeadlineSeconds": 30}).execute()
watch = gmail.users().watch(userId="me", body={"topicName": topic["name"], "labelIds": ["INBOX"],
                                               "labelFilterBehavior": "INCLUDE"}).execute()
print(json.dumps([topic["name"], sorted(watch), watch["historyId"]]))
"""

READ = """
import base64, json
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build

creds = Credentials("token")
pubsub, gmail = build("pubsub", "v1", credentials=creds), build("gmail", "v1", credentials=creds)
sub = "projects/acme/subscriptions/mail-sub"
pulled = pubsub.projects().subscriptions().pull(subscription=sub, body={"maxMessages": 10}).execute()
[received] = pulled["receivedMessages"]
note = json.loads(base64.b64decode(received["message"]["data"]))
history = gmail.users().history().list(userId="me", startHistoryId=WATCHED, historyTypes="messageAdded").execute()
assert history["historyId"] == note["historyId"], (history, note)
added = [m["message"]["id"] for h in history["history"] for m in h.get("messagesAdded", [])]
subject = [h["value"] for h in gmail.users().messages().get(userId="me", id=added[-1], format="metadata",
                                                           metadataHeaders=["Subject"]).execute()["payload"]["headers"]]
pubsub.projects().subscriptions().acknowledge(subscription=sub, body={"ackIds": [received["ackId"]]}).execute()
again = pubsub.projects().subscriptions().pull(subscription=sub, body={"maxMessages": 10}).execute()
print(json.dumps([note["emailAddress"], subject, again]))
"""


@needs_namespaces
def test_a_colleagues_mail_reaches_the_agent_through_its_pubsub_subscription(live_stack):
    env_id = live_stack.store.create(["gmail_default", "pubsub_default"]).env_id
    first = live_stack.run(env_id, SETUP, ".py", backend="namespace")
    assert first.exit_code == 0, first.stderr
    topic, fields, watched = json.loads(first.stdout)
    assert (topic, fields) == ("projects/acme/topics/mail", ["expiration", "historyId"])

    raw = base64.urlsafe_b64encode(b"To: agent@example.com\r\nSubject: Deploy failed\r\n\r\nCan you look?").decode()
    sent = act(live_stack.store, env_id, Step(person="user_john", service="gmail", at=0,
                                              do="POST /gmail/v1/users/me/messages/send", args={"raw": raw}), {}, {})
    assert sent["ok"], sent

    # the agent reads what changed since the history id its watch answered, as Gmail advises
    second = live_stack.run(env_id, READ.replace("WATCHED", watched), ".py", backend="namespace")
    assert second.exit_code == 0, second.stderr
    assert json.loads(second.stdout) == ["agent@example.com", ["Deploy failed"], {}]
