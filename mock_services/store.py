"""Environment state: the live rows and a `baseline` copy taken at creation, per environment;
the diff is a join of the two, in AgentDiff's shape.

Where the rows live is a `Database` (mock_services/databases): a SQLite file per
environment by default, a Postgres schema per environment with a database URL.
"""

from __future__ import annotations

import base64
import functools
import json
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from detour_core.credentials import new_env_id, validate_env_id
from detour_core.paths import StatePaths
from detour_core.policy import Policy, policy_file, save_policy
from detour_core.secrets import SecretStore
from detour_core.pack import resolve
from detour_core.registry import pack
from mock_services.clock import Clock, bound
from mock_services.databases import Connection, database_for
from mock_services.events.rules import Change, asks_before, emit
from mock_services.timelines.model import TIMELINE_KEY, Step, check_references
from mock_services.timelines.run import started
from detour_core.errors import EnvironmentExists, EnvironmentNotFound, InvalidFork, InvalidTemplate, InvalidTtl
from mock_services.issued_tokens import SALT_KEY, Credentials, new_salt
from mock_services.request_budget import RequestBudget
from mock_services.templates import CONTENTS_KEY, Template, compose, load_template, world_body
from mock_services.world import Person, person_named, qualified, split

Row = dict[str, Any]


class EnvironmentInfo(BaseModel):
    model_config = ConfigDict(frozen=True)  # parsed_info hands one instance to every reader

    env_id: str
    template: str
    service: str
    acting_user: str
    created_at: float
    request_budget: RequestBudget | None = None
    expires_at: float | None = None  # after it, the environment is gone (AgentDiff's ttlSeconds)
    require_issued_tokens: bool = False  # then a token the environment did not issue is refused
    forked_from: str | None = None  # the environment it is a copy of, as it stood when forked
    clock: Clock = Clock()  # the environment's own time (mock_services.clock)
    seed: str = ""          # what the ids its replicas make are drawn from (default: its template's name)
    # A world's (mock_services/world.py): the services it holds, its people, and the acting
    # person's user id in each service (`acting_user` is then the person's handle).
    services: list[str] = []
    people: list[Person] = []
    acting_users: dict[str, str] = {}

    @property
    def expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= time.time()

    @property
    def is_world(self) -> bool:
        return bool(self.services)

    def held(self) -> list[str]:
        """The services whose hosts reach this environment."""
        return self.services or [self.service]


class StateDiff(BaseModel):
    """AgentDiff's diff: every row carries its table in `__table__`."""

    inserts: list[Row]
    updates: list[Row]
    deletes: list[Row]


def row_key(service: str, table: str, row: Row) -> str:
    """A row's primary key as the databases store it (a world's tables are `service.table`)."""
    owner, bare = split(table)
    return json.dumps([row[c] for c in pack(owner or service).primary_key(bare)])


class EnvState:
    """The rows of one environment, behind a small table API the replicas share.

    In a world, a pack sees its own tables by their bare names: `scoped(service)` is the state
    as that service's replica sees it (its tables, its acting user)."""

    def __init__(self, db: Connection, info: EnvironmentInfo, scope: str | None = None,
                 committed: list[Callable[[], None]] | None = None) -> None:
        self.db = db
        self.info = info
        self.scope = scope
        # What to do once the transaction has committed (an outbox rings for its readers)
        self.committed: list[Callable[[], None]] = [] if committed is None else committed

    def scoped(self, service: str) -> EnvState:
        """The state as `service`'s replica sees it; an environment without it is seen whole
        (its `service` then is not `service`, and the replica refuses it as before)."""
        if not self.info.is_world or service not in self.info.services:
            return self
        seen_as = self.info.model_copy(update={"service": service,
                                               "acting_user": self.info.acting_users.get(service, "")})
        return EnvState(self.db, seen_as, scope=service, committed=self.committed)

    @property
    def service(self) -> str:
        return self.info.service

    def _tbl(self, table: str) -> str:
        return qualified(self.scope, table) if self.scope else table

    def clock(self) -> Clock:
        return self.info.clock

    def seed(self) -> str:
        return self.info.seed or self.info.template

    def _pk(self, table: str, row: Row) -> str:
        return row_key(self.service, table, row)

    def rows(self, table: str, **equals: Any) -> list[Row]:
        """Rows of `table` in insertion order, filtered by top-level field equality (with a
        scalar: a list or object from a request's body matches no row, it never reaches SQL)."""
        if any(isinstance(v, list | dict) for v in equals.values()):
            return []
        sql = "SELECT data FROM rows WHERE tbl = ?"
        args: list[Any] = [self._tbl(table)]
        for field, value in equals.items():
            sql += " AND " + self.db.field_is(field)
            args.append(self.db.field_value(value))
        return [json.loads(d) for (d,) in self.db.execute(sql + " ORDER BY rowid", args)]

    def rows_in(self, table: str, field: str, values: list[Any]) -> list[Row]:
        """Rows of `table` whose top-level `field` is one of `values` (one query for a whole page)."""
        if not values:
            return []
        sql = f"SELECT data FROM rows WHERE tbl = ? AND {self.db.field_in(field, len(values))} ORDER BY rowid"
        return [json.loads(d) for (d,) in self.db.execute(sql, [self._tbl(table), *map(self.db.field_value, values)])]

    def first(self, table: str, **equals: Any) -> Row | None:
        found = self.rows(table, **equals)
        return found[0] if found else None

    def insert(self, table: str, row: Row) -> Row:
        self.db.execute("INSERT INTO rows (tbl, pk, data) VALUES (?, ?, ?)",
                        (self._tbl(table), self._pk(table, row), json.dumps(row)))
        self._changed(table, "insert", row)
        return row

    def update(self, table: str, row: Row) -> Row:
        before = self._stored(table, row) if asks_before(self.scope or self.service, table) else None
        self.db.execute("UPDATE rows SET data = ? WHERE tbl = ? AND pk = ?",
                        (json.dumps(row), self._tbl(table), self._pk(table, row)))
        self._changed(table, "update", row, before)
        return row

    def _stored(self, table: str, row: Row) -> Row | None:
        """The row as stored now (an event rule asks what an update changed)."""
        found = self.db.execute("SELECT data FROM rows WHERE tbl = ? AND pk = ?",
                                (self._tbl(table), self._pk(table, row)))
        return json.loads(found[0][0]) if found else None

    def delete(self, table: str, row: Row) -> None:
        self.db.execute("DELETE FROM rows WHERE tbl = ? AND pk = ?", (self._tbl(table), self._pk(table, row)))
        self._changed(table, "delete", row)

    def _changed(self, table: str, change: Change, row: Row, before: Row | None = None) -> None:
        """The events the change emits, in this transaction (a world seen whole is no pack's)."""
        if self.scope or not self.info.is_world:
            emit(self, self.scope or self.service, table, change, row, before)

    def meta(self, key: str) -> Any:
        found = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,))
        return json.loads(found[0][0]) if found else None

    def set_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (key, json.dumps(value)))

    def blob(self, key: str) -> bytes | None:
        """Contents the environment keeps beside its rows (file contents), by key."""
        self.db.prepare_blobs()
        found = self.db.execute("SELECT data FROM blobs WHERE key = ?", (key,))
        return bytes(found[0][0]) if found else None

    def blobs(self) -> dict[str, bytes]:
        """Every content the environment keeps, by key."""
        self.db.prepare_blobs()
        return {key: bytes(data) for key, data in self.db.execute("SELECT key, data FROM blobs ORDER BY key")}

    def put_blob(self, key: str, data: bytes) -> None:
        """Keep `data` under `key`; keys name contents (a hash), so a second write changes nothing."""
        self.db.prepare_blobs()
        self.db.execute("INSERT INTO blobs (key, data) VALUES (?, ?) ON CONFLICT (key) DO NOTHING", (key, data))

    @contextmanager
    def savepoint(self) -> Iterator[None]:
        """Undo only what the block wrote if it raises; the transaction around it goes on."""
        self.db.execute("SAVEPOINT block")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK TO SAVEPOINT block")
            raise
        finally:
            self.db.execute("RELEASE SAVEPOINT block")

    def tables(self) -> dict[str, list[Row]]:
        """The current rows by table, in insertion order (a world's by `service.table`)."""
        tables: dict[str, list[Row]] = {}
        for table, data in self.db.execute("SELECT tbl, data FROM rows ORDER BY rowid"):
            tables.setdefault(table, []).append(json.loads(data))
        return tables

    def template_body(self) -> dict:
        """The environment as it stands, as a template file (save-template): its rows and the
        bytes they name that it keeps (uploaded files, pushed git objects), so that nothing of
        it is lost in the copy."""
        if self.info.is_world:
            body = world_body(tuple(self.info.services), self.info.people, self.info.acting_user or None,
                              self.tables())
        else:
            body = self.tables()
        if kept := self.blobs():
            body[CONTENTS_KEY] = {key: base64.b64encode(data).decode() for key, data in kept.items()}
        return body

    def snapshot(self, run: str) -> None:
        self.db.prepare_snapshots()
        self.db.execute("INSERT INTO snapshots (run, tbl, pk, data) SELECT ?, tbl, pk, data FROM rows ORDER BY rowid",
                        (run,))

    def diff(self, since: str | None = None) -> StateDiff:
        """Changes since creation, or since run `since` started."""
        def tagged(tbl: str, data: str) -> Row:
            return {**json.loads(data), **self._tags(tbl)}

        if since is None:
            before, args = "WITH b AS (SELECT tbl, pk, data, rowid AS n FROM baseline) ", ()
        else:
            before, args = "WITH b AS (SELECT tbl, pk, data, rowid AS n FROM snapshots WHERE run = ?) ", (since,)
        inserts = self.db.execute(
            before + "SELECT r.tbl, r.data FROM rows r LEFT JOIN b ON r.tbl = b.tbl AND r.pk = b.pk"
            " WHERE b.pk IS NULL ORDER BY r.rowid", args)
        deletes = self.db.execute(
            before + "SELECT b.tbl, b.data FROM b LEFT JOIN rows r ON r.tbl = b.tbl AND r.pk = b.pk"
            " WHERE r.pk IS NULL ORDER BY b.n", args)
        updates = self.db.execute(
            before + "SELECT r.tbl, b.data, r.data FROM rows r JOIN b ON r.tbl = b.tbl AND r.pk = b.pk"
            " WHERE r.data != b.data ORDER BY r.rowid", args)
        return StateDiff(
            inserts=[tagged(t, d) for t, d in inserts],
            updates=[{**self._tags(t), "before": json.loads(b), "after": json.loads(a)}
                     for t, b, a in updates],
            deletes=[tagged(t, d) for t, d in deletes],
        )


    def _tags(self, tbl: str) -> Row:
        """A diff row's table, and in a world its service too (`slack.messages`, `slack`)."""
        service, _ = split(tbl)
        return {"__table__": tbl, "__service__": service} if self.info.is_world and service else {"__table__": tbl}


class EnvironmentStore:
    def __init__(self, state: StatePaths) -> None:
        self.state = state
        self.db = database_for(state)

    def create(self, template_name: str | list[str], env_id: str | None = None, acting_user: str | None = None,
               template_dirs: tuple[Path, ...] = (), request_budget: RequestBudget | None = None,
               ttl_s: float | None = None, require_issued_tokens: bool = False, clock: Clock | None = None,
               seed: str | None = None, timeline: list[Step] | None = None) -> EnvironmentInfo:
        """`template_name`: one template (a service's or a world's), or several templates of
        different services joined into one world. `acting_user`: a user id of the service, or
        in a world a person's handle. `clock`: the environment's time (the wall clock's by
        default); `seed`: what its ids are drawn from (its template's name by default, so two of
        the same template make the same ids)."""
        if ttl_s is not None and ttl_s <= 0:
            raise InvalidTtl(f"a time to live is a positive number of seconds, not {ttl_s}")
        template = self._template(template_name, template_dirs)
        env_id = validate_env_id(env_id) if env_id else new_env_id()
        if self.db.exists(env_id):
            raise EnvironmentExists(f"environment {env_id!r} exists already")
        created = time.time()
        settings = template.settings
        if clock is None and settings.now is not None:
            clock = Clock().set(settings.now.timestamp())
        info = EnvironmentInfo(env_id=env_id, template=template.name, service=template.service,
                               acting_user=acting_user or _default_user(template), created_at=created,
                               request_budget=request_budget, expires_at=created + ttl_s if ttl_s else None,
                               clock=clock or Clock(), seed=seed or settings.seed or "",
                               require_issued_tokens=require_issued_tokens)
        if template.is_world:
            info = _as_world(info, template)
        elif acting_user:
            _check_user(template, acting_user)
        defaults = {table: fields for service in template.held() for table, fields in pack(service).row_defaults.items()}
        meta = {k: json.dumps(v) for k, v in info.model_dump().items()} | {SALT_KEY: json.dumps(new_salt())}
        if steps := [*settings.timeline, *(timeline or [])]:  # the template's, then a suite test's
            try:
                check_references(steps)
            except ValueError as e:
                raise InvalidTemplate(f"template {template.name!r}: {e}") from None
            meta[TIMELINE_KEY] = json.dumps(started(steps, info.clock.now()))
        self.db.create(env_id, meta, _seed_rows(template), blobs=template.contents,
                       template_key=f"{template.name}:{template.digest}:{json.dumps(defaults, sort_keys=True)}")
        if settings.faults:  # the template's curriculum: its faults open the environment's own policy
            save_policy(policy_file(self.state, env_id), Policy(faults=settings.faults))
        return info

    def _template(self, names: str | list[str], template_dirs: tuple[Path, ...]) -> Template:
        if isinstance(names, str) or len(names) == 1:
            return load_template(self.state, names if isinstance(names, str) else names[0], template_dirs)
        if not names:
            raise InvalidTemplate("an environment needs a template")
        return compose([load_template(self.state, name, template_dirs) for name in names])

    def fork(self, env_id: str, count: int = 1) -> list[EnvironmentInfo]:
        """`count` new environments, each a copy of `env_id` as it stands now: its rows, contents,
        policy and secrets, with an id, credentials and issued tokens of its own; each one's diff
        starts at the fork. What forks do after it, they do each on their own."""
        if count < 1:
            raise InvalidFork(f"a fork makes at least one environment, not {count}")
        parent = self.get(env_id)
        forks = []
        for _ in range(count):
            now = time.time()
            info = parent.model_copy(update={
                "env_id": new_env_id(), "created_at": now, "forked_from": env_id,
                "expires_at": now + parent.expires_at - parent.created_at if parent.expires_at else None})
            meta = {k: json.dumps(v) for k, v in info.model_dump().items()} | {SALT_KEY: json.dumps(new_salt())}
            self.db.fork(env_id, info.env_id, meta)
            _copy_if_present(policy_file(self.state, env_id), policy_file(self.state, info.env_id))
            SecretStore(self.state.secrets_dir).copy(env_id, info.env_id)
            forks.append(info)
        return forks

    def get(self, env_id: str) -> EnvironmentInfo:
        with self.open(env_id) as state:
            return state.info

    def list(self) -> list[EnvironmentInfo]:
        infos = []
        for env_id in self.db.ids():
            try:
                infos.append(self.get(env_id))
            except EnvironmentNotFound:
                continue  # deleted (or expired) while we listed
        return sorted(infos, key=lambda i: i.created_at)

    def delete(self, env_id: str) -> None:
        if not self.db.exists(validate_env_id(env_id)):
            raise EnvironmentNotFound(f"no environment {env_id!r}")
        self._remove(env_id)

    def _remove(self, env_id: str) -> None:
        """The database, the environment's own network policy and secrets; its audit records stay."""
        self.db.remove(env_id)
        policy_file(self.state, env_id).unlink(missing_ok=True)
        SecretStore(self.state.secrets_dir).forget(env_id)

    def expire(self) -> list[str]:
        """Delete the environments whose time to live is over (a server sweeps now and then;
        any use of one finds it gone in any case)."""
        before = set(self.db.ids())
        return sorted(before - {info.env_id for info in self.list()})

    def diff(self, env_id: str, since: str | None = None) -> StateDiff:
        with self.open(env_id) as state:
            return state.diff(since)

    def snapshot(self, env_id: str, run: str) -> None:
        """Keep the rows as they are now, for diff(env_id, since=run)."""
        with self.open(env_id, write=True) as state:
            state.snapshot(run)

    def credentials(self, env_id: str) -> Credentials:
        """The tokens the environment issues its users, and the variables its sandboxes get (the
        acting user's); none for a service whose pack issues none."""
        with self.open(env_id) as state:
            merged = Credentials({}, {})
            for service in state.info.held():
                scoped = state.scoped(service)
                hook = pack(service).credentials
                issued = resolve(hook)(scoped) if hook else Credentials({}, {})
                tokens = {f"{service}:{u}": t for u, t in issued.tokens.items()} if state.info.is_world else issued.tokens
                merged.tokens.update(tokens)
                merged.variables.update(issued.variables)
            return merged

    def set_clock(self, env_id: str, clock: Clock) -> EnvironmentInfo:
        """The environment's time from now on (its replicas read no other)."""
        with self.open(env_id, write=True) as state:
            state.set_meta("clock", clock.model_dump())
            return state.info.model_copy(update={"clock": clock})

    def set_request_budget(self, env_id: str, budget: RequestBudget | None) -> EnvironmentInfo:
        with self.open(env_id, write=True) as state:
            state.set_meta("request_budget", budget.model_dump() if budget else None)
            return state.info.model_copy(update={"request_budget": budget})

    @contextmanager
    def open(self, env_id: str, write: bool = False, service: str | None = None) -> Iterator[EnvState]:
        """One environment's state; with write=True, one serialised transaction. With
        `service`, as that service's replica sees it (in a world: its tables alone)."""
        committed: list[Callable[[], None]] = []
        with self.db.connect(validate_env_id(env_id), write) as db:
            info = parsed_info(tuple((k, v) for k, v in db.execute("SELECT key, value FROM meta")
                                     if k in EnvironmentInfo.model_fields))
            expired = info.expired
            if not expired:
                state = EnvState(db, info, committed=committed)
                if service:
                    state = state.scoped(service)
                with bound(state):
                    yield state
        for hook in committed:
            hook()
        if expired:
            self._remove(env_id)
            raise EnvironmentNotFound(f"environment {env_id!r} expired (its time to live is over)")


@functools.lru_cache(maxsize=1024)
def parsed_info(rows: tuple[tuple[str, str], ...]) -> EnvironmentInfo:
    """An environment's info from its meta rows as stored. Every replica call opens its
    environment, and the rows rarely change between two calls: the same rows are parsed once
    (~30 us a call). The model is frozen, so the one instance can be handed to every caller."""
    return EnvironmentInfo(**{k: json.loads(v) for k, v in rows})


def _copy_if_present(source: Path, target: Path) -> None:
    if source.is_file():
        shutil.copyfile(source, target)


def _default_user(template: Template, service: str | None = None) -> str:
    """The first user of the seed acts unless told otherwise (AgentDiff's agent user); in a
    world, its acting person (or its first), and a service's first user where nobody is named."""
    if template.is_world and service is None:
        return template.acting or (template.people[0].person if template.people else "")
    descriptor = pack(service or template.service)
    table = qualified(service, descriptor.users_table) if service else descriptor.users_table
    users = template.tables.get(table) or [{}]
    return str(users[0].get(descriptor.primary_key(descriptor.users_table)[0]) or "")


def _check_user(template: Template, user: str) -> None:
    """A service's acting user must be one of its seed's users: anyone else would get no token."""
    descriptor = pack(template.service)
    key = descriptor.primary_key(descriptor.users_table)[0]
    ids = [str(row.get(key)) for row in template.tables.get(descriptor.users_table) or []]
    if ids and user not in ids:
        shown = ", ".join(ids[:12]) + (f" and {len(ids) - 12} more" if len(ids) > 12 else "")
        raise InvalidTemplate(f"{user!r} is no user of template {template.name!r}: its users are {shown}")


def _as_world(info: EnvironmentInfo, template: Template) -> EnvironmentInfo:
    """A world's info: its services, its people, and who the acting person is in each service."""
    people = list(template.people)
    person = person_named(people, info.acting_user)
    if people and person is None:
        raise InvalidTemplate(f"{info.acting_user!r} is none of world {template.name!r}'s people: "
                              + ", ".join(p.person for p in people))
    if not people and info.acting_user:
        raise InvalidTemplate(f"world {template.name!r} has no people to act as ({info.acting_user!r})")
    ids = person.ids if person else {}
    acting = {s: ids.get(s) or _default_user(template, s) for s in template.services}
    return info.model_copy(update={"services": list(template.services), "people": people, "acting_users": acting})


def _seed_rows(template: Template) -> Iterator[tuple[str, str, str]]:
    """(table, key, row) for every seeded row, given the fields a row made by the API has."""
    for table, rows in template.tables.items():
        service, bare = split(table)
        defaults = pack(service or template.service).row_defaults.get(bare, {})
        for row in rows:
            yield table, row_key(template.service, table, row), json.dumps({**defaults, **row})
