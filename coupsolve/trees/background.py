"""Long compiled passes run so that Ctrl-C stops them within about a second and their progress shows.

A numba kernel runs without returning to the interpreter, so Python cannot deliver Ctrl-C while it
runs. :func:`run_interruptibly` runs a kernel compiled with ``nogil=True`` in a worker thread while the
main thread waits in slices of ``every`` seconds (where Ctrl-C is delivered) and calls ``progress``.
On Ctrl-C it sets ``control[0]``, which the kernel polls (every 65,536 histories for the tree walk), waits
for the kernel to return and re-raises ``KeyboardInterrupt``.
"""

from __future__ import annotations

import threading

__all__ = ["run_interruptibly"]


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
    box = {}

    def work():
        try:
            box["value"] = kernel(*args)
        except BaseException as exc:  # noqa: BLE001 (handed to the main thread)
            box["error"] = exc

    worker = threading.Thread(target=work, name="coupsolve-pass", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(every)
            if progress is not None and worker.is_alive():
                progress()
    except KeyboardInterrupt:
        control[0] = 1
        while worker.is_alive():  # a second Ctrl-C does not leave the kernel running unattended
            try:
                worker.join()
            except KeyboardInterrupt:
                pass
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]
