"""Metadata: templates (the global `properties`, and the enterprise's own) and instances on
files and folders (create, read, JSON-Patch updates, delete)."""

from __future__ import annotations

import re

from mock_services.box import access, errors
from mock_services.box.access import EDIT
from mock_services.box.handlers.paging import marker_page
from mock_services.box.resources import new_id
from mock_services.rest.errors import RestError
from mock_services.rest.router import Call
from mock_services.store import Row

ENTERPRISE = "enterprise_1"
PROPERTIES = {"id": "properties-template", "type": "metadata_template", "scope": "global", "templateKey": "properties",
              "displayName": "Properties", "hidden": False, "fields": [], "copyInstanceOnItemCopy": False}
FIELD_TYPES = ("string", "float", "date", "enum", "multiSelect", "integer")
KEY = re.compile(r"^[A-Za-z][A-Za-z0-9]{0,63}$")
PATCH_OPS = ("add", "replace", "remove", "test", "move", "copy")


def _scope(scope: str) -> str:
    return ENTERPRISE if scope in ("enterprise", ENTERPRISE) else scope


def _template(call: Call, scope: str, key: str) -> dict:
    scope = _scope(scope)
    if scope == "global" and key == "properties":
        return PROPERTIES
    found = call.state.first("box_metadata_templates", scope=scope, templateKey=key)
    if found is None:
        raise RestError(404, "instance_tuple_not_found", f"Template {scope}.{key} not found")
    return found


def _check(template: dict, values: dict) -> None:
    """Values of a template's fields: known keys, and the field's type (`properties` takes any)."""
    if template["templateKey"] == "properties":
        return
    fields = {f["key"]: f for f in template.get("fields", [])}
    for key, value in values.items():
        field = fields.get(key)
        if field is None:
            raise errors.bad_request(f"Unknown field {key} for template {template['templateKey']}",
                                     name=key, reason="invalid_parameter")
        options = [o["key"] for o in field.get("options") or []]
        bad = (field["type"] == "float" and not isinstance(value, int | float)) or \
              (field["type"] == "enum" and value not in options) or \
              (field["type"] == "multiSelect" and not (isinstance(value, list) and set(value) <= set(options)))
        if bad:
            raise errors.bad_request(f"Invalid value for {key}", name=key, reason="invalid_parameter")


def _instance(row: Row) -> dict:
    return {"$id": row["id"], "$type": f"{row['template_key']}-{row['id'][:8]}",
            "$parent": f"{row['item_type']}_{row['item_id']}", "$scope": row["scope"],
            "$template": row["template_key"], "$version": row.get("version", 0), "$typeVersion": 0,
            "$canEdit": True, **row.get("values", {})}


def _target(call: Call, kind: str, needs: str = access.SEE) -> Row:
    return access.item(call, kind, call.params["file_id" if kind == "file" else "folder_id"], needs)


def _instance_row(call: Call, kind: str, target: Row) -> Row:
    scope = _scope(call.params["scope"])
    found = call.state.first("box_metadata_instances", item_id=target["id"], item_type=kind, scope=scope,
                             template_key=call.params["template_key"])
    if found is None:
        raise RestError(404, "instance_not_found", "Instance not found")
    return found


def _apply(values: dict, operations: object) -> dict:
    if not isinstance(operations, list):
        raise errors.bad_request("The body must be a JSON Patch list", reason="invalid_parameter")
    values = dict(values)
    for op in operations:
        if not isinstance(op, dict) or op.get("op") not in PATCH_OPS or not str(op.get("path", "")).startswith("/"):
            raise errors.bad_request("Invalid JSON Patch operation", reason="invalid_parameter")
        key = op["path"][1:]
        if op["op"] in ("add", "replace"):
            if op["op"] == "replace" and key not in values:
                raise RestError(400, "bad_request", f"Cannot replace missing field {key}")
            values[key] = op.get("value")
        elif op["op"] == "remove":
            values.pop(key, None)
        elif op["op"] == "test" and values.get(key) != op.get("value"):
            raise RestError(409, "conflict", f"Test of {key} failed")
        elif op["op"] in ("move", "copy"):
            source = str(op.get("from", ""))[1:]
            if source not in values:
                raise RestError(400, "bad_request", f"No field {source}")
            values[key] = values.pop(source) if op["op"] == "move" else values[source]
    return values


def _create(call: Call, kind: str) -> dict:
    target = _target(call, kind, EDIT)
    template = _template(call, call.params["scope"], call.params["template_key"])
    values = call.body if isinstance(call.body, dict) else {}
    _check(template, values)
    scope = template["scope"]
    if call.state.first("box_metadata_instances", item_id=target["id"], item_type=kind, scope=scope,
                        template_key=template["templateKey"]):
        raise RestError(409, "tuple_already_exists", "A metadata instance of this template exists on the item")
    row = {"id": f"{new_id()}-{new_id()}", "item_id": target["id"], "item_type": kind, "scope": scope,
           "template_key": template["templateKey"], "values": values, "version": 0}
    call.state.insert("box_metadata_instances", row)
    call.status = 201
    return _instance(row)


def _get(call: Call, kind: str) -> dict:
    return _instance(_instance_row(call, kind, _target(call, kind)))


def _list(call: Call, kind: str) -> dict:
    target = _target(call, kind)
    found = call.state.rows("box_metadata_instances", item_id=target["id"], item_type=kind)
    return {"entries": [_instance(r) for r in found], "limit": 100}


def _update(call: Call, kind: str) -> dict:
    target = _target(call, kind, EDIT)
    row = _instance_row(call, kind, target)
    values = _apply(row.get("values", {}), call.body)
    _check(_template(call, row["scope"], row["template_key"]), values)
    row.update(values=values, version=row.get("version", 0) + 1)
    call.state.update("box_metadata_instances", row)
    return _instance(row)


def _delete(call: Call, kind: str) -> None:
    target = _target(call, kind, EDIT)
    call.state.delete("box_metadata_instances", _instance_row(call, kind, target))


def _for(kind: str, action) -> object:
    return lambda call: action(call, kind)


def create_template(call: Call) -> dict:
    body = call.body or {}
    me = call.state.first("box_users", id=call.user) or {}
    if me.get("role") not in ("admin", "coadmin"):
        raise errors.forbidden()
    key = body.get("templateKey") or re.sub(r"[^A-Za-z0-9]", "", str(body.get("displayName", "")))[:64]
    if not body.get("displayName") or not KEY.fullmatch(key or ""):
        raise errors.bad_request("displayName and a templateKey of letters and digits are required",
                                 name="templateKey", reason="invalid_parameter")
    if call.state.first("box_metadata_templates", scope=ENTERPRISE, templateKey=key):
        raise RestError(409, "conflict", "A template with this key exists")
    fields = []
    for field in body.get("fields") or []:
        if not isinstance(field, dict) or field.get("type") not in FIELD_TYPES or not field.get("key"):
            raise errors.bad_request("Invalid template field", name="fields", reason="invalid_parameter")
        fields.append({**field, "id": new_id(), "hidden": bool(field.get("hidden"))})
    row = {"id": new_id(), "type": "metadata_template", "scope": ENTERPRISE, "templateKey": key,
           "displayName": body["displayName"], "hidden": bool(body.get("hidden")), "fields": fields,
           "copyInstanceOnItemCopy": bool(body.get("copyInstanceOnItemCopy"))}
    call.state.insert("box_metadata_templates", row)
    call.status = 201
    return row


def get_template(call: Call) -> dict:
    return _template(call, call.params["scope"], call.params["template_key"])


def template_by_id(call: Call) -> dict:
    found = call.state.first("box_metadata_templates", id=call.params["template_id"])
    if call.params["template_id"] == PROPERTIES["id"]:
        return PROPERTIES
    if found is None:
        raise errors.not_found("metadata_template")
    return found


def enterprise_templates(call: Call) -> dict:
    return marker_page(call, call.state.rows("box_metadata_templates", scope=ENTERPRISE))


def global_templates(call: Call) -> dict:
    return marker_page(call, [PROPERTIES])


def delete_template(call: Call) -> None:
    template = _template(call, call.params["scope"], call.params["template_key"])
    if template is PROPERTIES:
        raise errors.forbidden("Global templates cannot be deleted")
    for instance in call.state.rows("box_metadata_instances", scope=template["scope"],
                                    template_key=template["templateKey"]):
        call.state.delete("box_metadata_instances", instance)
    call.state.delete("box_metadata_templates", template)


HANDLERS = {
    **{f"{kind}_metadata.{verb}_{kind}_metadata{suffix}": _for(kind, action)
       for kind in ("file", "folder")
       for verb, suffix, action in (("create", "_by_id", _create), ("get", "_by_id", _get), ("get", "", _list),
                                    ("update", "_by_id", _update), ("delete", "_by_id", _delete))},
    "metadata_templates.create_metadata_template": create_template,
    "metadata_templates.get_metadata_template": get_template,
    "metadata_templates.get_metadata_template_by_id": template_by_id,
    "metadata_templates.get_enterprise_metadata_templates": enterprise_templates,
    "metadata_templates.get_global_metadata_templates": global_templates,
    "metadata_templates.delete_metadata_template": delete_template,
}
