"""The rollouts' stream (detour_client.rollouts.stream), where a suite's consumer waits while
workers play: a signal a worker thread takes still reaches Python's handler on the main thread
while a rollout plays, so a Ctrl-C stops a suite instead of waiting out its running rollout."""

from __future__ import annotations

import signal
import threading
import time

from detour_client.rollouts import stream


def test_a_signal_a_worker_takes_runs_its_handler_while_the_rollout_plays():
    handled = threading.Event()
    previous = signal.signal(signal.SIGUSR1, lambda number, frame: handled.set())

    def play(job: int) -> bool:
        """What the kernel may do with a process's Ctrl-C: give it to this thread, not the main one
        (once the main thread waits for the rollout)."""
        time.sleep(0.5)
        signal.pthread_kill(threading.get_ident(), signal.SIGUSR1)
        return handled.wait(10)  # as a rollout plays, until its agent is stopped (here: the handler ran)

    try:
        assert list(stream([1], play, workers=1)) == [True]  # False on the old stream: the handler waited
    finally:
        signal.signal(signal.SIGUSR1, previous)


def test_the_stream_yields_each_result_and_starts_no_more_than_its_workers():
    playing, most = set(), 0
    lock = threading.Lock()

    def play(job: int) -> int:
        nonlocal most
        with lock:
            playing.add(job)
            most = max(most, len(playing))
        time.sleep(0.05)
        with lock:
            playing.discard(job)
        return job * 10

    assert sorted(stream(range(6), play, workers=2)) == [0, 10, 20, 30, 40, 50]
    assert most == 2
