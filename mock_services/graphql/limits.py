"""Bounds on what one GraphQL request may ask for: size, tokens, depth and the number of fields.

The largest document @linear/sdk sends is about 9 KB, 1,000 tokens, 8 levels deep and
1,100 fields with its fragments expanded; the bounds leave room above that and stop a
hostile or runaway query before it executes (as Linear's complexity limit does).
"""

from __future__ import annotations

from typing import Any

from graphql import (DocumentNode, FieldNode, FragmentDefinitionNode, FragmentSpreadNode, GraphQLError,
                     InlineFragmentNode, OperationDefinitionNode, SelectionSetNode, ValidationContext, parse)
from graphql.validation import ASTValidationRule

MAX_BODY_BYTES = 1_000_000
MAX_TOKENS = 15_000
MAX_DEPTH = 12
MAX_FIELDS = 5_000


def parse_query(_context: Any, data: dict) -> DocumentNode:
    """ariadne's query parser, with a token bound so that a huge query fails fast."""
    return parse(data["query"], max_tokens=MAX_TOKENS)


class QueryShape(ASTValidationRule):
    """Depth and field count of each operation, fragments expanded."""

    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self.fragments = {d.name.value: d for d in context.document.definitions
                          if isinstance(d, FragmentDefinitionNode)}

    def measure(self, selections: SelectionSetNode | None, depth: int, path: tuple[str, ...]) -> tuple[int, int]:
        if selections is None:
            return depth, 0
        deepest, fields = depth, 0
        for selection in selections.selections:
            if depth > MAX_DEPTH or fields > MAX_FIELDS:
                break
            if isinstance(selection, FieldNode):
                d, f = self.measure(selection.selection_set, depth + 1, path)
                deepest, fields = max(deepest, d), fields + 1 + f
            elif isinstance(selection, InlineFragmentNode):
                d, f = self.measure(selection.selection_set, depth, path)
                deepest, fields = max(deepest, d), fields + f
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name in path or name not in self.fragments:
                    continue  # cycles and unknown fragments are other rules' errors
                d, f = self.measure(self.fragments[name].selection_set, depth, (*path, name))
                deepest, fields = max(deepest, d), fields + f
        return deepest, fields

    def enter_operation_definition(self, node: OperationDefinitionNode, *_: Any) -> None:
        depth, fields = self.measure(node.selection_set, 0, ())
        if depth > MAX_DEPTH:
            self.report_error(GraphQLError(f"Query too deep: the limit is {MAX_DEPTH} levels", node))
        elif fields > MAX_FIELDS:
            self.report_error(GraphQLError(f"Query too complex: the limit is {MAX_FIELDS} fields", node))
