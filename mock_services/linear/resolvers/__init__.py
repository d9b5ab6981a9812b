"""Resolvers by domain; OBJECTS is every bindable the schema is built with."""

from mock_services.linear.resolvers import comments, issues, teams, users
from mock_services.linear.resolvers.roots import mutation, query

OBJECTS = [query, mutation, *users.OBJECTS, *teams.OBJECTS, *issues.OBJECTS, *comments.OBJECTS]
