"""The root types, shared by the domain modules that bind fields on them."""

from ariadne import MutationType, QueryType

query = QueryType()
mutation = MutationType()
