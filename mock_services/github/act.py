"""A timeline's step in GitHub: a REST operation as a request line and its body, as the person."""

from mock_services.github.router import API
from mock_services.rest.act import rest_act

act = rest_act(API)
