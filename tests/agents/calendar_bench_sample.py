"""A scripted agent for 10 of AgentDiff's Calendar tasks (early-suite/calendar_bench_sample.json):
what a careful agent would do for each prompt, with google-api-python-client as Google documents
it, unaware of detour. "Evening" is from 7pm, a weekend's free time is between 9am and 9pm
where the person lives, and "this Saturday" is June 23, 2018 (the prompts' Monday is June 18)."""

import os
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build

cal = build("calendar", "v3", credentials=Credentials(token="agent-token"))
LA = "America/Los_Angeles"


def calendars():
    return cal.calendarList().list().execute()["items"]


def calendar_named(words):
    return next(c["id"] for c in calendars() if words.lower() in c["summary"].lower())


def at(day, clock, zone=LA):
    return datetime.fromisoformat(f"{day}T{clock}").replace(tzinfo=ZoneInfo(zone))


def when(moment, zone=LA):
    return {"dateTime": moment.replace(tzinfo=None).isoformat(timespec="seconds"), "timeZone": zone}


def insert(calendar_id, summary, start, minutes, zone=LA, **fields):
    body = {"summary": summary, "start": when(start, zone), "end": when(start + timedelta(minutes=minutes), zone),
            **fields}
    return cal.events().insert(calendarId=calendar_id, body=body).execute()


def first_free(emails, start, end, minutes):
    """The earliest start in [start, end) when every one of them is free for `minutes`."""
    answer = cal.freebusy().query(body={"timeMin": start.isoformat(), "timeMax": end.isoformat(),
                                        "items": [{"id": e} for e in emails]}).execute()
    busy = sorted((datetime.fromisoformat(b["start"]), datetime.fromisoformat(b["end"]))
                  for c in answer["calendars"].values() for b in c["busy"])
    free_from = start
    for begin, finish in busy:
        if begin - free_from >= timedelta(minutes=minutes):
            break
        free_from = max(free_from, finish)
    if end - free_from < timedelta(minutes=minutes):
        return None
    return free_from.astimezone(start.tzinfo)


def zone_of(email):
    return cal.calendars().get(calendarId=email).execute()["timeZone"]


def events(calendar_id, **query):
    return cal.events().list(calendarId=calendar_id, **query).execute()["items"]


def delete_matching(calendar_id, words):
    for event in events(calendar_id, q=words):
        cal.events().delete(calendarId=calendar_id, eventId=event["id"]).execute()


def share(calendar_id, email, role):
    return cal.acl().insert(calendarId=calendar_id, body={"role": role, "scope": {"type": "user", "value": email}})


def test_1():
    calendars()
    hq = cal.calendars().insert(body={"summary": "Cosmic Voyagers HQ"}).execute()["id"]
    share(hq, "yuki@test.com", "writer").execute()
    party = insert(hq, "Perseid Meteor Shower Watch Party", at("2018-06-24", "00:00"), 120)
    kyiv = zone_of("oleksandra@test.com")
    slot = first_free(["oleksandra@test.com"], at("2018-06-23", "19:00", kyiv), at("2018-06-23", "23:59", kyiv), 90)
    insert(hq, "Telescope Alignment Ceremony", slot, 90, kyiv)
    cal.events().patch(calendarId=hq, eventId=party["id"], body={"location": "Hillcrest Observatory Field"}).execute()
    delete_matching("primary", "Failed Rocket Launch Viewing")


def test_3():
    guild = calendar_named("Dungeon Masters Guild")
    session = insert(guild, "Session Zero: The Curse of the Crimson Dice", at("2018-06-22", "19:00"), 180)
    lagos = zone_of("amara@test.com")
    slot = next(s for day in ("2018-06-23", "2018-06-24")
                if (s := first_free(["amara@test.com"], at(day, "09:00", lagos), at(day, "21:00", lagos), 240)))
    insert(guild, "Amara's Epic One-Shot Adventure", slot, 240, lagos)
    cal.events().patch(calendarId=guild, eventId=session["id"], body={
        "description": "Bring character concepts. Snacks provided. No phones at the table."}).execute()
    events(guild, singleEvents=True, orderBy="startTime", timeMin="2018-06-01T00:00:00-07:00",
           timeMax="2018-07-01T00:00:00-07:00")
    share(guild, "hiroshi@test.com", "writer").execute()
    delete_matching(guild, "TPK Recovery Support Group")
    bazaar = cal.calendars().get(calendarId="cal_board_game_bazaar").execute()["id"]
    for event in events(guild):
        if "Type: Non-RPG" in event.get("description", ""):
            copy = {k: event[k] for k in ("summary", "description", "location", "start", "end", "recurrence")
                    if k in event}
            cal.events().insert(calendarId=bazaar, body=copy).execute()


def test_9():
    festival = calendar_named("Mirage Menagerie 2026")
    ops = cal.calendars().insert(body={"summary": "Backstage Sandstorm Ops"}).execute()["id"]
    share(ops, "piotr@test.com", "writer").execute()
    acts = ["Glass-Dune Juggling", "Whispering Wadi Puppets", "Lantern Maze Overture", "Sand-Script Calligraphy",
            "Mothlight Drummers", "Nomad Kite Ballet", "Oasis Echo Choir", "Moon-Salt Acrobatics"]
    created = {}
    batch = cal.new_batch_http_request(callback=lambda rid, response, error: created.__setitem__(rid, response))
    for i, act in enumerate(acts):
        start = at("2018-06-23", "14:00") + timedelta(minutes=15 * i)
        batch.add(cal.events().insert(calendarId=festival, body={
            "summary": act, "start": when(start), "end": when(start + timedelta(minutes=15))}), request_id=str(i))
    batch.execute()
    insert(festival, "Starlit Tea Ceremony with Akira", at("2018-06-18", "15:00"), 60)
    people = ["ananya@test.com", "zainab@test.com"]
    slot = first_free(people, at("2018-06-23", "19:00"), at("2018-06-23", "23:00"), 60)
    insert(festival, "Twilight Troupe Council", slot, 60)
    batch = cal.new_batch_http_request()
    for event in created.values():
        batch.add(cal.events().patch(calendarId=festival, eventId=event["id"], body={
            "location": "Dune Pavilion B", "attendees": [{"email": "ananya@test.com"}]}))
    for event in events(festival, q="Placeholder"):
        batch.add(cal.events().delete(calendarId=festival, eventId=event["id"]))
    batch.execute()


def test_12():
    calendar_named("Skyward Observatory Access"), calendar_named("Dormant Telescopes")
    meteor = cal.calendars().insert(body={"summary": "Meteor Patrol Rotation"}).execute()["id"]
    aurora = cal.calendars().insert(body={"summary": "Aurora Research Slots"}).execute()["id"]
    cal.calendarList().insert(body={"id": "cal_mountain_weather"}).execute()
    cal.calendars().patch(calendarId=meteor, body={"description": "Night patrol rotation schedule",
                                                   "timeZone": "America/Denver"}).execute()
    cal.calendars().patch(calendarId=aurora, body={"description": "Research telescope booking slots",
                                                   "timeZone": LA}).execute()
    batch = cal.new_batch_http_request()
    for calendar_id, color in ((meteor, "9"), (aurora, "14")):
        batch.add(cal.calendarList().patch(calendarId=calendar_id, body={"colorId": color, "hidden": False,
                                                                         "selected": True}))
        batch.add(share(calendar_id, "mei@test.com", "owner"))
        batch.add(share(calendar_id, "tomasz@test.com", "reader"))
    batch.add(cal.acl().delete(calendarId="cal_dormant_telescopes", ruleId="user:leila@test.com"))
    batch.execute()


def test_39():
    archive = "cal_mossquill_archive"
    for event in events(archive):
        cal.events().delete(calendarId=archive, eventId=event["id"]).execute()
    cal.calendars().patch(calendarId=archive, body={"description": "Restoration ledger and vault access."}).execute()
    cal.acl().update(calendarId=archive, ruleId="user:salma@test.com", body={
        "role": "reader", "scope": {"type": "user", "value": "salma@test.com"}}).execute()
    zone = cal.settings().get(setting="timezone").execute()["value"]
    check = cal.events().get(calendarId=archive, eventId="evt_mossquill_vault_check").execute()
    cal.events().update(calendarId=archive, eventId=check["id"], body={
        "summary": check["summary"], "location": "Lower Vault Door", "start": when(at("2018-06-29", "16:00", zone), zone),
        "end": when(at("2018-06-29", "17:00", zone), zone)}).execute()
    cal.settings().get(setting="dateFieldOrder").execute()


def test_44():
    commons = "cal_ashline_relay_commons"
    cal.acl().get(calendarId=commons, ruleId="user:hana@test.com").execute()
    share(commons, "chinedu@test.com", "writer").execute()
    share(commons, "noah@test.com", "reader").execute()
    zone = cal.settings().get(setting="timezone").execute()["value"]
    slot = first_free(["hana@test.com", "chinedu@test.com", "noah@test.com"], at("2018-06-28", "00:00", zone),
                      at("2018-06-30", "00:00", zone), 60)
    insert("primary", "Ashline Relay Briefing", slot, 60, zone)
    cal.calendarList().patch(calendarId=commons, body={"hidden": True, "selected": False}).execute()


def test_45():
    observatory = "cal_silverroot_observatory"
    cal.acl().get(calendarId=observatory, ruleId="user:zahra@test.com").execute()
    cal.calendars().patch(calendarId=observatory, body={"description": "Lens rotation and night ledger."}).execute()
    cal.events().instances(calendarId=observatory, eventId="evt_silverroot_rotation").execute()
    rotation = cal.events().get(calendarId=observatory, eventId="evt_silverroot_rotation").execute()
    cal.events().update(calendarId=observatory, eventId=rotation["id"], body={
        "summary": rotation["summary"], "location": "West Dome", "recurrence": ["RRULE:FREQ=WEEKLY;BYDAY=MO"],
        "start": when(at("2018-07-02", "19:00")), "end": when(at("2018-07-02", "20:00"))}).execute()
    channel = {"type": "web_hook", "address": "https://hooks.example.com/calendar/silverroot"}
    cal.events().watch(calendarId=observatory, body={"id": "silverroot-events", **channel}).execute()
    cal.acl().watch(calendarId=observatory, body={"id": "silverroot-acl", **channel}).execute()


def test_52():
    depot = "cal_stoneglow_depot"
    cal.calendarList().get(calendarId=depot).execute()
    cal.calendars().update(calendarId=depot, body={"summary": "Stoneglow Depot", "description": "Crate intake ledger",
                                                   "timeZone": LA}).execute()
    cal.acl().update(calendarId=depot, ruleId="user:clerk@stoneglow.example", body={
        "role": "reader", "scope": {"type": "user", "value": "clerk@stoneglow.example"}}).execute()
    for event in events(depot, singleEvents=True, timeMin=at("2018-07-01", "00:00").isoformat(),
                        timeMax=at("2018-07-08", "00:00").isoformat()):
        note = (event.get("description", "") + "\nWeek-of intake note").strip()
        cal.events().patch(calendarId=depot, eventId=event["id"], body={"description": note}).execute()
    cal.events().move(calendarId=depot, eventId="evt_stoneglow_manifest", destination="cal_harbor_ledger").execute()


def test_54():
    archive = "cal_sablewind_archive"
    cal.calendarList().get(calendarId=archive).execute()
    cal.calendarList().patch(calendarId=archive, body={"hidden": False, "colorId": "5"}).execute()
    share(archive, "keiko@test.com", "writer").execute()
    cal.acl().delete(calendarId=archive, ruleId="cal_sablewind_archive:user:salma@test.com").execute()
    cal.settings().watch(body={"id": "settings-watch", "type": "web_hook",
                               "address": "https://hooks.example.com/calendar/settings"}).execute()


def business_days_from(day, count):
    days = []
    while len(days) < count:
        if day.weekday() < 5:
            days.append(day)
        day += timedelta(days=1)
    return days


def test_59():
    ledger = "cal_seabriar_leave"
    calendars()
    cal.calendars().get(calendarId=ledger).execute()
    used = cal.events().instances(calendarId=ledger, eventId="evt_used_vacation_day", timeMin="2018-01-01T00:00:00-08:00",
                                  timeMax="2018-08-10T00:00:00-07:00").execute()["items"]
    days = business_days_from(at("2018-08-10", "09:00"), 20 - len(used))
    for quiet in ("evt_company_blackout", "evt_weekend_silence"):
        cal.events().instances(calendarId=ledger, eventId=quiet).execute()
    cal.calendars().patch(calendarId=ledger, body={"description": "Leave ledger and tally-based booking"}).execute()
    share(ledger, "aiko@test.com", "reader").execute()
    cal.calendarList().patch(calendarId=ledger, body={"hidden": False, "colorId": "10"}).execute()
    start, end = days[0], days[-1].replace(hour=17)
    cal.events().insert(calendarId=ledger, body={"summary": "Seabriar Leave Block", "start": when(start),
                                                 "end": when(end)}).execute()
    cal.events().quickAdd(calendarId=ledger, text="Send pigeon letter Sep 10, 2018 9am").execute()
    cal.channels().stop(body={"id": "chan_leave_09", "resourceId": "res_leave_09"}).execute()
    for event in events("primary", singleEvents=True, timeMin=start.isoformat(), timeMax=end.isoformat()):
        cal.events().delete(calendarId="primary", eventId=event["id"]).execute()
    pact = cal.events().get(calendarId="primary", eventId="evt_cliffside_pact").execute()
    arrival = at("2018-09-10", "09:00") + timedelta(days=6)
    begins = datetime.fromisoformat(pact["start"]["dateTime"])
    if begins < arrival:
        day = arrival + timedelta(days=1)
        while day.weekday() >= 5 or start <= day <= end:
            day += timedelta(days=1)
        length = datetime.fromisoformat(pact["end"]["dateTime"]) - begins
        moved = at(day.date().isoformat(), begins.astimezone(ZoneInfo(LA)).time().isoformat())
        cal.events().patch(calendarId="primary", eventId=pact["id"], body={
            "start": when(moved), "end": when(moved + length)}).execute()


globals()[os.environ["DETOUR_TEST_ID"]]()
