"""The committed generator: GitHub's public GraphQL schema (npm `@octokit/graphql-schema`,
`schema.graphql`) -> `schema.graphql` here, with every description left out (names and types
only; no vendor prose is copied).

    npm pack @octokit/graphql-schema && tar xzf octokit-graphql-schema-*.tgz
    python -m mock_services.github.graphql.generate package/schema.graphql mock_services/github/graphql/schema.graphql
"""

from __future__ import annotations

import sys
from pathlib import Path

from graphql import parse, print_ast
from graphql.language import Visitor, visit


class _NoDescriptions(Visitor):
    def enter(self, node, *_):  # type: ignore[no-untyped-def]
        if getattr(node, "description", None) is not None:
            object.__setattr__(node, "description", None)  # the nodes are frozen; this document is ours


def generate(sdl: str) -> str:
    document = parse(sdl, no_location=True)
    visit(document, _NoDescriptions())
    return print_ast(document) + "\n"


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        raise SystemExit("usage: python -m mock_services.github.graphql.generate SCHEMA.graphql OUT.graphql")
    Path(argv[1]).write_text(generate(Path(argv[0]).read_text()))


if __name__ == "__main__":
    main(sys.argv[1:])
