"""State-backed handlers of Gmail v1's operations, by family; HANDLERS maps every operation
id of the discovery document to one."""

from mock_services.gmail.handlers import drafts, labels, messages, profile, settings, threads

HANDLERS = {**messages.HANDLERS, **threads.HANDLERS, **labels.HANDLERS, **drafts.HANDLERS, **profile.HANDLERS,
            **settings.HANDLERS}
