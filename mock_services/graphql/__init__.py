"""The generic GraphQL engine the GraphQL packs share: a vendor's schema (generated from its own
definition) served by one resolver per kind of field (default_resolver.py), an entity model
that says which types are rows and how they relate (entities.py), one filter language
(filters.py), relay connections (pagination.py) and request bounds (limits.py). A pack adds
its model, its error shape, and resolvers only where its vendor has real rules."""
