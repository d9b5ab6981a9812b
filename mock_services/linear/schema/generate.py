"""Generate linear.graphql, the Linear replica's schema, from the type declarations @linear/sdk ships.

    python -m mock_services.linear.schema.generate

The SDK's `dist/*.d.mts` declares every type of Linear's public GraphQL schema as TypeScript
(graphql-codegen's output): objects carry `__typename`, interfaces are what objects are
`&`-joined with, `XFieldArgs` holds the arguments of `X.field`, `Maybe<>`/`InputMaybe<>`
mark what may be null, `declare enum` lists enum values, `A | B` is a union and `Scalars`
names the custom scalars. This reads them back into SDL with Linear's names and types and
none of its descriptions. The output is generated: regenerate it, never edit it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).parent
OUTPUT = HERE / "linear.graphql"
SDK_DIST = HERE.parents[2] / "sandbox" / "node_packages" / "node_modules" / "@linear" / "sdk" / "dist"
BUILTIN_SCALARS = {"ID", "String", "Boolean", "Int", "Float"}

TYPE_DECL = re.compile(r"^type (\w+) = (.*)$")
ENUM_DECL = re.compile(r"^declare enum (\w+) \{$")
MEMBER = re.compile(r"^  (\w+)(\??): (.+);$")
ENUM_MEMBER = re.compile(r'^  \w+ = "([^"]+)",$')


@dataclass
class Declared:
    name: str
    interfaces: list[str]
    members: list[tuple[str, bool, str]]  # name, optional, TypeScript type
    typename: str | None = None


@dataclass
class Declarations:
    scalars: list[str] = field(default_factory=list)
    blocks: dict[str, Declared] = field(default_factory=dict)
    enums: dict[str, list[str]] = field(default_factory=dict)
    unions: dict[str, list[str]] = field(default_factory=dict)


def schema_lines(text: str) -> list[str]:
    """The schema part of the declarations: from `Scalars` up to the first operation's types."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith(("/**", "*", "*/"))]
    start = next(i for i, line in enumerate(lines) if line.startswith("type Scalars = {"))
    end = next(i for i, line in enumerate(lines) if re.match(r"^type \w+Fragment = ", line))
    return lines[start:end]


def read_block(lines: list[str], start: int, closer: str) -> tuple[list[str], int]:
    body = []
    index = start + 1
    while lines[index] != closer:
        body.append(lines[index])
        index += 1
    return body, index + 1


def parse(text: str) -> Declarations:
    lines = schema_lines(text)
    found = Declarations()
    index = 0
    while index < len(lines):
        line = lines[index]
        if enum := ENUM_DECL.match(line):
            body, index = read_block(lines, index, "}")
            found.enums[enum.group(1)] = [m.group(1) for b in body if (m := ENUM_MEMBER.match(b))]
            continue
        decl = TYPE_DECL.match(line)
        index += 1
        if not decl:
            continue
        name, rest = decl.groups()
        if rest.endswith("{"):
            body, index = read_block(lines, index - 1, "};")
            members = [(m.group(1), m.group(2) == "?", m.group(3)) for b in body if (m := MEMBER.match(b))]
            if name == "Scalars":
                found.scalars = [m[0] for m in members if m[0] not in BUILTIN_SCALARS]
                continue
            interfaces = [part.strip() for part in rest[:-1].split("&") if part.strip()]
            typename = next((t.strip('"') for n, _, t in members if n == "__typename"), None)
            found.blocks[name] = Declared(name, interfaces, [m for m in members if m[0] != "__typename"],
                                          typename)
        elif re.fullmatch(r"\w+( \| \w+)+;", rest):
            found.unions[name] = rest.rstrip(";").split(" | ")
    return found


def graphql_type(ts: str, optional: bool) -> str:
    """`Maybe<Array<Scalars["ID"]>>` -> `[ID!]`: nullability from Maybe/InputMaybe or `?`."""
    nullable = optional
    for wrapper in ("InputMaybe<", "Maybe<"):
        if ts.startswith(wrapper):
            ts, nullable = ts[len(wrapper):-1], True
    if ts.startswith("Array<"):
        inner = graphql_type(ts[len("Array<"):-1], False)
    elif scalar := re.fullmatch(r'Scalars\["(\w+)"\]', ts):
        inner = scalar.group(1)
    else:
        inner = ts
    if ts.startswith("Array<"):
        inner = f"[{inner}]"
    return inner if nullable else inner + "!"


class SchemaWriter:
    def __init__(self, found: Declarations) -> None:
        self.found = found
        self.objects = {n: d for n, d in found.blocks.items() if d.typename == n}
        self.interfaces = {i for d in self.objects.values() for i in d.interfaces}
        for name in list(self.interfaces):
            self.interfaces.update(found.blocks[name].interfaces)
        self.args = self.argument_blocks()
        self.inputs = {n: d for n, d in found.blocks.items()
                       if n not in self.objects and n not in self.interfaces and n not in self.args.values()
                       and not n.endswith("Args")}

    def argument_blocks(self) -> dict[tuple[str, str], str]:
        """`IssueChildrenArgs` -> (Issue, children): the longest type name that leaves a field.

        The codegen recases acronyms (`attachmentsForURL` -> `AttachmentsForUrlArgs`), so the
        field is matched without regard to case.
        """
        owners = {**self.objects, **{n: self.found.blocks[n] for n in self.interfaces}}
        found = {}
        for name in self.found.blocks:
            if not name.endswith("Args"):
                continue
            stem = name[:-len("Args")]
            for cut in range(len(stem) - 1, 0, -1):
                owner, field_part = stem[:cut], stem[cut:].lower()
                field_name = next((m[0] for m in owners[owner].members if m[0].lower() == field_part), None) \
                    if owner in owners else None
                if field_name:
                    found[(owner, field_name)] = name
                    break
        return found

    def fields(self, declared: Declared) -> list[str]:
        out = []
        for name, optional, ts in declared.members:
            args_block = self.args.get((declared.name, name))
            args = ""
            if args_block:
                params = [f"{a}: {graphql_type(t, o)}" for a, o, t in self.found.blocks[args_block].members]
                args = f"({', '.join(params)})" if params else ""
            out.append(f"  {name}{args}: {graphql_type(ts, optional)}")
        return out

    def block(self, keyword: str, declared: Declared, implements: list[str] | None = None) -> str:
        head = f"{keyword} {declared.name}"
        if implements:
            head += " implements " + " & ".join(implements)
        return "\n".join([head + " {", *self.fields(declared), "}"])

    def sdl(self) -> str:
        parts = ["# Generated by mock_services/linear/schema/generate.py from @linear/sdk's type declarations;",
                 "# do not edit. Linear's names and types, without its descriptions.", ""]
        parts += [f"scalar {s}" for s in self.found.scalars]
        for name in sorted(self.interfaces):
            declared = self.found.blocks[name]
            parts.append(self.block("interface", declared, [i for i in declared.interfaces if i in self.interfaces]))
        for name in sorted(self.objects):
            declared = self.objects[name]
            implemented = set(declared.interfaces)
            for interface in declared.interfaces:  # GraphQL wants the interfaces' own interfaces named too
                implemented.update(self.found.blocks[interface].interfaces)
            parts.append(self.block("type", declared, sorted(implemented)))
        for name in sorted(self.inputs):
            parts.append(self.block("input", self.inputs[name]))
        for name, values in sorted(self.found.enums.items()):
            parts.append(f"enum {name} {{\n" + "\n".join(f"  {v}" for v in values) + "\n}")
        for name, members in sorted(self.found.unions.items()):
            parts.append(f"union {name} = {' | '.join(members)}")
        return "\n".join(parts) + "\n"


def declarations_text(dist: Path = SDK_DIST) -> str:
    """Every .d.mts of the installed SDK, the chunk that holds the schema's types among them."""
    files = sorted(dist.glob("*.d.mts"))
    if not files:
        raise SystemExit(f"no @linear/sdk type declarations in {dist}: run `make` to install the node packages")
    return "\n".join(p.read_text() for p in files if "type Scalars = {" in p.read_text())


def generate(dist: Path = SDK_DIST) -> str:
    return SchemaWriter(parse(declarations_text(dist))).sdl()


def main() -> None:
    OUTPUT.write_text(generate())
    print(f"wrote {OUTPUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
