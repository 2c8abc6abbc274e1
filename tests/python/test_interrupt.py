"""next() releases the GIL while it waits, Ctrl-C interrupts it promptly,
and KeyboardInterrupt or SystemExit raised inside a Python function ends
next() as that exception instead of becoming an element error.

The SIGINT cases run in a subprocess of their own, so that the signal never
reaches pytest; every wait is bounded."""

import json
import subprocess
import sys
import textwrap
import threading

import pytest

import sluice

WAIT_S = 60  # the bound on every wait for a thread or a subprocess


# What each SIGINT case runs first: interrupted_next(it, event) calls
# next(it) while a timer thread sends SIGINT to the main thread as soon as
# `event` is set, and says how next() ended and how long after the signal.
SIGINT_HARNESS = """
import json, signal, threading, time, traceback
import sluice

def interrupted_next(it, event):
    sent = []
    def interrupt():
        event.wait(30)
        sent.append(time.monotonic())
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
    threading.Thread(target=interrupt).start()
    try:
        next(it)
        outcome, frames = "returned", ""
    except KeyboardInterrupt:
        outcome, frames = "KeyboardInterrupt", traceback.format_exc()
    return {"outcome": outcome, "latency_s": time.monotonic() - sent[0], "closed": it.closed, "traceback": frames}
"""


def run_sigint_case(code):
    """Runs SIGINT_HARNESS and `code` in a fresh interpreter; returns the
    JSON it printed last."""
    result = subprocess.run(
        [sys.executable, "-c", SIGINT_HARNESS + textwrap.dedent(code)], capture_output=True, text=True, timeout=WAIT_S
    )
    assert result.returncode == 0, f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"SIGINT to KeyboardInterrupt: {outcome['latency_s'] * 1000:.1f} ms")
    return outcome


def test_next_releases_the_gil_while_the_pipeline_works():
    # A shuffle filling a buffer of a million elements works in C++ for a
    # while before the first element: another thread runs meanwhile.
    ds = sluice.Dataset.range(1_000_000).shuffle(1_000_000, seed=7)
    count = [0]
    running = threading.Event()
    stop = threading.Event()

    def counter():
        running.set()
        while not stop.is_set():
            count[0] += 1

    thread = threading.Thread(target=counter)
    thread.start()
    try:
        assert running.wait(WAIT_S)
        it = iter(ds)
        before = count[0]
        next(it)
        during = count[0] - before
    finally:
        stop.set()
        thread.join(WAIT_S)
    assert not thread.is_alive()
    print(f"the counter thread counted {during} times during next()")
    assert during > 0


# The main thread waits in next() on a parallel map of a Python function
# (whose calls sleep, without the GIL). A sequential map above it runs on the
# main thread inside next(), and tells a timer thread to send SIGINT: next()
# is then surely under way, and mostly waiting.
SIGINT_WHILE_WAITING = """
    def slow(x):
        time.sleep(0.01)
        return x

    in_next = threading.Event()
    def mark(x):
        in_next.set()
        return x

    ds = sluice.Dataset.range(10**6).map(slow, num_parallel_calls=2).map(mark).batch(100_000)
    in_next.clear()  # map traced mark once
    print(json.dumps(interrupted_next(iter(ds), in_next)))
"""


def test_sigint_interrupts_a_waiting_next_promptly():
    result = run_sigint_case(SIGINT_WHILE_WAITING)
    assert result["outcome"] == "KeyboardInterrupt"
    assert result["closed"]
    assert result["latency_s"] < 1.0  # about 10-20 ms unloaded; 1 s leaves room for a loaded machine


# SIGINT while a sequential map's Python function runs on the main thread
# (sleeping): the function raises KeyboardInterrupt, and next() re-raises
# it with the function's frames in its traceback.
SIGINT_INSIDE_THE_FUNCTION = """
    started = threading.Event()
    def sleepy(x):
        started.set()  # on the main thread, inside next()
        # Short sleeps: a SIGINT that lands between set() and a sleep is
        # handled at the loop's next turn, not after one long sleep.
        for _ in range(3000):
            time.sleep(0.01)
        return x

    it = iter(sluice.Dataset.range(3).map(sleepy, output_spec=sluice.TensorSpec([], "int64")))
    outcome = interrupted_next(it, started)
    outcome["after"] = [int(v) for v in sluice.Dataset.range(2).map(lambda x: x)]
    print(json.dumps(outcome))
"""


def test_sigint_inside_a_sequential_python_map():
    result = run_sigint_case(SIGINT_INSIDE_THE_FUNCTION)
    assert result["outcome"] == "KeyboardInterrupt"
    assert result["closed"] and "in sleepy" in result["traceback"]
    assert result["latency_s"] < 1.0
    assert result["after"] == [0, 1]  # nothing left pending for the next pipeline


def raise_at_two(exception):
    def fn(x):
        if x == 2:
            raise exception
        return x

    return fn


def test_keyboard_interrupt_raised_in_a_sequential_map_propagates():
    it = iter(sluice.Dataset.range(5).map(raise_at_two(KeyboardInterrupt("stop here"))))
    assert [next(it).tolist() for _ in range(2)] == [0, 1]
    with pytest.raises(KeyboardInterrupt, match="stop here"):
        next(it)
    assert it.closed
    with pytest.raises(StopIteration):
        next(it)
    assert [int(v) for v in sluice.Dataset.range(3).map(lambda x: x)] == [0, 1, 2]


def test_keyboard_interrupt_under_ignore_errors_still_propagates():
    ds = sluice.Dataset.range(5).map(raise_at_two(KeyboardInterrupt)).ignore_errors()
    with pytest.raises(KeyboardInterrupt):
        list(ds)


def test_system_exit_raised_in_a_parallel_map_propagates():
    it = iter(sluice.Dataset.range(50).map(raise_at_two(SystemExit(3)), num_parallel_calls=4))
    with pytest.raises(SystemExit) as info:
        for _ in it:
            pass
    assert info.value.code == 3
    assert it.closed


def test_keyboard_interrupt_in_an_interleave_function_propagates():
    def open_range(x):
        if x == 3:
            raise KeyboardInterrupt
        return sluice.Dataset.range(x)

    with pytest.raises(KeyboardInterrupt):
        list(sluice.Dataset.range(5).interleave(open_range, cycle_length=1))
