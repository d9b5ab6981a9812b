"""Box's V2 webhooks POSTed into a namespace sandbox: the agent makes a webhook on its folder with
box_sdk_gen (Box asks for an https address: `https://localhost:8443/box`, which detour delivers as
plain HTTP to that port, as a tunnel would), uploads a file there and comments on it, and its plain
listener checks each BOX-SIGNATURE-PRIMARY/-SECONDARY and BOX-DELIVERY-TIMESTAMP with the SDK's
own `WebhooksManager.validate_message` under the app's keys; each delivery is an audit record."""

import json

from mock_services.request_rows import request_rows
from tests.conftest import needs_namespaces

BOX_LISTENER = """
import io, json, os, threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from box_sdk_gen import BoxClient, BoxDeveloperTokenAuth
from box_sdk_gen.managers.comments import CreateCommentItem, CreateCommentItemTypeField
from box_sdk_gen.managers.folders import CreateFolderParent
from box_sdk_gen.managers.uploads import UploadFileAttributes, UploadFileAttributesParentField
from box_sdk_gen.managers.webhooks import CreateWebhookTarget, CreateWebhookTargetTypeField, CreateWebhookTriggers, WebhooksManager

PRIMARY, SECONDARY, got = os.environ["BOX_WEBHOOK_PRIMARY_KEY"], os.environ["BOX_WEBHOOK_SECONDARY_KEY"], []
box = BoxClient(auth=BoxDeveloperTokenAuth(token=os.environ["BOX_DEVELOPER_TOKEN"]))

class Hooks(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        headers = {k.lower(): v for k, v in self.headers.items()}
        good = WebhooksManager.validate_message(body, headers, PRIMARY, secondary_key=SECONDARY)
        only_secondary = WebhooksManager.validate_message(body, headers, "not-the-key", secondary_key=SECONDARY)
        self.send_response(200 if good else 401)
        self.send_header("Content-Length", "0")
        self.end_headers()
        payload = json.loads(body)
        got.append([payload["trigger"], payload["source"]["type"], good, only_secondary])
        if payload["trigger"] == "COMMENT.CREATED":
            print(json.dumps(got), flush=True)
            os._exit(0)

server = HTTPServer(("127.0.0.1", 8443), Hooks)
threading.Thread(target=server.serve_forever, daemon=True).start()
folder = box.folders.create_folder("Inbox for hooks", CreateFolderParent(id="0"))
box.webhooks.create_webhook(CreateWebhookTarget(id=folder.id, type=CreateWebhookTargetTypeField.FOLDER),
                            "https://localhost:8443/box",
                            [CreateWebhookTriggers.FILE_UPLOADED, CreateWebhookTriggers.COMMENT_CREATED])
box.uploads.upload_file(UploadFileAttributes(name="elsewhere.txt", parent=UploadFileAttributesParentField(id="0")),
                        io.BytesIO(b"not in the folder"))
uploaded = box.uploads.upload_file(UploadFileAttributes(name="report.txt", parent=UploadFileAttributesParentField(
    id=folder.id)), io.BytesIO(b"quarterly numbers")).entries[0]
box.comments.create_comment("Looks right", CreateCommentItem(id=uploaded.id, type=CreateCommentItemTypeField.FILE))
threading.Event().wait()
"""


@needs_namespaces
def test_box_webhooks_reach_a_plain_listener_and_the_sdk_validates_their_signatures(live_stack):
    env_id = live_stack.store.create("box_default").env_id
    result = live_stack.run(env_id, BOX_LISTENER, ".py", backend="namespace")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [["FILE.UPLOADED", "file", True, True], ["COMMENT.CREATED", "comment", True, True]]
    delivered = sorted((r["delivery"]["event"], r["host"], r["path"], r["status"])
                       for r in request_rows(live_stack.state, env_id) if r["delivery"])
    assert delivered == [("COMMENT.CREATED", "localhost", "/box", 200), ("FILE.UPLOADED", "localhost", "/box", 200)]
