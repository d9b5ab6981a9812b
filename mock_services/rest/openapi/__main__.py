"""The committed generator: an OpenAPI 3.x description -> a service pack under mock_services/NAME/.

    python -m mock_services.rest.openapi NAME SPEC [SPEC ...] [--host HOST ...] [--include REGEX]
                                                   [--examples FILE] [--users-table TABLE] [--user-email FIELD]
                                                   [--table TABLE ...]

A generated pack is data: it writes the pack's descriptor (spec/pack.json: hosts from the
description's `servers`, or `--host`; `*.example.com` names every tenant's host), the trimmed
description (spec/openapi.json: the operation table) and the resource model (spec/model.json),
and an empty seed where the pack has none; the engine (mock_services.rest.openapi.packs) serves
it, with no router of its own. Hand-written rules go in the pack's overrides.py, which the
generator never touches. It prints how long it took.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from mock_services.rest.openapi.infer import infer
from mock_services.rest.openapi.trim import schema, trim

ROOT = Path(__file__).resolve().parents[2]  # mock_services/

ENGINE = "mock_services.rest.openapi.packs"  # every generated pack's router and faults, by its name


def descriptor(name: str, source: str, hosts: tuple[str, ...], users: str, email: str, tables: tuple[str, ...],
               kept: dict) -> dict:
    """spec/pack.json: the registry's descriptor as data. Fields a person added since (the tokens
    a pack issues, its MCP surface) are `kept`; the generator writes only what it infers."""
    return {**kept, "name": name, "hosts": list(hosts), "router": f"{ENGINE}:{name}.router",
            "faults": f"{ENGINE}:{name}.fault_answer", "coverage": f"{ENGINE}:{name}.coverage", "signature_tables": [users], "users_table": users,
            "user_email": email, "spec": source, "tables": list(tables)}


def read_description(path: Path) -> dict:
    text = path.read_text()
    if path.suffix in (".yaml", ".yml"):
        import yaml

        class Loader(yaml.SafeLoader):
            """YAML 1.1's `=` is a `value` tag PyYAML cannot build; to YAML 1.2 (and to
            Zendesk's description, whose examples hold `change: =`) it is the text "="."""
        Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))
        try:
            found = yaml.load(text, Loader=Loader)  # noqa: S506 (a SafeLoader)
        except yaml.YAMLError as e:
            raise ValueError(f"not YAML: {e}") from None
    else:
        found = json.loads(text)
    if not isinstance(found, dict):
        raise ValueError("a description is an object with `openapi`, `paths` and `components`")
    return found


def merged(documents: list[dict]) -> dict:
    """Several descriptions of one API as one (HubSpot publishes one per CRM object): their paths
    and components together; a path or component that two describe differently is refused."""
    whole = {**documents[0], "paths": {}, "components": {}}
    for document in documents:
        for path, item in document.get("paths", {}).items():
            if whole["paths"].setdefault(path, item) != item:
                raise ValueError(f"two descriptions give {path} differently")
        for kind, entries in document.get("components", {}).items():
            into = whole["components"].setdefault(kind, {})
            for name, entry in entries.items():
                if schema(into.setdefault(name, entry)) != schema(entry):  # their prose may differ
                    raise ValueError(f"two descriptions define components/{kind}/{name} differently")
    return whole


def hosts_of(document: dict, given: list[str]) -> tuple[str, ...]:
    if given:
        return tuple(given)
    hosts = []
    for server in document.get("servers", []):
        host = urlsplit(server["url"]).hostname
        if host and host not in hosts:
            hosts.append(host)
    if not hosts:
        raise SystemExit("the description names no servers: give --host")
    return tuple(hosts)


def _users_table(model: dict, document: dict, chosen: str | None) -> str:
    if chosen:
        return chosen
    schemas = document["components"]["schemas"]
    with_email = [r["table"] for r in model["resources"].values()
                  if "email" in schemas.get(r["schema"], {}).get("properties", {})]
    return (with_email or list(model["resources"]))[0]


EMAIL_FIELDS = ("email", "emailAddress", "email_address")


def _user_email(model: dict, document: dict, users: str, chosen: str | None) -> str:
    """The users table's email field, by which a world finds its people there ("" for none)."""
    if chosen is not None:
        return chosen
    schemas = document["components"]["schemas"]
    schema = next((r["schema"] for r in model["resources"].values() if r["table"] == users), "")
    fields = schemas.get(schema, {}).get("properties", {})
    return next((f for f in EMAIL_FIELDS if f in fields), "")


def renamed(model: dict, names: dict[str, str]) -> dict:
    """The model with tables named as given (`tasks_users__me_lists` as `tasks_tasklists`), where
    the path's words name them poorly (Google's lists of a user live under `users/@me/lists`). A
    table named as one before it is the same rows reached by another path (Graph's messages of a
    mail folder are the mailbox's messages): it keeps no table of its own, and its operations are
    left to the pack's overrides."""
    unknown = sorted(set(names) - set(model["resources"]))
    if unknown:
        raise ValueError(f"--rename names no table of the model: {', '.join(unknown)} (it has "
                         f"{', '.join(model['resources'])})")
    kept: dict[str, dict] = {}
    for table, resource in sorted(model["resources"].items(), key=lambda item: item[1]["collection"].count("/")):
        kept.setdefault(names.get(table, table), {**resource, "table": names.get(table, table),
                                                  "parent": names.get(resource["parent"], resource["parent"])})
    merged = {t for t in model["resources"] if kept[names.get(t, t)]["collection"] != model["resources"][t]["collection"]}
    model["resources"] = kept
    for operation, entry in model["operations"].items():
        if entry["resource"] in merged:
            model["operations"][operation] = {"action": None, "resource": None}
        else:
            entry["resource"] = names.get(entry["resource"], entry["resource"])
    return model


def generate(name: str, sources: list[Path], hosts: list[str], include: str | None, examples: Path | None,
             users_table: str | None, out: Path, user_email: str | None = None, extra: tuple[str, ...] = (),
             names: dict[str, str] | None = None) -> dict:
    document = merged([read_description(source) for source in sources])
    trimmed = trim(document, include)
    model = renamed(infer(name, trimmed, json.loads(examples.read_text()) if examples else None, document), names or {})
    if not model["resources"]:
        raise SystemExit("no collection or item paths found: nothing to keep state for")
    tables = tuple(dict.fromkeys([*model["resources"], *([users_table] if users_table else []), *extra]))
    described = f"{document.get('info', {}).get('title', name)} {document.get('info', {}).get('version', '')}"
    model["generated_from"] = f"{described.strip()} ({', '.join(source.name for source in sources)})"
    (out / "spec").mkdir(parents=True, exist_ok=True)
    (out / "templates").mkdir(exist_ok=True)
    (out / "spec" / "openapi.json").write_text(json.dumps(trimmed, indent=1) + "\n")
    (out / "spec" / "model.json").write_text(json.dumps(model, indent=1) + "\n")
    users = _users_table(model, trimmed, users_table)
    written = out / "spec" / "pack.json"
    kept = json.loads(written.read_text()) if written.exists() else {}
    written.write_text(json.dumps(descriptor(
        name, f"the OpenAPI description {model['generated_from']} (spec/openapi.json)", hosts_of(document, hosts),
        users, _user_email(model, trimmed, users, user_email), tables, kept), indent=1) + "\n")
    (out / "__init__.py").touch()
    seed = out / "templates" / f"{name}_default.json"
    if not seed.exists():
        seed.write_text(json.dumps({t: [] for t in tables}, indent=1) + "\n")
    return model


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m mock_services.rest.openapi", description=__doc__.split("\n")[0])
    parser.add_argument("name", help="the pack's name (AgentDiff's service name)")
    parser.add_argument("spec", type=Path, nargs="+", help="the OpenAPI 3.x description (JSON or YAML files: "
                                                          "several are merged)")
    parser.add_argument("--host", action="append", default=[], help="a host it answers (default: servers)")
    parser.add_argument("--include", help="a regex: only paths matching it are kept")
    parser.add_argument("--examples", type=Path, help="the vendor's example objects (JSON), for id styles")
    parser.add_argument("--users-table", help="the table whose first row acts (default: one with emails)")
    parser.add_argument("--user-email", help="its email field, by which worlds find their people ('' for none; "
                                             "default: the field its schema names email)")
    parser.add_argument("--table", action="append", default=[], help="a table the pack's overrides keep rows in "
                                                                     "that no collection path implies (Notion's blocks)")
    parser.add_argument("--rename", action="append", default=[], metavar="TABLE=NEW",
                        help="name an inferred table otherwise (its path's words name it poorly)")
    parser.add_argument("--out", type=Path, help="default: mock_services/NAME")
    args = parser.parse_args(argv)
    if any("=" not in n for n in args.rename):
        raise SystemExit("--rename takes TABLE=NEW")
    for spec in args.spec:
        if not spec.is_file():
            raise SystemExit(f"no description at {spec}")
    started = time.monotonic()
    try:
        model = generate(args.name, args.spec, args.host, args.include, args.examples, args.users_table,
                         args.out or ROOT / args.name, args.user_email, tuple(args.table),
                         dict(n.split("=", 1) for n in args.rename if "=" in n))
    except (ValueError, KeyError, TypeError, AttributeError) as e:  # JSON's and YAML's errors among them
        raise SystemExit(f"cannot generate from {', '.join(map(str, args.spec))}: {e}") from None
    modeled = sum(1 for o in model["operations"].values() if o["action"])
    print(f"{args.name}: {len(model['resources'])} resources, {modeled} of {len(model['operations'])} operations "
          f"modeled, in {time.monotonic() - started:.1f} s; a new pack joins detour with one line of PACK_MODULES "
          f"(detour_core/registry.py): \"mock_services/{args.name}/spec/pack.json\"")


if __name__ == "__main__":
    main(sys.argv[1:])
