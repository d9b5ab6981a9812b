"""Gmail as a timeline step acts: a request line of its operation table, as the step's person."""

from mock_services.gmail.router import API
from mock_services.rest.act import rest_act

act = rest_act(API)
