"""Releases (a tag ref made from `target_commitish` where the tag does not exist yet; drafts
and prereleases; `latest` is the newest published one, found on read) and their assets (bytes
uploaded to uploads.github.com, kept in the environment's blobs by SHA-256), and the API's root
and rate-limit answers."""

from __future__ import annotations

import hashlib
from typing import Any

from fastapi.responses import Response

from mock_services.github import errors, shapes
from mock_services.github.handlers.common import acting, git, next_id, now, now_seconds, resolve, target
from mock_services.github.handlers.paging import page
from mock_services.rest.router import Call
from mock_services.store import Row

RELEASES, ASSETS = "github_releases", "github_release_assets"


def _shape(call: Call, repository: Row, row: Row) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    web = base.replace(shapes.API + "/repos", shapes.WEB)
    return {"url": f"{base}/releases/{row['id']}", "html_url": f"{web}/releases/tag/{row['tag_name']}",
            "assets_url": f"{base}/releases/{row['id']}/assets",
            "upload_url": f"https://uploads.github.com/repos/{web.removeprefix(shapes.WEB + '/')}/releases/"
                          f"{row['id']}/assets{{?name,label}}",
            "tarball_url": f"{base}/tarball/{row['tag_name']}", "zipball_url": f"{base}/zipball/{row['tag_name']}",
            "id": row["id"], "node_id": f"RE_{row['id']}", "tag_name": row["tag_name"],
            "target_commitish": row["target_commitish"], "name": row.get("name"), "body": row.get("body"),
            "draft": row["draft"], "prerelease": row["prerelease"], "created_at": row["created_at"],
            "published_at": row.get("published_at"), "author": shapes.user_by_id(call.state, row["author_id"]),
            "assets": [asset(call, repository, a) for a in call.state.rows(ASSETS, release_id=row["id"])]}


def _row(call: Call, repository: Row, table: str = RELEASES, **where: Any) -> Row:
    found = call.state.first(table, repository_id=repository["id"], **where)
    if found is None:
        raise errors.not_found()
    return found


def create(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    body = call.body or {}
    tag = body.get("tag_name")
    if not isinstance(tag, str) or not tag:
        raise errors.invalid("tag_name is missing", "Release", "tag_name", "missing_field")
    if call.state.first(RELEASES, repository_id=repository["id"], tag_name=tag):
        raise errors.invalid("already_exists", "Release", "tag_name", "already_exists")
    repo = git(call, repository)
    commitish = body.get("target_commitish") or repository["default_branch"]
    ref = f"refs/tags/{tag}".encode()
    if ref not in repo.get_refs() and not body.get("draft"):
        repo.refs[ref] = resolve(repo, commitish, repository["default_branch"])
    stamp = now()
    row = call.state.insert(RELEASES, {
        "id": next_id(call, RELEASES), "repository_id": repository["id"], "tag_name": tag,
        "target_commitish": commitish, "name": body.get("name") or tag, "body": body.get("body"),
        "draft": bool(body.get("draft")), "prerelease": bool(body.get("prerelease")), "author_id": acting(call)["id"],
        "created_at": stamp, "published_at": None if body.get("draft") else stamp})
    call.status = 201
    return _shape(call, repository, row)


def list_releases(call: Call) -> list[Any]:
    repository = target(call)
    rows = sorted(call.state.rows(RELEASES, repository_id=repository["id"]), key=lambda r: r["id"], reverse=True)
    return page(call, [_shape(call, repository, r) for r in rows])


def get(call: Call) -> dict[str, Any]:
    repository = target(call)
    return _shape(call, repository, _row(call, repository, id=call.arg("release_id")))


def get_by_tag(call: Call) -> dict[str, Any]:
    repository = target(call)
    return _shape(call, repository, _row(call, repository, tag_name=call.arg("tag")))


def latest(call: Call) -> dict[str, Any]:
    repository = target(call)
    published = [r for r in call.state.rows(RELEASES, repository_id=repository["id"])
                 if not r["draft"] and not r["prerelease"]]
    if not published:
        raise errors.not_found()
    return _shape(call, repository, max(published, key=lambda r: (r["published_at"], r["id"])))


def update(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    row = _row(call, repository, id=call.arg("release_id"))
    body = call.body or {}
    changed = {**row, **{k: body[k] for k in ("tag_name", "target_commitish", "name", "body", "prerelease")
                         if k in body}}
    if body.get("draft") is False and row["draft"]:
        changed.update(draft=False, published_at=now())
        repo = git(call, repository)
        ref = f"refs/tags/{changed['tag_name']}".encode()
        if ref not in repo.get_refs():
            repo.refs[ref] = resolve(repo, changed["target_commitish"], repository["default_branch"])
    call.state.update(RELEASES, changed)
    return _shape(call, repository, changed)


def delete(call: Call) -> None:
    repository = target(call, "write")
    call.state.delete(RELEASES, _row(call, repository, id=call.arg("release_id")))


def asset(call: Call, repository: Row, row: Row) -> dict[str, Any]:
    base = shapes.repo_url(call.state, repository)
    release = call.state.first(RELEASES, id=row["release_id"]) or {}
    web = base.replace(shapes.API + "/repos", shapes.WEB)
    return {"url": f"{base}/releases/assets/{row['id']}", "id": row["id"], "node_id": f"RA_{row['id']}",
            "name": row["name"], "label": row.get("label"), "state": "uploaded", "content_type": row["content_type"],
            "size": row["size"], "digest": f"sha256:{row['sha256']}", "download_count": 0,
            "created_at": row["created_at"], "updated_at": row["updated_at"],
            "browser_download_url": f"{web}/releases/download/{release.get('tag_name')}/{row['name']}",
            "uploader": shapes.user_by_id(call.state, row["uploader_id"])}


def upload_asset(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    release = _row(call, repository, id=call.arg("release_id"))
    data = call.body if isinstance(call.body, bytes) else b""
    if call.state.first(ASSETS, release_id=release["id"], name=call.arg("name")):
        raise errors.invalid("already_exists", "ReleaseAsset", "name", "already_exists")
    digest = hashlib.sha256(data).hexdigest()
    call.state.put_blob(f"asset/{digest}", data)
    stamp = now()
    row = call.state.insert(ASSETS, {
        "id": next_id(call, ASSETS), "repository_id": repository["id"], "release_id": release["id"],
        "name": call.arg("name"), "label": call.arg("label"), "size": len(data), "sha256": digest,
        "content_type": call.headers.get("content-type", "application/octet-stream"),
        "uploader_id": acting(call)["id"], "created_at": stamp, "updated_at": stamp})
    call.status = 201
    return asset(call, repository, row)


def _asset_row(call: Call, repository: Row) -> Row:
    return _row(call, repository, ASSETS, id=call.arg("asset_id"))


def get_asset(call: Call) -> Any:
    """The asset's fields, or its bytes when asked for `application/octet-stream`."""
    repository = target(call)
    row = _asset_row(call, repository)
    if "application/octet-stream" in call.headers.get("accept", ""):
        return Response(call.state.blob(f"asset/{row['sha256']}") or b"", media_type=row["content_type"])
    return asset(call, repository, row)


def list_assets(call: Call) -> list[Any]:
    repository = target(call)
    release = _row(call, repository, id=call.arg("release_id"))
    return page(call, [asset(call, repository, a) for a in call.state.rows(ASSETS, release_id=release["id"])])


def update_asset(call: Call) -> dict[str, Any]:
    repository = target(call, "write")
    row = _asset_row(call, repository)
    body = call.body or {}
    changed = call.state.update(ASSETS, {**row, **{k: body[k] for k in ("name", "label") if k in body},
                                         "updated_at": now()})
    return asset(call, repository, changed)


def delete_asset(call: Call) -> None:
    repository = target(call, "write")
    call.state.delete(ASSETS, _asset_row(call, repository))


def rate_limit(call: Call) -> dict[str, Any]:
    reset = now_seconds() // 3600 * 3600 + 3600
    core = {"limit": 5000, "used": 1, "remaining": 4999, "reset": reset}
    return {"resources": {name: core for name in ("core", "search", "graphql", "integration_manifest",
                                                  "code_search")}, "rate": core}


def root(call: Call) -> dict[str, str]:
    """The API's map of itself: every URL template GitHub's root lists."""
    return {name: tail if tail.startswith("https:") else shapes.API + tail for name, tail in ROOT.items()}


ROOT = {"current_user_url": "/user", "current_user_authorizations_html_url": "https://github.com/settings/connections"
        "/applications{/client_id}", "authorizations_url": "/authorizations", "code_search_url":
        "/search/code?q={query}{&page,per_page,sort,order}", "commit_search_url":
        "/search/commits?q={query}{&page,per_page,sort,order}", "emails_url": "/user/emails", "emojis_url": "/emojis",
        "events_url": "/events", "feeds_url": "/feeds", "followers_url": "/user/followers", "following_url":
        "/user/following{/target}", "gists_url": "/gists{/gist_id}", "issue_search_url":
        "/search/issues?q={query}{&page,per_page,sort,order}", "issues_url": "/issues", "keys_url": "/user/keys",
        "label_search_url": "/search/labels?q={query}&repository_id={repository_id}{&page,per_page}",
        "notifications_url": "/notifications", "organization_url": "/orgs/{org}", "organization_repositories_url":
        "/orgs/{org}/repos{?type,page,per_page,sort}", "organization_teams_url": "/orgs/{org}/teams",
        "public_gists_url": "/gists/public", "rate_limit_url": "/rate_limit", "repository_url": "/repos/{owner}/{repo}",
        "repository_search_url": "/search/repositories?q={query}{&page,per_page,sort,order}",
        "current_user_repositories_url": "/user/repos{?type,page,per_page,sort}", "starred_url":
        "/user/starred{/owner}{/repo}", "starred_gists_url": "/gists/starred", "user_url": "/users/{user}",
        "user_organizations_url": "/user/orgs", "user_repositories_url": "/users/{user}/repos{?type,page,per_page,sort}",
        "user_search_url": "/search/users?q={query}{&page,per_page,sort,order}"}


HANDLERS = {"repos/create-release": create, "repos/list-releases": list_releases, "repos/get-release": get,
            "repos/get-release-by-tag": get_by_tag, "repos/get-latest-release": latest,
            "repos/update-release": update, "repos/delete-release": delete, "rate-limit/get": rate_limit,
            "meta/root": root, "repos/upload-release-asset": upload_asset, "repos/get-release-asset": get_asset,
            "repos/list-release-assets": list_assets, "repos/update-release-asset": update_asset,
            "repos/delete-release-asset": delete_asset}
