"""detour rewrite mode for Python: calls to the mapped APIs go to the environment's replicas.

`site` imports this at interpreter start (PYTHONPATH points here). The user's program is
not wrapped or changed, so its line numbers, `from __future__` imports, output and exit
code stay its own. Each HTTP library is patched at its own seam the moment it is first
imported: urllib (OpenerDirector.open, keeping a Request's method), http.client,
requests (the adapter), urllib3 (PoolManager), httpx (the transports), aiohttp and
httplib2 (google-api-python-client's transport). The facts (base URL, the registry's
`host[/path]=service` routes, headers) come from the DETOUR_REWRITE_* variables.
"""

import importlib.abc
import os
import re
import sys
from urllib.parse import urlsplit

_BASE = os.environ.get("DETOUR_REWRITE_BASE", "")

def _routes(table):
    """(host, path prefix, service), longest prefix first: `www.googleapis.com/calendar/v3/=calendar`."""
    routes = []
    for pair in table.split():
        where, service = pair.split("=", 1)
        host, slash, prefix = where.partition("/")
        routes.append((host.lower(), slash + prefix, service))
    return sorted(routes, key=lambda route: -len(route[1]))


_ROUTES = _routes(os.environ.get("DETOUR_REWRITE_HOSTS", ""))
_HEADERS = dict(line.split(": ", 1) for line in os.environ.get("DETOUR_REWRITE_HEADERS", "").splitlines() if line)
_ORIGINAL_HOST = os.environ.get("DETOUR_ORIGINAL_HOST_HEADER", "")


def _starts(path, prefix):
    """The registry's prefix match: a `*` segment stands for any one segment (`/v1.0/users/*/messages`)."""
    if "*" not in prefix:
        return path.startswith(prefix)
    return re.match("/".join("[^/]+" if p == "*" else re.escape(p) for p in prefix.split("/")), path) is not None


def _rewrite(url):
    """(new URL, extra headers) for a mapped https/http URL, else None."""
    parts = urlsplit(str(url))
    host, path = (parts.hostname or "").lower(), parts.path or "/"
    path = re.sub("//+", "/", path)  # as the registry reads it
    service = next((s for h, prefix, s in _ROUTES if h == host and _starts(path, prefix)), None)
    if service is None or parts.scheme not in ("http", "https"):
        return None
    query = f"?{parts.query}" if parts.query else ""
    return f"{_BASE}/{service}{parts.path or '/'}{query}", {**_HEADERS, _ORIGINAL_HOST: host}


def _patch_urllib(module):
    original = module.OpenerDirector.open

    def open(self, fullurl, data=None, *args, **kwargs):
        request = fullurl if isinstance(fullurl, module.Request) else module.Request(fullurl)
        rewritten = _rewrite(request.full_url)
        if rewritten is None:
            return original(self, fullurl, data, *args, **kwargs)
        request.full_url = rewritten[0]  # method, data and headers stay on the Request
        for name, value in rewritten[1].items():
            request.add_unredirected_header(name, value)
        return original(self, request, data, *args, **kwargs)

    module.OpenerDirector.open = open


def _patch_http_client(module):
    base = urlsplit(_BASE)
    plain_init, tls_connect, putrequest = (module.HTTPConnection.__init__, module.HTTPSConnection.connect,
                                           module.HTTPConnection.putrequest)

    def __init__(self, host, port=None, *args, **kwargs):
        plain_init(self, host, port, *args, **kwargs)
        if type(self) in (module.HTTPConnection, module.HTTPSConnection) \
                and any(h == self.host.lower() for h, _, _ in _ROUTES):
            self._detour = self.host.lower()  # requests go to the gateway, each by its own path
            self.host, self.port = base.hostname, base.port

    def connect(self):
        if getattr(self, "_detour", None):
            return module.HTTPConnection.connect(self)  # the gateway speaks plain HTTP
        return tls_connect(self)

    def _putrequest(self, method, url, *args, **kwargs):
        host = getattr(self, "_detour", None)
        if host is None:
            return putrequest(self, method, url, *args, **kwargs)
        rewritten = _rewrite(f"https://{host}{url}")
        if rewritten is None:  # a path no service has: the gateway refuses it, nothing leaves
            rewritten = f"{_BASE}/unrouted{url}", {**_HEADERS, _ORIGINAL_HOST: host}
        target = urlsplit(rewritten[0])
        putrequest(self, method, target.path + (f"?{target.query}" if target.query else ""), *args, **kwargs)
        for name, value in rewritten[1].items():
            self.putheader(name, value)

    module.HTTPConnection.__init__ = __init__
    module.HTTPSConnection.connect = connect
    module.HTTPConnection.putrequest = _putrequest


def _patch_requests(module):
    original = module.HTTPAdapter.send

    def send(self, request, *args, **kwargs):
        rewritten = _rewrite(request.url)
        if rewritten:
            request.url = rewritten[0]
            request.headers.update(rewritten[1])
        return original(self, request, *args, **kwargs)

    module.HTTPAdapter.send = send


def _patch_urllib3(module):
    original = module.PoolManager.urlopen

    def urlopen(self, method, url, *args, **kwargs):
        rewritten = _rewrite(url)
        if rewritten:
            url = rewritten[0]
            kwargs["headers"] = {**(kwargs.get("headers") or self.headers), **rewritten[1]}
        return original(self, method, url, *args, **kwargs)

    module.PoolManager.urlopen = urlopen


def _patch_httpx(module):
    def retarget(request):
        rewritten = _rewrite(request.url)
        if rewritten:
            request.url = module.URL(rewritten[0])
            request.headers["Host"] = request.url.netloc.decode()
            request.headers.update(rewritten[1])

    sync, asynchronous = module.HTTPTransport.handle_request, module.AsyncHTTPTransport.handle_async_request

    def handle_request(self, request):
        retarget(request)
        return sync(self, request)

    async def handle_async_request(self, request):
        retarget(request)
        return await asynchronous(self, request)

    module.HTTPTransport.handle_request = handle_request
    module.AsyncHTTPTransport.handle_async_request = handle_async_request


def _patch_aiohttp(module):
    original = module.ClientSession._request

    def _request(self, method, str_or_url, *args, **kwargs):
        rewritten = _rewrite(str_or_url)
        if rewritten:
            str_or_url = rewritten[0]
            kwargs["headers"] = {**dict(kwargs.get("headers") or {}), **rewritten[1]}
        return original(self, method, str_or_url, *args, **kwargs)

    module.ClientSession._request = _request


def _patch_httplib2(module):
    original = module.Http.request

    def request(self, uri, method="GET", body=None, headers=None, *args, **kwargs):
        rewritten = _rewrite(uri)
        if rewritten:
            uri, headers = rewritten[0], {**(headers or {}), **rewritten[1]}
        return original(self, uri, method, body, headers, *args, **kwargs)

    module.Http.request = request


_PATCHES = {
    "urllib.request": _patch_urllib,
    "http.client": _patch_http_client,
    "requests.adapters": _patch_requests,
    "urllib3.poolmanager": _patch_urllib3,
    "httpx": _patch_httpx,
    "aiohttp.client": _patch_aiohttp,
    "httplib2": _patch_httplib2,
}


class _PatchingLoader(importlib.abc.Loader):
    def __init__(self, loader, patch):
        self.loader, self.patch = loader, patch

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        self.patch(module)

    def __getattr__(self, name):
        return getattr(self.loader, name)


class _PostImportHook(importlib.abc.MetaPathFinder):
    """Finds modules as usual, then patches the ones above right after they execute."""

    def find_spec(self, name, path, target=None):
        patch = _PATCHES.get(name)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                spec.loader = _PatchingLoader(spec.loader, patch)
                return spec
        return None


if _BASE:
    for _name, _patch in _PATCHES.items():
        if _name in sys.modules:
            _patch(sys.modules[_name])
    sys.meta_path.insert(0, _PostImportHook())
