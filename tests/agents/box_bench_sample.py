"""A scripted agent for 10 of AgentDiff's Box tasks (early-suite/box_bench_sample.json): what
a careful agent would do for each prompt, with Box's official SDK (boxsdk's box_sdk_gen) as Box
documents it, unaware of detour. It finds things by search and listing, never by seeded ids."""

import io
import os
import re
from datetime import date

from box_sdk_gen import BoxAPIError, BoxClient, BoxDeveloperTokenAuth
from box_sdk_gen.managers.comments import CreateCommentItem, CreateCommentItemTypeField
from box_sdk_gen.managers.files import UpdateFileByIdParent
from box_sdk_gen.managers.folders import CreateFolderParent
from box_sdk_gen.managers.uploads import (UploadFileAttributes, UploadFileAttributesParentField,
                                          UploadFileVersionAttributes)

box = BoxClient(auth=BoxDeveloperTokenAuth(token="agent-token"))


def search(query, **filters):
    return box.search.search_for_content(query=query, **filters).entries


def folder_named(name):
    return next(e for e in search(name, type="folder") if e.name == name)


def file_named(name):
    return next(e for e in search(name, type="file") if e.name == name)


def items(folder_id):
    return box.folders.get_folder_items(folder_id, limit=1000).entries


def comment(file_id, message):
    box.comments.create_comment(message, CreateCommentItem(id=file_id, type=CreateCommentItemTypeField.FILE))


def read(file_id):
    return box.downloads.download_file(file_id).read().decode()


def upload(folder_id, name, text):
    box.uploads.upload_file(UploadFileAttributes(name=name, parent=UploadFileAttributesParentField(id=folder_id)),
                            io.BytesIO(text.encode()))


def test_1():
    me = box.users.get_user_me()
    box.folders.create_folder(me.name, CreateFolderParent(id="0"))


def test_3():
    found = search("fomc", type="file")
    comment(found[0].id, "Relevant")


def test_9():
    investments = folder_named("investments")
    box.folders.get_folder_by_id(investments.id)
    box.folders.update_folder_by_id(investments.id, description="Audit Complete")


def test_11():
    beta = box.folders.create_folder("Project_Beta", CreateFolderParent(id="0"))
    docs = box.folders.create_folder("Docs", CreateFolderParent(id=beta.id))
    tips = file_named("interviewing tips FINAL.txt")
    box.files.update_file_by_id(tips.id, parent=UpdateFileByIdParent(id=docs.id))


def test_12():
    investments = folder_named("investments")
    count = sum(1 for e in items(investments.id) if e.type == "file")
    box.folders.update_folder_by_id(investments.id, description=str(count))


def test_30():
    """The letters of "computational" swapped: try a couple of queries, keep the markdown file."""
    for query in ("computaional", "computatoinal", "compuational"):
        found = [e for e in search(query, file_extensions=["md"]) if "hist" in e.name]
        if found:
            fixed = re.sub(r"comput\w*al", "computational", found[0].name)
            box.files.update_file_by_id(found[0].id, name=fixed)
            return


def test_32():
    upload("0", "tmp_delete_me.txt", "delete-me")
    made = next(e for e in items("0") if e.name == "tmp_delete_me.txt")
    box.files.delete_file_by_id(made.id)


def test_39():
    notes = [e for e in search("2001 crisis", file_extensions=["txt"]) if "crisis" in e.name]
    for note in notes:
        text = read(note.id)
        slogan = re.search(r"[\"“]?(¡?Que se vayan todos!?)[\"”]?", text, re.IGNORECASE)
        if slogan:
            comment(note.id, slogan.group(1))
            return


def treated(text):
    return int(re.search(r"BOOKS TREATED THIS QUARTER\D*(\d+)", text).group(1))


def test_44():
    me = box.users.get_user_me()
    lab = folder_named("rare_books_conservation")
    listed = {e.name: e for e in items(lab.id)}
    logs = {e.name: e for e in items(listed["treatment_logs"].id)}
    q3 = treated(read(logs["humidity_log_q3_2025.txt"].id))
    q4 = treated(read(logs["humidity_log_q4_2025.txt"].id))
    for collection in box.collections.get_collections().entries:
        box.collections.get_collection_items(collection.id)
    report = listed["condition_report_incunabula.txt"]
    comment(report.id, f"Audit initiated by {me.name} on {date.today().isoformat()}.")
    for existing in box.comments.get_file_comments(report.id).entries:
        if "Budget review pending" in existing.message:
            box.comments.update_comment_by_id(existing.id, message=f"Budget approved - Q3+Q4 aggregated total: "
                                                                   f"{q3 + q4} books")
        elif existing.message.startswith("[OUTDATED]"):
            box.comments.delete_comment_by_id(existing.id)
    summary = listed["annual_summary_2025.txt"]
    text = read(summary.id)
    text += f"\nQ3 2025: {q3} books treated\nQ4 2025: {q4} books treated\n"
    box.uploads.upload_file_version(summary.id, UploadFileVersionAttributes(name=summary.name),
                                    io.BytesIO(text.encode()))
    hub = next(h for h in box.hubs.get_hubs_v2025_r0().entries if h.title == "Conservation Lab Archive")
    box.hubs.update_hub_by_id_v2025_r0(hub.id, description="Rare book conservation documentation - "
                                                           "Last audit: Q4 2025.")
    box.folders.delete_folder_by_id(listed["deprecated_2024"].id, recursive=True)


def test_47():
    hub = box.hubs.create_hub_v2025_r0("Demographics 2025")
    macro = folder_named("macroeconomics")
    census = max((e for e in items(macro.id) if e.type == "folder"),
                 key=lambda f: sum(1 for e in items(f.id) if e.name.endswith(".csv")))
    box.folders.update_folder_by_id(census.id, name="Census_2018_Master")
    highlights = box.folders.create_folder("National_Highlights", CreateFolderParent(id=census.id))
    transport = file_named("transport-april-2025-csv.csv")
    try:
        first = read(transport.id).splitlines()[1]
        reference = first.split(",")[0]
    except BoxAPIError:  # the seed has no contents for this file (AgentDiff's MISSING.txt)
        reference = "(unreadable)"
    box.files.update_file_by_id(transport.id, parent=UpdateFileByIdParent(id=census.id))
    comment(transport.id, f"Transport series {reference} included for cross-reference.")
    for entry in items(census.id):
        if entry.type == "file" and "population" in entry.name:
            box.files.update_file_by_id(entry.id, parent=UpdateFileByIdParent(id=highlights.id))
    upload(census.id, "hub_manifest.txt", "Consolidated: Census 2018 + Transport 2025.")
    box.hubs.update_hub_by_id_v2025_r0(hub.id, description="Unified demographic and transport datasets.")


globals()[os.environ["DETOUR_TEST_ID"]]()
