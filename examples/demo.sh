#!/usr/bin/env bash
# `make demo`: start an embedded detour stack, create a Slack environment from the
# slack_default template, run the agent programs in examples/ unmodified, then show
# the audit log and the environment's diff. Needs no Docker and leaves nothing behind.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
export DETOUR_HOME="$(mktemp -d)"

cleanup() {
    [ -n "${SERVE_PID:-}" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
    rm -rf "$DETOUR_HOME"
}
trap cleanup EXIT

section() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

section "starting detour (proxy + replicas) with state in $DETOUR_HOME"
detour serve --proxy-port 0 --replica-port 0 &
SERVE_PID=$!
for _ in $(seq 300); do [ -f "$DETOUR_HOME/stack.json" ] && break; sleep 0.1; done
[ -f "$DETOUR_HOME/stack.json" ] || { echo "detour serve did not start" >&2; exit 1; }

section "environment from template slack_default"
detour env create --template slack_default --id demo --capture bodies

for program in post_with_slack_sdk.py list_with_curl.sh react_with_node_fetch.mjs exfiltrate.py; do
    section "detour run examples/$program"
    detour run --env demo "examples/$program" || true
done

section "audit log (a record per request; headers and bodies captured, secrets redacted)"
detour logs --env demo
detour logs --env demo --summary
detour logs --env demo --har "$DETOUR_HOME/demo.har"

section "what the agents changed (detour env diff demo)"
detour env diff demo
