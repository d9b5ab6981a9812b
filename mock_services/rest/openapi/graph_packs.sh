#!/bin/bash
# The four Microsoft 365 packs (Outlook mail and calendar, Teams, OneDrive) from Microsoft
# Graph's CSDL metadata (msgraph-metadata's schemas/v1.0-Prod.csdl, the first argument): each
# pack's spec/paths.txt through from_csdl, then the OpenAPI generator with its hosts and tables.
#     bash mock_services/rest/openapi/graph_packs.sh v1.0-Prod.csdl
set -ef  # no globbing: a `*` in a host prefix is the route's own
CSDL=$(realpath "$1")
cd "$(dirname "$0")/../../.."
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PYTHON=${PYTHON:-.venv/bin/python}
gen() { name=$1; shift; mkdir -p $WORK/$name
  $PYTHON -m mock_services.rest.openapi.from_csdl "$CSDL" mock_services/$name/spec/paths.txt $WORK/$name/graph.json \
    --title "Microsoft Graph (msgraph-metadata schemas/v1.0-Prod.csdl at f54f11b6, through from_csdl and spec/paths.txt)"
  $PYTHON -m mock_services.rest.openapi $name $WORK/$name/graph.json $HOSTS \
    --users-table ${name}_users --user-email userPrincipalName "$@"
}
HOSTS='--host graph.microsoft.com/v1.0/users --host graph.microsoft.com/v1.0/me --host graph.microsoft.com/v1.0/users/*/messages --host graph.microsoft.com/v1.0/users/*/mailFolders --host graph.microsoft.com/v1.0/users/*/sendMail --host graph.microsoft.com/v1.0/me/messages --host graph.microsoft.com/v1.0/me/mailFolders --host graph.microsoft.com/v1.0/me/sendMail --host login.microsoftonline.com' gen outlook_mail --rename outlook_mail_users_messages=outlook_mail_messages \
  --rename outlook_mail_users_mailfolders=outlook_mail_folders \
  --rename outlook_mail_users_mailfolders_childfolders=outlook_mail_folders \
  --rename outlook_mail_users_mailfolders_messages=outlook_mail_messages
HOSTS='--host graph.microsoft.com/v1.0/users/*/events --host graph.microsoft.com/v1.0/users/*/calendar --host graph.microsoft.com/v1.0/users/*/findMeetingTimes --host graph.microsoft.com/v1.0/me/events --host graph.microsoft.com/v1.0/me/calendar --host graph.microsoft.com/v1.0/me/findMeetingTimes --host login.microsoftonline.com' gen outlook_calendar --rename outlook_calendar_users_events=outlook_calendar_events \
  --rename outlook_calendar_users_calendars=outlook_calendar_calendars \
  --rename outlook_calendar_users_calendars_events=outlook_calendar_events
HOSTS='--host graph.microsoft.com/v1.0/chats --host graph.microsoft.com/v1.0/teams --host graph.microsoft.com/v1.0/users/*/joinedTeams --host graph.microsoft.com/v1.0/users/*/chats --host graph.microsoft.com/v1.0/me/joinedTeams --host graph.microsoft.com/v1.0/me/chats --host login.microsoftonline.com' gen teams --rename teams_=teams_teams --rename teams_chats_messages=teams_chat_messages \
  --rename teams_channels_messages=teams_channel_messages --rename teams_channels_messages_replies=teams_channel_messages
HOSTS='--host graph.microsoft.com/v1.0/drives --host graph.microsoft.com/v1.0/users/*/drive --host graph.microsoft.com/v1.0/me/drive --host login.microsoftonline.com' gen onedrive --rename onedrive_drives_items=onedrive_items --rename onedrive_drives_items_children=onedrive_items \
  --rename onedrive_users_drive_root_children=onedrive_items --rename onedrive_users_drive_items_children=onedrive_items
