"""Resolvers by domain; OBJECTS is every bindable the schema is built with.

Root queries, entity mutations and every other field are bound generically afterwards
(queries.bind_roots, mutations.bind_mutations, default_resolver.install): the modules here hold
only what an entity does beyond the generic behaviour.
"""

from mock_services.linear.resolvers import (comments, issues, labels, projects, relations, search, teams, users,
                                            workflow)
from mock_services.linear.resolvers import webhooks  # noqa: F401 (a new webhook's defaults)
from mock_services.linear.resolvers.roots import mutation, query

OBJECTS = [query, mutation, *users.OBJECTS, *teams.OBJECTS, *workflow.OBJECTS, *issues.OBJECTS,
           *comments.OBJECTS, *labels.OBJECTS, *relations.OBJECTS, *projects.OBJECTS, *search.OBJECTS]
