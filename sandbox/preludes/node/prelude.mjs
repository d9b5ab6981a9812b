// detour rewrite mode for Node (`node --import prelude.mjs`): calls to the mapped APIs go to
// the environment's replicas. Covers undici, which is both Node's fetch and the npm package
// (they share one global dispatcher, which is wrapped here), and node:http / node:https.
// The user's program is not changed. The facts come from the DETOUR_REWRITE_* variables.
import http from "node:http";
import https from "node:https";
import { syncBuiltinESMExports } from "node:module";

const BASE = process.env.DETOUR_REWRITE_BASE;
// The registry's routes, `host[/path]=service`, longest path first (Calendar shares its host with
// Google's other APIs, so only its paths are rewritten).
const ROUTES = (process.env.DETOUR_REWRITE_HOSTS || "").split(/\s+/).filter(Boolean).map((pair) => {
  const [where, service] = pair.split("=");
  const slash = where.indexOf("/");
  return slash < 0 ? [where.toLowerCase(), "", service] : [where.slice(0, slash).toLowerCase(), where.slice(slash), service];
}).sort((a, b) => b[1].length - a[1].length);
const HEADERS = Object.fromEntries((process.env.DETOUR_REWRITE_HEADERS || "").split("\n").filter(Boolean)
  .map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]));
const ORIGINAL_HOST = process.env.DETOUR_ORIGINAL_HOST_HEADER;

// The registry's prefix match: a `*` segment stands for any one segment (`/v1.0/users/*/messages`).
function starts(path, prefix) {
  if (!prefix.includes("*")) return path.startsWith(prefix);
  const pattern = prefix.split("/").map((p) => (p === "*" ? "[^/]+" : p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("/");
  return new RegExp("^" + pattern).test(path);
}

function rewrite(url) {
  const u = new URL(url);
  const path = u.pathname.replace(/\/\/+/g, "/");  // as the registry reads it
  const service = ROUTES.find(([host, prefix]) => host === u.hostname.toLowerCase() && starts(path, prefix))?.[2];
  if (!service || !["http:", "https:"].includes(u.protocol)) return null;
  return { url: new URL(`${BASE}/${service}${u.pathname}${u.search}`),
           headers: { ...HEADERS, [ORIGINAL_HOST]: u.hostname.toLowerCase() } };
}

function withHeaders(headers, extra) {
  if (!headers) return { ...extra };
  if (!Array.isArray(headers)) return { ...headers, ...extra };
  const pairs = Object.entries(extra);
  return Array.isArray(headers[0]) ? [...headers, ...pairs] : [...headers, ...pairs.flat()];
}

if (BASE) {
  // Constructing a Request makes Node's undici create its global agent (no connection).
  new Request("http://localhost/");
  const SYMBOLS = [Symbol.for("undici.globalDispatcher.1"), Symbol.for("undici.globalDispatcher.2")];
  const agent = globalThis[SYMBOLS[0]];
  const dispatcher = Object.create(agent);  // every Dispatcher API, with dispatch() retargeted
  dispatcher.dispatch = (opts, handler) => {
    const target = rewrite(new URL(opts.path || "/", opts.origin));
    if (!target) return agent.dispatch(opts, handler);
    return agent.dispatch({ ...opts, origin: target.url.origin, path: target.url.pathname + target.url.search,
                            headers: withHeaders(opts.headers, target.headers) }, handler);
  };
  for (const symbol of SYMBOLS) globalThis[symbol] = dispatcher;

  // http(s).request(url[, options][, callback]) or (options[, callback]) -> plain http to the gateway.
  const retarget = (args) => {
    const hasUrl = typeof args[0] === "string" || args[0] instanceof URL;
    const url = hasUrl ? new URL(args[0]) : null;
    const options = hasUrl ? (typeof args[1] === "object" && args[1] !== null ? args[1] : {}) : (args[0] || {});
    const rest = args.slice(hasUrl && options === args[1] ? 2 : 1);
    const host = (url ? url.hostname : options.hostname || String(options.host || "").split(":")[0]);
    const target = rewrite(`https://${host}${url ? url.pathname + url.search : options.path || "/"}`);
    if (!target) return null;
    const { agent, host: _host, hostname, port, protocol, path, ...kept } = options;
    return [{ ...kept, protocol: "http:", hostname: target.url.hostname, port: target.url.port,
              path: target.url.pathname + target.url.search,
              headers: { ...(options.headers || {}), ...target.headers } }, ...rest];
  };
  const { request: httpRequest, get: httpGet } = http;
  const { request: httpsRequest, get: httpsGet } = https;
  http.request = (...args) => httpRequest(...(retarget(args) || args));
  http.get = (...args) => httpGet(...(retarget(args) || args));
  https.request = (...args) => { const r = retarget(args); return r ? httpRequest(...r) : httpsRequest(...args); };
  https.get = (...args) => { const r = retarget(args); return r ? httpGet(...r) : httpsGet(...args); };
  syncBuiltinESMExports();
}
