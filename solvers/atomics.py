"""Atomic operations on int64 arrays and a spinning barrier, for compiled workers that run in threads
of their own (:func:`solvers.mccfr.external.run_worker`).

numba has no atomics on the CPU, so these are intrinsics over LLVM's (``atomicrmw``, atomic loads
and stores, sequentially consistent). :func:`barrier` is a counter and a generation on separate
cache lines: the last thread to arrive resets the counter and advances the generation; the others
spin on the generation, with the CPU's ``pause`` hint, and after :data:`SPINS` rounds give up their
time slice (``sched_yield``) so that a machine with more threads than cores still moves on.
"""

import platform

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.core.extending import intrinsic

#: Rounds a waiting thread spins before it yields its time slice at every further round.
SPINS = 1 << 10
#: The barrier's array (int64): the counter at 0, the generation at ``BAR_GEN`` (another cache line).
BAR_GEN = 8
BAR_SIZE = 16
_X86 = platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")


def _pointer(context, builder, signature, args):
    aryty = signature.args[0]
    ary = context.make_array(aryty)(context, builder, args[0])
    return cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)


@intrinsic
def atomic_add(typingctx, arr, idx, val):
    """``arr[idx] += val`` at once for every thread (int64); the value before."""
    def codegen(context, builder, signature, args):
        return builder.atomic_rmw("add", _pointer(context, builder, signature, args), args[2],
                                  "seq_cst")

    return types.int64(arr, idx, types.int64), codegen


@intrinsic
def atomic_load(typingctx, arr, idx):
    """``arr[idx]`` (int64) as another thread's atomic store left it."""
    def codegen(context, builder, signature, args):
        return builder.load_atomic(_pointer(context, builder, signature, args), "seq_cst", 8)

    return types.int64(arr, idx), codegen


@intrinsic
def atomic_store(typingctx, arr, idx, val):
    """``arr[idx] = val`` (int64), seen whole by every thread."""
    def codegen(context, builder, signature, args):
        builder.store_atomic(args[2], _pointer(context, builder, signature, args), "seq_cst", 8)
        return context.get_dummy_value()

    return types.void(arr, idx, types.int64), codegen


@intrinsic
def _relax(typingctx, give_up):
    """A spinning thread's round: ``pause`` (x86), or ``sched_yield`` when ``give_up``."""
    def codegen(context, builder, signature, args):
        with builder.if_else(args[0]) as (yielding, spinning):
            with yielding:
                fn = cgutils.get_or_insert_function(builder.module,
                                                    ir.FunctionType(ir.IntType(32), []),
                                                    "sched_yield")
                builder.call(fn, [])
            with spinning:
                if _X86:
                    fn = cgutils.get_or_insert_function(builder.module,
                                                        ir.FunctionType(ir.VoidType(), []),
                                                        "llvm.x86.sse2.pause")
                    builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(types.boolean), codegen


@njit(cache=True, nogil=True)
def barrier(bar, T):
    """Wait until all ``T`` threads have called this on ``bar`` (int64[BAR_SIZE], zeros at first)."""
    gen = atomic_load(bar, BAR_GEN)
    if atomic_add(bar, 0, 1) == T - 1:
        atomic_store(bar, 0, 0)
        atomic_add(bar, BAR_GEN, 1)
        return
    spins = 0
    while atomic_load(bar, BAR_GEN) == gen:
        spins += 1
        _relax(spins > SPINS)
