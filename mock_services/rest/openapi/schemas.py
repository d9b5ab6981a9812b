"""A trimmed description's schemas at work: request bodies checked with openapi-core's schema
validator (`openapi-schema-validator`, the validator openapi-core runs), form values (text on
the wire) read as the types the schema declares, and answers filled to the response schema
(every required field present, of its type) from the stored row."""

from __future__ import annotations

from typing import Any

from openapi_schema_validator import OAS30Validator, OAS31Validator

from mock_services.rest.errors import RestError

MAX_DEPTH = 6
# The plainest valid text of a format (an answer's required field that no row holds).
FORMATS = {"uri": "https://example.invalid/", "url": "https://example.invalid/", "date-time": "1970-01-01T00:00:00Z",
           "date": "1970-01-01", "uuid": "00000000-0000-0000-0000-000000000000", "email": "nobody@example.invalid"}


class Schemas:
    """Resolution, coercion, validation and filling over one description's components."""

    def __init__(self, document: dict) -> None:
        self.components = document.get("components", {})
        self.validator = OAS31Validator if str(document.get("openapi", "")).startswith("3.1") else OAS30Validator
        self._validators: dict[int, tuple[Any, Any]] = {}  # the node is kept so that its id stays its own

    def resolve(self, node: Any) -> dict:
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 20:
            node = self.components.get("schemas", {}).get(node["$ref"].rsplit("/", 1)[-1], {})
            seen += 1
        if isinstance(node, dict) and isinstance(node.get("type"), list):  # OpenAPI 3.1's ["string", "null"]
            kinds = [k for k in node["type"] if k != "null"]
            node = {**node, "type": kinds[0] if kinds else "null", **({"nullable": True} if "null" in node["type"]
                                                                       else {})}
        return node if isinstance(node, dict) else {}

    def flat(self, node: Any) -> dict:
        """The schema with its `allOf` parts' properties and requirements merged into one object
        (PagerDuty writes every object and list answer as an `allOf`)."""
        schema = self.resolve(node)
        if "allOf" not in schema:
            return schema
        merged: dict = {"type": "object", **{k: v for k, v in schema.items() if k != "allOf"}}
        for part in map(self.flat, schema["allOf"]):
            merged["properties"] = {**merged.get("properties", {}), **part.get("properties", {})}
            merged["required"] = [*merged.get("required", []), *part.get("required", [])]
        return merged

    def named(self, name: str | None) -> dict:
        return self.resolve({"$ref": f"#/components/schemas/{name}"}) if name else {}

    # -- form values, which arrive as text, read as the schema's types --------------------------
    def coerce(self, value: Any, node: Any, depth: int = 0) -> Any:
        schema = self.resolve(node)
        if depth > MAX_DEPTH * 2:
            return value
        for key in ("anyOf", "oneOf"):
            if schema.get(key):
                for option in schema[key]:
                    coerced = self.coerce(value, option, depth + 1)
                    if self.valid(coerced, option):
                        return coerced
                return value
        kind = schema.get("type")
        if isinstance(value, str):
            if kind == "integer" and value.lstrip("-").isdigit() and len(value) < 40:
                return int(value)
            if kind == "number" and len(value) < 40:
                try:
                    return float(value) if "." in value else int(value)
                except ValueError:
                    return value
            if kind == "boolean" and value in ("true", "false"):
                return value == "true"
        if kind == "array" and isinstance(value, dict) and all(k.isdigit() or k == "" for k in value):
            value = [value[k] for k in sorted(value, key=lambda k: int(k) if k.isdigit() else -1)]
        if kind == "array" and isinstance(value, list):
            return [self.coerce(v, schema.get("items", {}), depth + 1) for v in value]
        if isinstance(value, dict) and (kind == "object" or "properties" in schema):
            props = schema.get("properties", {})
            extra = schema.get("additionalProperties")
            return {k: self.coerce(v, props.get(k, extra if isinstance(extra, dict) else {}), depth + 1)
                    for k, v in value.items()}
        return value

    # -- validation ----------------------------------------------------------------------------
    def _validator(self, node: Any) -> Any:
        """One validator per schema node of the description (they live as long as it does)."""
        if id(node) not in self._validators:
            self._validators[id(node)] = (node, self.validator({**(node if isinstance(node, dict) else {}),
                                                                "components": self.components}))
        return self._validators[id(node)][1]

    def valid(self, value: Any, node: Any) -> bool:
        try:
            return self._validator(node).is_valid(value)
        except Exception:  # an unresolvable corner of a description is not the caller's fault
            return False

    def check(self, value: Any, node: Any) -> None:
        """A 400 naming the first problem the way vendors word it: missing, unknown, invalid."""
        errors = sorted(self._validator(node).iter_errors(value), key=lambda e: (len(e.path), e.validator))
        if not errors:
            return
        error = errors[0]
        where = "".join(f"[{p}]" if i else str(p) for i, p in enumerate(error.path))
        if error.validator == "required":
            name = error.message.split("'")[1] if "'" in error.message else error.message
            full = f"{where}[{name}]" if where else name
            raise RestError(400, "parameter_missing", f"Missing required param: {full}.", details={"param": full})
        if error.validator == "additionalProperties":
            known = set(self.resolve(error.schema).get("properties", {}))
            extra = sorted(k for k in (error.instance or {}) if k not in known)
            name = f"{where}[{extra[0]}]" if where and extra else (extra[0] if extra else where)
            raise RestError(400, "parameter_unknown", f"Received unknown parameter: {name}", details={"param": name})
        raise RestError(400, "parameter_invalid", f"Invalid {where or 'body'}: {_reason(error)}", details={"param": where})

    # -- answers filled to their schema --------------------------------------------------------
    def fill(self, value: Any, node: Any, depth: int = 0) -> Any:
        """`value` with every required field present and of its type (a stored row may lack
        fields that the answer's schema requires)."""
        schema = self.resolve(node)
        if depth > MAX_DEPTH:
            return value
        options = schema.get("anyOf") or schema.get("oneOf")
        if options and value is None and self._null_option(options):
            return None
        if options:
            if value is not None:
                for option in options:
                    if self.valid(value, option):
                        return value
                for option in options:  # the first option whose type fits, filled
                    if self._kind_fits(value, self.resolve(option)) and value not in ("", None):
                        return self.fill(value, option, depth + 1)
                if value == "":  # Stripe's "" (unset)
                    return None if schema.get("nullable") else self.empty(options[0], depth)
            return self.fill(value, options[0], depth + 1) if value is not None else self.empty(options[0], depth)
        for part in schema.get("allOf", []):
            value = self.fill(value, part, depth + 1)
        kind = schema.get("type", "object" if "properties" in schema else None)
        if value is None:
            return None if schema.get("nullable") else self.empty(schema, depth)
        if kind == "object" and isinstance(value, dict):
            props = schema.get("properties", {})
            closed = schema.get("additionalProperties") is False and props
            out = {k: v for k, v in value.items() if not closed or k in props}  # a closed answer: only its own
            for name in schema.get("required", []):
                if name not in out or (out[name] is None and not self.resolve(props.get(name, {})).get("nullable")):
                    out[name] = self.empty(props.get(name, {}), depth + 1)
            for name, prop in props.items():
                if name in out:
                    out[name] = self.fill(out[name], prop, depth + 1)
            return out
        if kind == "array" and isinstance(value, list):
            return [self.fill(v, schema.get("items", {}), depth + 1) for v in value]
        if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        if kind == "string" and isinstance(value, str) and len(value) > schema.get("maxLength", len(value)):
            return value[:schema["maxLength"]]  # a body may allow more than the answer shows
        value = self.coerce(value, schema) if isinstance(value, str) else value
        if kind and not self._kind_fits(value, {"type": kind}) or schema.get("enum") and value not in schema["enum"]:
            return None if schema.get("nullable") else self.empty(schema, depth)
        return value

    def _null_option(self, options: list) -> bool:
        """Whether a union has null among its members (`T | null` written as a member, as a
        description derived from TypeScript types says it): then null is its plainest value."""
        return any(self.resolve(o).get("enum") == [None] or self.resolve(o).get("type") == "null" for o in options)

    def _kind_fits(self, value: Any, schema: dict) -> bool:
        kind = schema.get("type", "object" if "properties" in schema else None)
        return {"object": isinstance(value, dict), "array": isinstance(value, list), "string": isinstance(value, str),
                "boolean": isinstance(value, bool), "integer": isinstance(value, int) and not isinstance(value, bool),
                "number": isinstance(value, int | float) and not isinstance(value, bool)}.get(kind, True)

    def empty(self, node: Any, depth: int = 0) -> Any:
        """The plainest value of a schema: its first enum value, zero, false, empty, or null
        where it may be null."""
        schema = self.resolve(node)
        if schema.get("nullable") or depth > MAX_DEPTH:
            return None
        if "default" in schema:
            return schema["default"]
        if schema.get("enum"):
            return schema["enum"][0]
        options = schema.get("anyOf") or schema.get("oneOf") or schema.get("allOf")
        if options and self._null_option(options):
            return None
        if options:
            return self.empty(options[0], depth + 1)
        kind = schema.get("type", "object" if "properties" in schema else "string")
        if kind == "object":
            return self.fill({}, schema, depth + 1)
        if kind == "string" and schema.get("format") in FORMATS:
            return FORMATS[schema["format"]]
        return {"array": [], "integer": 0, "number": 0, "boolean": False, "string": ""}.get(kind)


def _reason(error: Any) -> str:
    """What is wrong, without echoing the value (it may be long, or a secret)."""
    limit = error.validator_value
    reasons = {"maxLength": f"must be at most {limit} characters", "minLength": f"must be at least {limit} characters",
               "maximum": f"must be at most {limit}", "minimum": f"must be at least {limit}",
               "maxItems": f"must have at most {limit} items", "type": f"must be of type {limit}",
               "enum": "must be one of " + ", ".join(map(str, limit)) if isinstance(limit, list) else ""}
    return reasons.get(error.validator) or "is not valid here"
