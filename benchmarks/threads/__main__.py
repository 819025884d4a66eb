"""``python -m benchmarks.threads``: :func:`benchmarks.threads.main`."""

from benchmarks.threads import main

main()
