"""State-backed handlers of Drive v3's operations, by family; HANDLERS maps every operation id of
the discovery document to one (what the replica does not keep answers 501, naming it)."""

from mock_services.drive.handlers import files_read, files_write, history, sharing, social, unsupported

HANDLERS = {**files_read.HANDLERS, **files_write.HANDLERS, **sharing.HANDLERS, **social.HANDLERS,
            **history.HANDLERS, **unsupported.HANDLERS}
