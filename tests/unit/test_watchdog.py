"""The sandbox watchdog's view of a process tree (sandbox/supervisor.py): read from the tree's
own /proc entries, it finds what psutil finds by reading every process on the machine."""

import subprocess
import sys

import psutil
import pytest

from sandbox.supervisor import IDLE_POLL_S, POLL_S, Pace, descendants, exit_wait

TREE = """
import subprocess, sys, time
inner = "import subprocess, sys; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); print('ok', flush=True); import time; time.sleep(60)"
child = subprocess.Popen([sys.executable, "-c", inner], stdout=subprocess.PIPE)
child.stdout.readline()
print("ready", flush=True)
time.sleep(60)
"""


def test_the_trees_own_entries_name_the_same_descendants_as_psutil():
    root = subprocess.Popen([sys.executable, "-c", TREE], stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert root.stdout.readline().strip() == b"ready"
        found = descendants(root.pid)
        assert found is not None and len(found) == 2  # the child and its own child
        assert sorted(found) == sorted(p.pid for p in psutil.Process(root.pid).children(recursive=True))
    finally:
        for pid in [*(descendants(root.pid) or []), root.pid]:
            psutil.Process(pid).kill()
        root.wait()


def test_a_tree_with_no_children_is_empty_and_a_gone_one_is_no_process():
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    assert descendants(proc.pid) == []
    proc.stdin.close()
    with exit_wait(proc) as wait:
        wait(60)  # the program ends when its stdin does: the wait ends with it
        assert proc.poll() == 0
    with pytest.raises(psutil.NoSuchProcess):
        descendants(proc.pid)


def test_the_pace_looks_only_after_cpu_was_spent_and_waits_longer_while_none_is():
    """An idle sandbox is looked at less and less often (to IDLE_POLL_S); any CPU it spends
    brings a look at once and the short wait back. Without a CPU count, a look every POLL_S."""
    spent = iter([5, 5, 5, 5, 5, 5, 5, 6, 6])
    pace = Pace(lambda: next(spent))
    looks = [(pace.busy(), pace.wait) for _ in range(9)]
    assert looks == [(True, POLL_S), (False, POLL_S * 2), (False, POLL_S * 4), (False, POLL_S * 8),
                     (False, POLL_S * 16), (False, IDLE_POLL_S), (False, IDLE_POLL_S), (True, POLL_S),
                     (False, POLL_S * 2)]
    blind = Pace(None)
    assert [(blind.busy(), blind.wait) for _ in range(3)] == [(True, POLL_S)] * 3
