"""Resolvers by domain; OBJECTS is every bindable the schema is built with."""

from mock_services.linear.resolvers import comments, issues, labels, relations, teams, users, workflow
from mock_services.linear.resolvers.roots import mutation, query

OBJECTS = [query, mutation, *users.OBJECTS, *teams.OBJECTS, *workflow.OBJECTS, *issues.OBJECTS,
           *comments.OBJECTS, *labels.OBJECTS, *relations.OBJECTS]
