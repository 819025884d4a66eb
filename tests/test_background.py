"""coupsolve.trees.background: kernels run in worker threads, several at once, stopped by Ctrl-C."""

import os
import signal
import threading
import time

import numpy as np
import pytest

from coupsolve.trees.background import run_interruptibly, run_together


def test_jobs_run_at_once_and_answer_in_order():
    """Two jobs that each wait for the other would deadlock if run one after the other."""
    meet = threading.Barrier(2, timeout=10)

    def job(x, control):
        meet.wait()
        return 2 * x

    controls = [np.zeros(3, np.int64) for _ in range(2)]
    assert run_together(job, [(1, controls[0]), (5, controls[1])], controls) == [2, 10]
    assert run_interruptibly(lambda x, c: x + 1, (3, controls[0]), controls[0]) == 4


def test_an_error_is_raised_once_every_job_stopped():
    finished = []

    def job(fail, control):
        if fail:
            raise ValueError("the first job fails")
        time.sleep(0.3)
        finished.append(True)
        return 0

    controls = [np.zeros(3, np.int64) for _ in range(2)]
    with pytest.raises(ValueError, match="first job"):
        run_together(job, [(True, controls[0]), (False, controls[1])], controls, every=0.05)
    assert finished == [True]


def test_ctrl_c_stops_every_job():
    """SIGINT while the jobs run: each sees its control[0] set, returns, and KeyboardInterrupt follows."""
    stopped = []

    def job(control):
        while control[0] == 0:
            time.sleep(0.01)
        stopped.append(True)
        return 0

    controls = [np.zeros(3, np.int64) for _ in range(3)]
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            run_together(job, [(c,) for c in controls], controls, every=0.05)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert stopped == [True] * 3 and all(c[0] == 1 for c in controls)
