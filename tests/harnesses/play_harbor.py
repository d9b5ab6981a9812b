"""Harbor's side: each test as a Harbor task (detour_client.harbor.write_tasks), run by Harbor's own
CLI (`harbor run`) on detour's environment type and scored by detour's verifier. The scripted
policy is Harbor's oracle agent running the task's solution (the scripted program); the idle one
is Harbor's nop agent, which runs nothing. Harbor's telemetry is off, and any other call it made
would meet a closed loopback port: nothing leaves the machine."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from detour_client import StackClient
from detour_client.harbor import write_tasks

url, key, suite_path, agent, idle, *tests = sys.argv[1:]
suite = json.load(open(suite_path))
work = Path.cwd()
for task in write_tasks({**suite, "tests": [t for t in suite["tests"] if t["id"] in tests]}, work / "tasks"):
    (task / "solution").mkdir()
    shutil.copy(agent, task / "solution" / "agent.py")
    (task / "solution" / "solve.sh").write_text(f"DETOUR_TEST_ID={task.name} exec python3 /solution/agent.py\n")

nowhere = "http://127.0.0.1:9"
env = {**os.environ, "DETOUR_URL": url, "DETOUR_API_KEY": key, "HARBOR_TELEMETRY": "0", "HTTP_PROXY": nowhere,
       "HTTPS_PROXY": nowhere, "ALL_PROXY": nowhere, "NO_PROXY": "127.0.0.1,localhost"}


def job(name: str) -> dict:
    """`harbor run` over the tasks with Harbor's agent `name`: each trial's reward and detour's counts."""
    subprocess.run([Path(sys.executable).parent / "harbor", "run", "-p", work / "tasks", "-a", name,
                    "--env", "detour_client.harbor:DetourEnvironment", "--verifier", "detour_client.harbor:DetourVerifier",
                    "-o", work / "jobs", "--job-name", name, "-n", "3", "-y", "-q"],
                   env=env, check=True, stdout=sys.stderr)
    trials = {}
    for result in (work / "jobs" / name).glob("*/result.json"):
        found = json.loads(result.read_text())
        if "verifier_result" in found:  # a trial's (the job's own result.json has none)
            counts = json.loads((result.parent / "verifier" / "detour.json").read_text())
            trials[found["task_name"]] = {**counts, "reward": found["verifier_result"]["rewards"]["reward"]}
    return trials


trials = {policy: job(name) for policy, name in (("scripted", "oracle"), ("idle", "nop"))}
print(json.dumps({"rewards": {p: {t: v["reward"] for t, v in got.items()} for p, got in trials.items()},
                  "trials": trials, "left": StackClient(url, api_key=key).environments()}))
