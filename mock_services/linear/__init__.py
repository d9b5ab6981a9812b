"""The Linear GraphQL API replica (schema-first, on Ariadne)."""
