"""The engine's compile decorator: ``numba.njit`` without reference counting.

The engine's kernels (:mod:`coupsolve.engine` and its phase modules, and the step functions that bind
it to the samplers) allocate nothing: they read and write the arrays their callers own. Compiled with
numba's runtime (NRT), every call that is not inlined still increments and decrements the reference
count of each array argument (atomic operations, kept by numba's pruning because a call may report an
error), and a sampler's step makes dozens of such calls, which took a large share of an external-sampling
iteration (docs/research/design-measurements.md). ``_nrt=False`` compiles these functions without them;
their callers still own the arrays for the duration of a call, so nothing is freed early. A kernel
that allocates (``np.zeros``, or an array expression such as ``coupsolve.engine.context.context_field`` on an
array) must use ``numba.njit``: numba refuses to compile an allocation without its runtime.
"""

import functools

import numba

from solvers.compiled import kernel_ready  # noqa: F401 (the engine's callers ask it here)

#: ``numba.njit`` with ``_nrt=False`` (no reference counting: see the module docstring).
njit = functools.partial(numba.njit, _nrt=False)
