"""What Acme's people write to each other in the gmail_default seed (build_seed.py): thread
scripts (subject, then each mail's sender, recipients, body and attachments) and the
attachments' bytes. People are named by their `person` key in the acme world; outside
senders are written out as addresses."""

from __future__ import annotations

TEAM = ["sarah", "robert", "yuki", "priya", "agent"]


def _pdf(lines: list[str]) -> bytes:
    """A small, valid one-page PDF with `lines` of text (what an invoice looks like here)."""
    text = "BT /F1 11 Tf 50 780 Td 14 TL " + " ".join(f"({line}) '" for line in lines) + " ET"
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
               "/Resources << /Font << /F1 5 0 R >> >> >>",
               f"<< /Length {len(text)} >>\nstream\n{text}\nendstream",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    out, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


MONTHS = ["2025-01", "2025-02", "2025-03", "2025-04", "2025-05"]
ATTACHMENTS: dict[str, tuple[str, bytes]] = {
    "q3_numbers.csv": ("text/csv", b"region,q2_revenue,q3_forecast,growth\nNorth America,412000,468000,13.6%\n"
                                   b"Europe,288000,301000,4.5%\nAPAC,156000,197000,26.3%\nTotal,856000,966000,12.9%\n"),
    "renewals_june.csv": ("text/csv", b"account,owner,renewal_date,arr\nGlobex,priya,2025-06-14,48000\n"
                                      b"Initech,priya,2025-06-21,36000\nUmbrella,john,2025-06-28,72000\n"),
    "postmortem_api_latency.txt": ("text/plain", b"Postmortem: API latency spike\n\nImpact: p95 latency 4.2s for 38 "
                                                 b"minutes.\nRoot cause: a missing index on orders.customer_id after "
                                                 b"the 2.3 migration.\nFix: index added, migration check in CI.\n"),
    "onboarding_mockups.png": ("image/png", bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c6360f8cfc0f01f0005000201e2263f1b0000000049454e44ae426082")),
    "design_review_notes.txt": ("text/plain", b"Design review notes\n- Simplify the onboarding to three steps\n"
                                              b"- Empty states need illustrations\n- Dark mode contrast fails AA\n"),
    "interview_schedule.txt": ("text/plain", b"Tue 10:00 Alex Kim (frontend)\nWed 14:00 Maria Lopez (backend)\n"
                                             b"Thu 11:00 Sam Osei (design)\n"),
    **{f"invoice_{m}.pdf": ("application/pdf", _pdf(["CloudNimbus Inc. - Invoice " + m.replace("-", ""),
                                                     "Bill to: Acme", f"Period: {m}",
                                                     f"Amount due: USD {1200 + 75 * i}.00"]))
       for i, m in enumerate(MONTHS)},
}

CUSTOMERS = [("Dana Reyes <dana@globex.example>", "Globex", "exports time out for our largest workspace"),
             ("Tom Becker <tom.becker@initech.example>", "Initech", "SSO logins fail since Tuesday"),
             ("Aiko Mori <aiko@umbrella.example>", "Umbrella", "the invoice shows the wrong seat count"),
             ("Luis Ortega <luis@hooli.example>", "Hooli", "webhooks arrive twice"),
             ("Grace Lin <grace.lin@stark.example>", "Stark", "the API returns 500 on bulk updates"),
             ("Omar Haddad <omar@wayne.example>", "Wayne", "search misses documents uploaded today")]

FOCUS = ["Search indexing", "CSV export", "SSO", "Billing page", "Mobile app", "Audit log", "Webhooks", "Dark mode"]
NEWS = ["Rust at scale", "Postgres 17", "HTTP/3", "WASM", "LLM tooling", "Kubernetes costs", "Type systems",
        "Observability"]

THREADS: list[dict] = []

for week in range(8):
    THREADS.append({"subject": f"Weekly engineering update #{week + 14}", "day": week * 7,
                    "labels": {"agent": ["Projects"]},
                    "mails": [{"from": "john", "to": TEAM, "body": f"""Hi all,

Highlights of week {week + 14}:
- Release 2.{week // 3 + 2} is {'on track' if week % 3 else 'in QA'}
- {FOCUS[week]} is the focus
- Open bugs: {40 - week * 3}

Please send blockers by Thursday.
John"""}] + ([{"from": "robert", "to": ["john"], "cc": ["agent"],
                 "body": "One blocker: the staging database is out of disk again. I will resize it today."}]
               if week % 2 else [])})

for number, (customer, company, problem) in enumerate(CUSTOMERS):
    THREADS.append({"subject": f"{company}: {problem}", "day": 5 + number * 8,
                    "labels": {"priya": ["Customers/Escalations"], "agent": ["Customers"]},
                    "mails": [{"from": customer, "to": ["priya"], "cc": ["agent"],
                               "body": f"Hello Priya,\n\nSince this week {problem}. This blocks our team. "
                                       f"Could you look into it urgently?\n\nThanks"},
                              {"from": "priya", "to": [customer], "cc": ["agent"],
                               "body": "Thanks for reporting this. I have escalated it to engineering and will "
                                       "update you within a day.\n\nPriya"},
                              {"from": "priya", "to": ["robert"], "cc": ["agent"], "fwd": True,
                               "body": f"Robert, {company} reports that {problem}. Can you take a look?"},
                              {"from": "robert", "to": ["priya"], "cc": ["agent"],
                               "body": "Found it: a regression from the last deploy. A fix ships tomorrow morning."}]})

for number, topic in enumerate(["Onboarding flow", "Settings page", "Empty states", "Dark mode", "Billing page"]):
    THREADS.append({"subject": f"Design review: {topic}", "day": 3 + number * 11, "labels": {"sarah": ["Design"]},
                    "mails": [{"from": "sarah", "to": ["yuki", "john"], "cc": ["agent"],
                               "attach": ["onboarding_mockups.png" if number % 2 == 0 else "design_review_notes.txt"],
                               "body": f"Hi both,\n\nAttached are the latest {topic.lower()} designs. "
                                       f"Comments welcome before Friday's review.\n\nSarah"},
                              {"from": "yuki", "to": ["sarah"], "cc": ["john", "agent"],
                               "body": "Looks great. The second screen needs a loading state; otherwise ready "
                                       "to build."},
                              {"from": "sarah", "to": ["yuki"], "cc": ["john", "agent"],
                               "body": "Good catch, I added the loading state. Go ahead."}]})

for number, what in enumerate(["API latency spike", "Login outage", "Delayed emails", "Search index lag"]):
    THREADS.append({"subject": f"Incident: {what}", "day": 9 + number * 13, "labels": {"robert": ["Incidents"]},
                    "mails": [{"from": "robert", "to": ["john"], "cc": ["yuki", "agent"],
                               "body": f"We had an incident ({what.lower()}) between 14:02 and 14:40 UTC. "
                                       f"Mitigated; postmortem to follow."},
                              {"from": "john", "to": ["robert"], "cc": ["yuki", "agent"],
                               "body": "Thanks Robert. Please include the customer impact in the postmortem."},
                              {"from": "robert", "to": ["john"], "cc": ["yuki", "agent", "priya"],
                               "attach": ["postmortem_api_latency.txt"],
                               "body": "Postmortem attached. Customer impact: 38 minutes of slow responses."}]})

for number, month in enumerate(MONTHS):
    THREADS.append({"subject": f"Your CloudNimbus invoice for {month}", "day": min(number * 12, 54),
                    "labels": {"agent": ["Receipts"]}, "archived_by": ["agent"], "inbox": ["CATEGORY_UPDATES"],
                    "mails": [{"from": "CloudNimbus Billing <billing@cloudnimbus.example>", "to": ["agent"],
                               "attach": [f"invoice_{month}.pdf"],
                               "body": f"Your invoice for {month} is attached. Amount due: "
                                       f"USD {1200 + 75 * number}.00, due in 30 days."}]})

for number in range(8):
    THREADS.append({"subject": f"Dev Weekly #{212 + number}: {NEWS[number]}",
                    "day": number * 7 + 2, "inbox": ["CATEGORY_UPDATES"], "labels": {"yuki": ["Newsletters"]},
                    "mails": [{"from": "Dev Weekly <news@devweekly.example>", "to": ["yuki", "agent"],
                               "body": "This week's top stories, tutorials and releases. Read online or "
                                       "unsubscribe at any time."}]})

THREADS += [
    {"subject": "Q3 planning numbers", "day": 40, "labels": {"agent": ["Projects", "Follow up"]},
     "mails": [{"from": "john", "to": ["agent"], "cc": ["priya"], "attach": ["q3_numbers.csv"],
                "body": "Hi,\n\nAttached are the Q3 numbers by region. Could you summarize the growth per "
                        "region for the board deck by Friday?\n\nJohn"},
               {"from": "priya", "to": ["john"], "cc": ["agent"],
                "body": "APAC looks strong. Note that Europe includes the Hooli expansion only from August."}]},
    {"subject": "June renewals", "day": 50, "labels": {"priya": ["Customers"], "agent": ["Customers"]},
     "mails": [{"from": "priya", "to": ["agent"], "cc": ["john"], "attach": ["renewals_june.csv"],
                "body": "Here are the accounts renewing in June. Can you draft a reminder email to each owner?"}]},
    {"subject": "Interview schedule next week", "day": 30, "labels": {"john": ["Hiring"]},
     "mails": [{"from": "john", "to": ["sarah", "robert"], "attach": ["interview_schedule.txt"],
                "body": "Interviews for next week are attached. Please confirm your slots."},
               {"from": "sarah", "to": ["john"], "cc": ["robert"], "body": "Confirmed for Thursday."},
               {"from": "robert", "to": ["john"], "cc": ["sarah"], "body": "Wednesday works for me."}]},
    {"subject": "Release notes for 2.4", "day": 52,
     "mails": [{"from": "john", "to": ["agent"], "body": "Can you prepare the release notes for 2.4? The "
                                                         "changelog is in the usual place."}]},
    {"subject": "Offsite in June", "day": 35,
     "mails": [{"from": "john", "to": TEAM, "body": "We are planning a team offsite on June 19-20 in Lisbon. "
                                                    "Please tell me about travel constraints."},
               {"from": "yuki", "to": ["john"], "cc": TEAM, "body": "I can join both days."},
               {"from": "priya", "to": ["john"], "cc": TEAM, "body": "I have a customer visit on the 19th "
                                                                      "morning, will arrive at lunch."}]},
    {"subject": "Lunch on Friday?", "day": 18,
     "mails": [{"from": "yuki", "to": ["sarah", "robert"], "body": "Ramen place on Friday at 12:30?"},
               {"from": "sarah", "to": ["yuki"], "cc": ["robert"], "body": "Count me in!"}]},
    {"subject": "Access to the analytics dashboard", "day": 45,
     "mails": [{"from": "sarah", "to": ["agent"], "body": "Could you give me access to the analytics "
                                                          "dashboard? I need the funnel numbers."}]},
    {"subject": "Security training reminder", "day": 25, "inbox": ["CATEGORY_UPDATES"],
     "mails": [{"from": "IT <it@example.com>", "to": TEAM + ["john"],
                "body": "Reminder: complete the annual security training by May 31."}]},
]
