"""`make bench`: latency and throughput of detour's moving parts, printed, never asserted.

Runs on loopback only, with bounded request counts. The load generator is Python and
shares the machine's two cores with mitmdump and uvicorn, so absolute numbers are a
floor for what the stack can do, not a ceiling.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from bench.calendar import bench_calendar_month
from bench.chaos import ROLLOUTS, bench_chaos
from bench.proxy_floor import bench_proxy_floor
from bench.proxy import (
    bench_capture,
    bench_embedded_start,
    bench_noisy_neighbour,
    bench_proxy_hop,
    bench_rules_and_secret,
    bench_stack_cpu_per_call,
    bench_two_nodes,
    soak,
)
from bench.replicas import (
    bench_diff_after_changes,
    bench_environment_creation,
    bench_world_diff,
    bench_linear_issue_list,
    bench_postgres_creation,
    bench_slack_mixed,
)
from bench.box import bench_box_transfer
from bench.github import bench_github_git
from bench.mcp import bench_mcp_tool_call
from bench.drive import bench_drive_transfer
from bench.events import bench_http_delivery, bench_socket_mode
from bench.gmail import bench_gmail_search
from bench.live import bench_live_rollouts
from bench.models import bench_model_stream
from bench.rollout_breakdown import bench_rollout_breakdown
from bench.ray import bench_ray
from bench.rollouts import bench_rollouts
from bench.secrets import bench_answer_scrubbing
from bench.stack_start import bench_stack_start
from bench.sandboxes import (
    bench_background_run,
    bench_concurrent_containers,
    bench_detour_run,
    bench_executors,
    bench_modes,
    bench_runtime_start,
    bench_sandbox_start,
    bench_transparent_vs_regular,
)
from detour.progress import Steps
from detour.stack import EMBEDDED, Stack
from detour_core.paths import StatePaths
from mock_services.store import EnvironmentStore


STEPS = Steps("make bench", lines=False)  # a progress bar on a terminal, nothing in a log


def section(title: str) -> None:
    """A part of the run: its title on stdout, where its table follows; the bar names it too."""
    print(title, flush=True)
    STEPS.step(title)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="detour-bench-") as tmp:
        state = StatePaths(Path(tmp)).ensure()
        store = EnvironmentStore(state)
        section("environment creation")
        bench_environment_creation(store)
        bench_postgres_creation(state)
        bench_diff_after_changes(store)
        bench_world_diff(store)
        env_id = store.create("slack_default").env_id
        stack = Stack(state)
        with stack as info:
            state.stack_file.write_text(info.model_dump_json())
            section("replicas: a mixed Slack script, a nested Linear issue list, a busy Calendar month, Box, GitHub "
                    "(git, and an MCP tool call against REST), Drive, Gmail")
            bench_slack_mixed(info, store)
            bench_linear_issue_list(info, store)
            bench_calendar_month(info, store)
            bench_box_transfer(state, stack, store)
            bench_github_git(state, stack, store)
            bench_mcp_tool_call(state, stack, store)
            bench_drive_transfer(state, stack, store)
            bench_gmail_search(state, stack, store)
            if "--replicas-only" in sys.argv:
                return
            section("events: from the write that causes one to the app's handler")
            bench_socket_mode(state, info, store, "replica server")
            with Stack(state, parts=EMBEDDED) as embedded:
                bench_socket_mode(state, embedded, store, "in the proxy process")
            bench_http_delivery(state, info, store)
            section("the stack's CPU per replica call (auth.test through the proxy, HTTPS)")
            bench_stack_cpu_per_call(state, stack, info, env_id)
            section("detour run wall time")
            bench_detour_run(state, env_id, running=True)
            section("executors: execute(\"print(1)\"), warm client")
            bench_executors(state, info)
            section("sandbox start")
            bench_sandbox_start(state, info, env_id)
            section("runtimes: detour's own versus a user's venv")
            bench_runtime_start(state, info, env_id)
            section("docker backend: 20 concurrent sandboxes")
            bench_concurrent_containers(state, info)
            section("audit capture through the proxy: off, headers, bodies (auth.test, HTTPS keep-alive)")
            bench_capture(state, info, store)
            section("egress rules and secrets through the proxy (auth.test, HTTPS keep-alive)")
            bench_rules_and_secret(state, info, store)
            section("the agent's own model call: a streamed answer under a model route, direct versus through the proxy")
            bench_model_stream(state, stack, info, store)
            section("noisy neighbour: one environment while another floods the proxy")
            bench_noisy_neighbour(state, info, store)
            section("from inside a namespace sandbox: regular versus transparent")
            bench_transparent_vs_regular(state, info, env_id)
            section("one agent program, 50 replica calls: proxy mode versus rewrite mode")
            bench_modes(state, info)
            section("rollouts: environment, sandbox, a 20-call agent, the diff, deletion")
            bench_rollouts(state, info)
            section("256 rollouts live at once through the run API, each idle between two calls (bench/live.py)")
            bench_live_rollouts(state, stack, info)
            section("where one rollout's time goes (docs/benchmarks/rollout-breakdown.md)")
            bench_rollout_breakdown(state, stack)
            section("rollouts through Ray: one, two and three nodes beside a local stack, then 100 (bench/ray.py)")
            bench_ray()
            state.stack_file.unlink()
        if "--replicas-only" not in sys.argv:
            section("the stack's CPU per replica call without the fast path (mitmproxy's layers, the replicas "
                    "over HTTP and in the proxy's process), and its floor: mitmproxy and a bare app (bench/proxy_floor.py)")
            for in_process in (False, True):
                layered = Stack(state, replicas_in_process=in_process, fast_path=False)
                with layered as layered_info:
                    bench_stack_cpu_per_call(state, layered, layered_info, env_id)
            bench_proxy_floor()
            section("replica call auth.test (HTTP keep-alive; through the proxy: HTTPS via CONNECT)")
            bench_proxy_hop(state, env_id)
            section("a 1 MB answer from a passed-through host, with and without a secret's scrubbing")
            bench_answer_scrubbing(state, store)
            bench_embedded_start(state)
            bench_detour_run(state, env_id, running=False)
            bench_background_run()
            section("stack start: CPU-seconds and wall from nothing to a first answer (bench/stack_start.py)")
            bench_stack_start(state)
            section("two replica servers and two proxies on one Postgres (auth.test, HTTPS keep-alive)")
            bench_two_nodes()
            section("soak: one proxy, 100,000 requests")
            soak(state)
            section(f"chaos soak: {ROLLOUTS} rollouts while proxy workers, sandboxes and callers are killed (bench/chaos.py)")
            bench_chaos()


if __name__ == "__main__":
    with STEPS:
        main()
