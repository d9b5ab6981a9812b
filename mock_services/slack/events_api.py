"""Slack's Events API over HTTP: an app whose Request URL is set gets each event POSTed to it
(into its sandbox: mock_services/events/webhooks.py), signed as Slack signs them.

The app sets its Request URL with `apps.manifest.update` (`settings.event_subscriptions.
request_url`); Slack then sends a `url_verification` challenge the listener must answer, and
from then on an `event_callback` per event, with `X-Slack-Signature` (`v0=` HMAC-SHA256 of
`v0:{timestamp}:{body}` under the app's signing secret, SLACK_SIGNING_SECRET) and
`X-Slack-Request-Timestamp`. A delivery not taken is sent again at once, after a minute and
after five, with `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from mock_services import clock
from mock_services.events import webhooks
from mock_services.slack.call import SlackCall
from mock_services.slack.errors import SlackError
from mock_services.slack.ids import app_id
from mock_services.slack.tokens import signing_secret
from mock_services.store import EnvState

URLS_KEY = "slack_request_urls"  # the app's user -> its Request URL
RETRIES = (0.0, 60.0, 300.0)
SIGNER = "mock_services.slack.events_api:signed"


def queue(user_id: str) -> str:
    return f"slack.http:{user_id}"


def request_url(manifest: Any) -> str:
    if isinstance(manifest, str):
        try:
            manifest = json.loads(manifest)
        except ValueError:
            raise SlackError("invalid_manifest") from None
    url = ((manifest or {}).get("settings", {}).get("event_subscriptions", {}) if isinstance(manifest, dict)
           else {}).get("request_url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise SlackError("invalid_manifest", errors=[{"message": "settings.event_subscriptions.request_url "
                                                                "must be an http(s) URL", "pointer": "/settings"}])
    return url


def manifest_update(call: SlackCall) -> dict:
    """Only the Request URL of the caller's own app is read; Slack's URL verification follows."""
    url = request_url(call.params.get("manifest"))
    call.state.set_meta(URLS_KEY, {**(call.state.meta(URLS_KEY) or {}), call.user_id: url})
    webhooks.register(call.state, queue(call.user_id), RETRIES)
    challenge = clock.token_hex(24)
    webhooks.enqueue(call.state, queue(call.user_id), str(clock.uuid4()), url, "url_verification",
                     {"token": "", "challenge": challenge, "type": "url_verification"}, SIGNER, call.user_id)
    return {"app_id": app_id(call.user_id), "permissions_updated": False}


def listening(state: EnvState) -> dict[str, str]:
    """The apps (by their user) with a Request URL, and their URLs."""
    return state.meta(URLS_KEY) or {}


def send(state: EnvState, user_id: str, url: str, payload: dict[str, Any]) -> None:
    """An event_callback for the app of `user_id`, at its Request URL."""
    webhooks.enqueue(state, queue(user_id), payload["event_id"], url, payload["event"]["type"], payload, SIGNER,
                     user_id)


def signed(state: EnvState, user_id: str, payload: dict[str, Any], attempt: int) -> webhooks.Signed:
    """Slack's headers for this attempt, and the challenge a url_verification's answer must hold."""
    body = webhooks.body_of(payload)
    timestamp = str(int(clock.now()))
    mac = hmac.new(signing_secret(state, user_id).encode(), f"v0:{timestamp}:".encode() + body, hashlib.sha256)
    headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": timestamp,
               "X-Slack-Signature": f"v0={mac.hexdigest()}", "User-Agent": "Slackbot 1.0 (+https://api.slack.com/robots)"}
    if attempt:
        headers |= {"X-Slack-Retry-Num": str(attempt), "X-Slack-Retry-Reason": "http_error"}
    return webhooks.Signed(body, headers, payload.get("challenge"))


METHODS = {"apps.manifest.update": manifest_update}
