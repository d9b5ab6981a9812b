"""State-backed handlers of Calendar v3's operations, by family; HANDLERS maps every
operation id of the discovery document to one."""

from mock_services.calendar.handlers import acl, calendars, events, misc

HANDLERS = {**calendars.HANDLERS, **events.HANDLERS, **acl.HANDLERS, **misc.HANDLERS}
