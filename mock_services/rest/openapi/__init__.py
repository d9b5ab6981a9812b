"""Packs from OpenAPI 3.x descriptions: the generator (`python -m mock_services.rest.openapi`), the
resource model it infers, and the generic state-backed semantics a generated pack runs on."""
