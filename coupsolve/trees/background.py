"""Long compiled passes run so that Ctrl-C stops them within about a second and their progress shows.

A numba kernel runs without returning to the interpreter, so Python cannot deliver Ctrl-C while it
runs. :func:`run_interruptibly` runs a kernel compiled with ``nogil=True`` in a worker thread while the
main thread waits in slices of ``every`` seconds (where Ctrl-C is delivered) and calls ``progress``.
On Ctrl-C it sets ``control[0]``, which the kernel polls (every 65,536 histories for the tree walk), waits
for the kernel to return and re-raises ``KeyboardInterrupt``.
"""

from __future__ import annotations

import threading

__all__ = ["run_interruptibly", "run_together"]


def run_interruptibly(kernel, args, control, progress=None, every=1.0):
    """``kernel(*args)``, run in a worker thread; Ctrl-C stops it through ``control[0]``.

    Parameters
    ----------
    kernel : callable
        A numba kernel compiled with ``nogil=True`` that returns soon after ``control[0]`` becomes
        non-zero.
    args : tuple
        Its arguments (``control`` among them).
    control : ndarray, int64, shape (>= 1,)
        ``control[0]`` is set to 1 on Ctrl-C.
    progress : callable, optional
        Called without arguments every ``every`` seconds while the kernel runs.
    every : float
        Seconds between checks.

    Returns
    -------
    What the kernel returns.

    Raises
    ------
    KeyboardInterrupt
        After the kernel stopped, when Ctrl-C was pressed.
    """
    return run_together(kernel, [args], [control], progress, every)[0]


def run_together(kernel, jobs, controls, progress=None, every=1.0):
    """``kernel(*args)`` for each ``args`` of ``jobs``, each in a worker thread of its own (a kernel
    compiled with ``nogil=True`` runs on as many cores), as :func:`run_interruptibly` runs one: Ctrl-C
    sets ``control[0]`` of every job's control (``controls``, one per job), waits for them all and
    re-raises ``KeyboardInterrupt``. Returns what each job returned, in order; the first job's error
    is raised once all have stopped."""
    boxes = [{} for _ in jobs]
    # each worker says it is done through an event of its own: a Thread.join that Ctrl-C interrupts can
    # mark a thread stopped while it still runs (CPython 3.11), so is_alive() cannot be trusted after one
    done = [threading.Event() for _ in jobs]

    def work(box, args, finished):
        try:
            box["value"] = kernel(*args)
        except BaseException as exc:  # noqa: BLE001 (handed to the main thread)
            box["error"] = exc
        finally:
            finished.set()

    workers = [threading.Thread(target=work, args=(box, args, finished), name=f"coupsolve-pass-{i}", daemon=True)
               for i, (box, args, finished) in enumerate(zip(boxes, jobs, done))]
    started = 0
    try:
        for worker in workers:
            started += 1  # Ctrl-C inside start() comes after the thread exists: it counts as started
            worker.start()
        for finished in done:
            while not finished.wait(every):
                if progress is not None:
                    progress()
    except KeyboardInterrupt:
        for control in controls:
            control[0] = 1
        for finished in done[:started]:
            while not finished.is_set():  # a second Ctrl-C does not leave a kernel running unattended
                try:
                    finished.wait()
                except KeyboardInterrupt:
                    pass
        raise
    for box in boxes:
        if "error" in box:
            raise box["error"]
    return [box["value"] for box in boxes]
