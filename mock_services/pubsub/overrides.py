"""Cloud Pub/Sub over the pack generated from its discovery document (google-api-python-client's
pubsub.v1.json): topics and subscriptions made by PUT on their names, `topics.publish` copying a
message into each subscription of the topic (a row of `pubsub_messages` per subscription, as
Pub/Sub keeps one backlog per subscription), `subscriptions.pull` leasing what is due with a new
ackId until the subscription's ackDeadlineSeconds pass on the environment's clock (then it is
delivered again), and `acknowledge` removing it. Gmail's `users.watch` publishes through
`publish` (mock_services/gmail/events.py). Google's error shape for the rest."""

from __future__ import annotations

from typing import Any

from mock_services import clock
from mock_services.rest.errors import RestError
from mock_services.rest.google import generated_error_body as error_body
from mock_services.rest.openapi.semantics import Resources
from mock_services.rest.router import Call
from mock_services.store import EnvState, Row

TOPICS, SUBSCRIPTIONS, MESSAGES = "pubsub_topics", "pubsub_subscriptions", "pubsub_messages"
MESSAGE_NUMBER_KEY = "pubsub_message_number"
ACK_DEADLINE, MAX_ACK_DEADLINE = 10, 600   # seconds: Pub/Sub's default and ceiling
MISSING = {TOPICS: "Resource not found (resource={key}).", SUBSCRIPTIONS: "Resource not found (resource={key})."}


def _missing(key: str) -> RestError:
    return RestError(404, "notFound", f"Resource not found (resource={key}).")


def _now() -> str:
    return clock.utcnow().isoformat(timespec="microseconds").replace("+00:00", "Z")


def _create(resources: Resources, call: Call, table: str, key: str, kind: str, extra: Row) -> Any:
    """A topic or subscription made at its name (PUT), 409 where the name is taken (the short
    name is the row's id: one per environment, whichever project names it)."""
    project, made = call.params["projectsId"], call.params[key]
    if call.state.first(table, id=made):
        raise RestError(409, "alreadyExists", "Resource already exists in the project (resource=" + made + ").")
    return resources.create(call, {"id": made, "name": f"projects/{project}/{kind}/{made}", **extra})


def create_topic(resources: Resources, call: Call) -> Any:
    return _create(resources, call, TOPICS, "topicsId", "topics", {})


def topic_row(state: EnvState, name: str) -> Row | None:
    return state.first(TOPICS, name=name)


def create_subscription(resources: Resources, call: Call) -> Any:
    topic = resources.body(call).get("topic") or ""
    if topic_row(call.state, topic) is None:
        raise _missing(topic.rpartition("/")[2] or topic)
    seconds = int(resources.body(call).get("ackDeadlineSeconds") or ACK_DEADLINE)
    if not 10 <= seconds <= MAX_ACK_DEADLINE:
        raise RestError(400, "invalidArgument", f"Invalid ack deadline given: {seconds}. "
                                                f"It must be between 10 and {MAX_ACK_DEADLINE} seconds.")
    return _create(resources, call, SUBSCRIPTIONS, "subscriptionsId", "subscriptions", {"ackDeadlineSeconds": seconds})


def publish(state: EnvState, topic: str, data: str, attributes: dict[str, str] | None = None) -> str:
    """One message on `topic` (its data already base64): a row for each of the topic's
    subscriptions, none leased yet. The message's id, as Pub/Sub numbers them."""
    number = int(state.meta(MESSAGE_NUMBER_KEY) or 2070443601311540) + 1
    state.set_meta(MESSAGE_NUMBER_KEY, number)
    message = {"data": data, "messageId": str(number), "publishTime": _now()}
    if attributes:
        message["attributes"] = attributes
    for subscription in state.rows(SUBSCRIPTIONS, topic=topic):
        state.insert(MESSAGES, {"id": f"{number}:{subscription['name']}", "subscription": subscription["name"],
                                "message": message, "ack_id": None, "leased_until": None})
    return str(number)


def publish_call(resources: Resources, call: Call) -> dict:
    topic = f"projects/{call.params['projectsId']}/topics/{call.params['topicsId']}"
    if topic_row(call.state, topic) is None:
        raise _missing(call.params["topicsId"])
    messages = resources.body(call).get("messages") or []
    if not messages:
        raise RestError(400, "invalidArgument", "The request contains no messages.")
    return {"messageIds": [publish(call.state, topic, m.get("data") or "", m.get("attributes")) for m in messages]}


def _subscription(call: Call) -> Row:
    found = call.state.first(SUBSCRIPTIONS, id=call.params["subscriptionsId"], projectsId=call.params["projectsId"])
    if found is None:
        raise _missing(call.params["subscriptionsId"])
    return found


def pull(resources: Resources, call: Call) -> dict:
    """Up to maxMessages of the backlog not leased now, each leased anew (a new ackId) until
    the ack deadline; a message whose lease ran out comes again."""
    subscription = _subscription(call)
    most = int(resources.body(call).get("maxMessages") or 0)
    if most <= 0:
        raise RestError(400, "invalidArgument", "maxMessages must be positive.")
    now = clock.now()
    due = [r for r in call.state.rows(MESSAGES, subscription=subscription["name"])
           if r["leased_until"] is None or r["leased_until"] <= now][:most]
    received = []
    for row in due:
        leased = {**row, "ack_id": clock.uuid4().hex + clock.uuid4().hex,
                  "leased_until": now + int(subscription.get("ackDeadlineSeconds") or ACK_DEADLINE)}
        call.state.update(MESSAGES, leased)
        received.append({"ackId": leased["ack_id"], "message": row["message"]})
    return {"receivedMessages": received} if received else {}


def acknowledge(resources: Resources, call: Call) -> dict:
    """The messages whose current ackIds these are leave the subscription (an ackId whose lease
    has run out, or was never given, is ignored, as Pub/Sub does)."""
    subscription = _subscription(call)
    ack_ids = resources.body(call).get("ackIds") or []
    if not ack_ids:
        raise RestError(400, "invalidArgument", "No ack ids specified.")
    for row in call.state.rows_in(MESSAGES, "ack_id", list(ack_ids)):
        if row["subscription"] == subscription["name"] and row["leased_until"] > clock.now():
            call.state.delete(MESSAGES, row)
    return {}


HANDLERS = {"pubsub.projects.topics.create": create_topic,
            "pubsub.projects.subscriptions.create": create_subscription,
            "pubsub.projects.topics.publish": publish_call,
            "pubsub.projects.subscriptions.pull": pull,
            "pubsub.projects.subscriptions.acknowledge": acknowledge}

__all__ = ["HANDLERS", "MISSING", "error_body"]
