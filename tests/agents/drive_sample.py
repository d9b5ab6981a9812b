"""A scripted agent for the Drive tasks (fixtures/drive-suite/drive_sample.json): what a careful
agent would do for each prompt with google-api-python-client as Google documents it, unaware of
detour. It finds files by query and people by their address, never by seeded ids."""

import os
import re

from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.http import MediaInMemoryUpload

drive = build("drive", "v3", credentials=Credentials(token=os.environ.get("GOOGLE_OAUTH_ACCESS_TOKEN", "token")))
FOLDER = "application/vnd.google-apps.folder"


def find(q):
    return drive.files().list(q=f"{q} and trashed = false", fields="files(id,name,parents)").execute()["files"][0]


def named(name):
    return find(f"name = '{name}'")


def share(file_id, email, role):
    drive.permissions().create(fileId=file_id, body={"type": "user", "role": role, "emailAddress": email}).execute()


def test_1():
    folder = drive.files().create(body={"name": "Launch plan", "mimeType": FOLDER}, fields="id").execute()
    drive.files().create(body={"name": "checklist.txt", "parents": [folder["id"]]},
                         media_body=MediaInMemoryUpload(b"Book the venue", mimetype="text/plain")).execute()


def test_2():
    share(named("Q3 Roadmap")["id"], "priya@example.com", "commenter")


def test_3():
    sheet = find("name contains 'Sprint velocity' and mimeType = 'text/csv'")
    drive.files().update(fileId=sheet["id"], body={"starred": True}).execute()


def test_4():
    todo, engineering = named("todo.txt"), find(f"name = 'Engineering' and mimeType = '{FOLDER}'")
    drive.files().update(fileId=todo["id"], addParents=engineering["id"], removeParents=",".join(todo["parents"])).execute()


def test_5():
    draft = drive.files().list(q="name = 'Old draft.txt' and trashed = true", fields="files(id)").execute()["files"][0]
    drive.files().update(fileId=draft["id"], body={"trashed": False}).execute()


def test_6():
    drive.files().emptyTrash().execute()


def test_7():
    roadmap = named("Q3 Roadmap")["id"]
    comments = drive.comments().list(fileId=roadmap, fields="comments(id,author(emailAddress),resolved)").execute()
    sarahs = next(c for c in comments["comments"] if c["author"]["emailAddress"] == "sarah@example.com")
    drive.replies().create(fileId=roadmap, commentId=sarahs["id"], fields="id",
                           body={"content": "Agreed, let's do it", "action": "resolve"}).execute()


def test_8():
    expenses = find("name contains 'Expenses September'")
    drive.permissions().create(fileId=expenses["id"], body={"type": "anyone", "role": "reader"}).execute()


def test_9():
    notes = drive.files().export(fileId=named("Globex QBR notes")["id"], mimeType="text/plain").execute().decode()
    renewal = re.search(r"Renewal date (\d{4}-\d{2}-\d{2})", notes).group(1)
    folder = find(f"name = 'Notes' and mimeType = '{FOLDER}' and 'root' in parents")
    drive.files().create(body={"name": "Globex renewal.txt", "parents": [folder["id"]], "description": renewal},
                         media_body=MediaInMemoryUpload(renewal.encode(), mimetype="text/plain")).execute()


def test_10():
    sync = named("Weekly sync 2025-10-01")
    drive.files().update(fileId=sync["id"], body={"name": "Weekly sync, 1 October"}).execute()
    share(sync["id"], "john@example.com", "writer")


globals()[os.environ["DETOUR_TEST_ID"]]()
