"""The Slack Web API replica."""
