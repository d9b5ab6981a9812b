"""What this replica keeps no state for: shared drives (none exist here, so their lists are
empty and an id names nothing), apps, labels, access proposals, approvals, watch channels,
client-side encryption and long-running downloads. Lists answer empty; the rest answer
Google's error shape with 501 `notImplemented`, naming the method."""

from __future__ import annotations

from functools import partial

from mock_services.coverage import GENERATED, NOT_SERVED, mark
from mock_services.drive import access
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call

EMPTY_LISTS = {"drives.list": {"kind": "drive#driveList", "drives": []},
               "teamdrives.list": {"kind": "drive#teamDriveList", "teamDrives": []},
               "apps.list": {"kind": "drive#appList", "items": [], "defaultAppIds": []},
               "approvals.list": {"kind": "drive#approvalList", "items": []},
               "accessproposals.list": {"accessProposals": []}}
UNKEPT = ("accessproposals.get", "accessproposals.resolve", "approvals.approve", "approvals.cancel",
          "approvals.comment", "approvals.decline", "approvals.get", "approvals.reassign", "approvals.start",
          "apps.get", "changes.watch", "channels.stop", "drives.create", "drives.delete", "drives.hide",
          "drives.unhide", "drives.update", "files.download", "files.generateCseToken", "files.modifyLabels",
          "files.watch", "operations.get", "teamdrives.create", "teamdrives.delete", "teamdrives.update")


def _listed(answer: dict):
    def handler(call: Call) -> dict:
        if call.params.get("fileId"):
            access.file(call, call.params["fileId"])
        return answer
    return mark(handler, GENERATED)


@partial(mark, kind=GENERATED)
def _no_shared_drive(call: Call) -> None:
    wanted = call.params.get("driveId") or call.params.get("teamDriveId")
    raise RestError(404, "notFound", f"Shared drive not found: {wanted}")


@partial(mark, kind=GENERATED)
def _labels(call: Call) -> dict:
    access.file(call, call.params["fileId"])
    return {"kind": "drive#labelList", "labels": []}


@partial(mark, kind=NOT_SERVED)
def _unkept(call: Call) -> None:
    raise RestError(501, "notImplemented", f"detour's Drive replica does not keep {call.operation.id}.")


HANDLERS = {**{name: _listed(answer) for name, answer in EMPTY_LISTS.items()},
            "drives.get": _no_shared_drive, "teamdrives.get": _no_shared_drive, "files.listLabels": _labels,
            **{name: _unkept for name in UNKEPT}}
