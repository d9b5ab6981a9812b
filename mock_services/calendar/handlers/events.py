"""events.*: the reads (events_read.py) and the writes (events_write.py), by operation id."""

from mock_services.calendar.handlers import events_read as read
from mock_services.calendar.handlers import events_write as write

HANDLERS = {
    "events.list": read.list_events, "events.get": read.get_event, "events.instances": read.list_instances,
    "events.insert": write.insert_event,
    "events.update": lambda call: write.change_event(call, replace=True),
    "events.patch": lambda call: write.change_event(call, replace=False),
    "events.delete": write.delete_event, "events.move": write.move_event, "events.quickAdd": write.quick_add,
    "events.import": write.import_event, "events.watch": write.watch_events,
}
