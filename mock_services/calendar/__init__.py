"""The Google Calendar API v3 replica, on the generic REST engine (mock_services/rest)."""
