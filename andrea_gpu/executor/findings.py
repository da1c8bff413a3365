"""What the CPU executor reports about a kernel, as message templates with named values.

Every finding of the executor (a data race, an out-of-bounds access, a misaligned vector
access, barrier misuse, a read of never-written shared memory, a fault) is a ``Said``: an
English ``str.format`` template (``MSG_*`` below, a stable gettext msgid) and its values. A
value may itself be a ``Said`` (the thread that wrote, the argument, the source line), so a
grader can show the whole sentence in the reader's language: ``Said.data()`` gives
``{"msgid": ..., "fields": {...}}`` with nested sentences as such dicts, and the English text
is ``str(said)``. This module imports nothing of the graders; the grader's catalogs translate
the templates (``graders/conformance/locale``) and check that each one has a translation.
"""

from __future__ import annotations

import re
from typing import Any

# --- pieces (values of the sentences below)
MSG_THREAD = "block ({bx},{by},{bz}) thread ({tx},{ty},{tz})"
MSG_THREAD_WRITES = "{thread} writes it"
MSG_THREAD_READS = "{thread} reads it"
MSG_THREAD_ATOMIC = "{thread} updates it with an atomic"
MSG_ARGUMENT = "argument {index} ({name})"
MSG_ARGUMENT_ELEMENT = "argument {index} ({name}), element {element}"
MSG_SHARED_AT = "shared memory at byte offset {offset}"
MSG_DYNAMIC_SHARED_AT = "dynamic shared memory at byte offset {offset}"
MSG_UNKNOWN_LINE = "an unknown line"
MSG_ONE_LINE = "line {line}"
MSG_TWO_LINES = "lines {line} and {other}"

# --- races and reads of never-written shared memory (the race checker)
MSG_RACE = ("kernel {kernel}: data race on {what} at {lines}: {first} and {second}, with no "
            "__syncthreads() or atomic between them (concurrent updates need "
            "atomicAdd/atomicMin..., shared memory needs a __syncthreads() between a write and "
            "another thread's read)")
MSG_RACE_WARP = ("kernel {kernel}: data race on {what} at {lines}: {first} and {second}, with no "
                 "__syncthreads() or atomic between them (they are lanes of one warp, and the "
                 "lanes of a warp do not run in lock-step: a __syncwarp() between one lane's "
                 "write and another's read orders them, as does passing the value with "
                 "__shfl_*_sync; concurrent updates need atomicAdd/atomicMin...)")
MSG_RACE_ATOMIC = ("kernel {kernel}: data race on {what} at {lines}: {first} and {second}, with "
                   "no __syncthreads() between them (a plain read or write of memory that another "
                   "thread updates with an atomic races with it: do the whole read-modify-write "
                   "in one atomic, such as atomicAdd or an atomicCAS loop that retries until the "
                   "value it read is still there, or put a __syncthreads() between the two)")
MSG_RACE_BLOCK_SCOPE = ("kernel {kernel}: data race on {what} at {lines}: {first} and {second}, "
                        "from different blocks, and one of the atomics is block-scoped "
                        "(atomic..._block is atomic only among the threads of one block: threads "
                        "of different blocks need atomicAdd, atomicCAS...)")
MSG_UNWRITTEN_SHARED = ("kernel {kernel}: read of never-written {what} at {line} ({who}, but no "
                        "thread of the block wrote it before: a missing __syncthreads() or a bad "
                        "index)")
MSG_SCHEDULES_DIFFER = ("kernel {kernel}: {argument} differs between the '{first}' and "
                        "'{second}' schedules of the same launch (first at element {element}: "
                        "{got} vs {other}); a __syncthreads() is missing, threads race, or memory "
                        "is read before any thread wrote it")

# --- out-of-bounds accesses (guard pages, canaries)
MSG_OOB_WRITE_AFTER = ("kernel {kernel}: out-of-bounds write to {argument}: byte offset {offset} "
                       "of a {nbytes}-byte buffer (found after the launch)")
MSG_OOB_ACCESS = ("kernel {kernel}: out-of-bounds access to {argument}: byte offset {offset} of "
                  "a {nbytes}-byte buffer, by {thread}")
MSG_OOB_ACCESS_AT = ("kernel {kernel}: out-of-bounds access to {argument} at {line}: byte offset "
                     "{offset} of a {nbytes}-byte buffer, by {thread}")

# --- work (the GPU cost model: memory accesses of one launch, launch.GPU_ACCESSES_PER_S)
MSG_TOO_MUCH_WORK = ("kernel {kernel}: stopped after {accesses} memory accesses in one launch "
                     "(by {thread}, at {line}): about {ms} ms on a GPU by the checker's estimate "
                     "of {rate} accesses per second, more than the {limit} ms one launch may take "
                     "(look for a loop over every id or row inside the per-element loop)")

MSG_CONST_WRITTEN = ("kernel {kernel} wrote {what}, which is a const input: the caller's data must "
                     "be left as it is (write results only to the output arguments)")

# --- other faults
MSG_MISALIGNED = ("kernel {kernel}: {thread}: an access at a misaligned or impossible address (a "
                  "vector type such as float4 must be read and written at an address that is a "
                  "multiple of its size; on a GPU this is a 'misaligned address' error)")
MSG_MISALIGNED_AT = MSG_MISALIGNED + " at {line}"
MSG_NULL = "kernel {kernel}: {thread}: a null pointer was dereferenced"
MSG_NULL_AT = MSG_NULL + " at {line}"
MSG_NULL_NO_SHARED = (MSG_NULL + " (the kernel uses extern __shared__ memory, but the launch "
                      "gives it none: use a fixed-size __shared__ array)")
MSG_NULL_NO_SHARED_AT = MSG_NULL_NO_SHARED + " at {line}"
MSG_STACK_OVERFLOW = ("kernel {kernel}: {thread}: stack overflow: the thread's local variables "
                      "need more than the {kib} KiB the executor gives each thread (put a large "
                      "array in shared or global memory, and avoid deep recursion)")
MSG_STACK_OVERFLOW_AT = MSG_STACK_OVERFLOW + " at {line}"
MSG_SIGNAL = "kernel {kernel}: {thread}: {signal} at address {address}"
MSG_SIGNAL_AT = MSG_SIGNAL + " at {line}"
MSG_SEGV = "segmentation fault"
MSG_BUS = "bus error"
MSG_FPE = "arithmetic exception"

# --- barriers, warps, traps, launches (the runtime's own findings, with the schedule)
MSG_RUNTIME = "kernel {kernel} ({status}, {schedule} schedule): {thread}: {finding}"
#: The schedules a launch runs in (launch.ORDERS), as the {schedule} of the sentences.
SCHEDULES = {"forward": "forward", "reverse": "reverse", "shuffle": "shuffle"}
MSG_STATUS_FAULT = "fault"
MSG_STATUS_DIVERGENT = "divergent barrier"
MSG_STATUS_NOT_REACHED = "barrier not reached by every thread"
MSG_STATUS_TRAP = "trap"
MSG_STATUS_BAD_LAUNCH = "bad launch"
MSG_DIVERGENT_BARRIER = ("divergent __syncthreads(): thread ({ax},{ay},{az}) waits at {line} but "
                         "thread ({bx},{by},{bz}) waits at {other}")
MSG_BARRIER_EXITED = ("__syncthreads() at {line} is not reached by every thread of the block: "
                      "thread ({ax},{ay},{az}) waits there but thread ({bx},{by},{bz}) has exited")
MSG_BARRIER_OTHERS_EXITED = ("__syncthreads() at {line} is not reached by every thread of the "
                             "block: thread ({ax},{ay},{az}) waits there but other threads have "
                             "exited")
MSG_WARP_DIVERGENT = ("warp-level primitive at {line} is not reached by every live lane of the "
                      "warp: thread ({ax},{ay},{az}) waits there but thread ({bx},{by},{bz}) waits "
                      "at {other}")
MSG_WARP_MASK_LANE = ("warp-level primitive at {line} is not reached by every lane its mask ({mask}) "
                      "names: thread ({ax},{ay},{az}) waits there but thread ({bx},{by},{bz}) "
                      "waits at {other}")
MSG_WARP_KIND_CLASH = ("lanes named in one mask ({mask}) wait at different warp-level primitives: "
                       "thread ({ax},{ay},{az}) at {what} ({line}), thread ({bx},{by},{bz}) at "
                       "{other_what} ({other}); every lane a mask names must execute the same "
                       "primitive with that mask")
MSG_WARP_FIRST_THREAD = ("warp-level primitive at {line} in a block whose first thread never "
                         "reached one")
MSG_TRAP = "__trap() at {line}"
MSG_ASSERT = "assert({expr}) failed at {line}"
MSG_BAD_SHAPE = "bad launch shape: {threads} threads per block, {blocks} blocks"
MSG_NO_MEMORY = "the executor ran out of memory for this launch"
MSG_RUNTIME_OTHER = "the executor stopped the kernel: {text}"

# --- on a GPU: compute-sanitizer's findings (andrea_gpu/sanitizer.py); its words as it wrote them
MSG_SANITIZER = "compute-sanitizer {tool}: kernel {kernel}: {what}"
MSG_SANITIZER_AT = "compute-sanitizer {tool}: kernel {kernel}: {what} at {line}"

# --- the kernel file refused before it is compiled (andrea_gpu/host.py); a compiler's own log
# is quoted as it is
MSG_MISSING_ENTRY_POINTS = ("missing kernel entry points (each must be defined as written):\n"
                            "{signatures}")
MSG_NOT_EXTERN_C = ("{log}\nentry points must be declared extern \"C\" so the grader can find them "
                    "by name")
MSG_REFUSED_LINE = "{file}:{line}: error: {problem}"
MSG_NO_TRIGRAPHS = "trigraphs (??= ??/) are not accepted"
MSG_NO_RAW_STRINGS = "raw string literals (R\"...\") are not allowed in a kernel submission"
MSG_FORBIDDEN_WORD = ("'{word}' is not allowed in a kernel submission (no inline assembly, no file "
                      "or pragma tricks)")
MSG_INLINE_ASM = ("inline assembly ('{word}') is not allowed in a kernel submission: use CUDA's "
                  "intrinsics instead, e.g. __ldg() for ld.global.nc, __ldcs()/__ldcg()/__stcs() "
                  "for cache-hinted loads and stores, __shfl_sync() for shfl.sync")
MSG_FORBIDDEN_DIRECTIVE = "#{directive} is not allowed in a kernel submission"
MSG_FORBIDDEN_INCLUDE = ("#include {header} is not allowed: a kernel submission is one "
                         "self-contained file and may include only standard or CUDA headers such "
                         "as <cstdint> or <cuda_runtime.h>")
MSG_HOST_MACRO = ("'{word}' may not be tested in #if, #ifdef, #ifndef or #elif: the grader's CPU "
                  "checker and the GPU's compiler do not define it alike, so the code graded would "
                  "not be the code a GPU runs (test __CUDA_ARCH__, __CUDACC__ or a macro of your "
                  "own)")
MSG_HOST_MACRO_USE = ("'{word}' is a macro of the grader's CPU checker's compiler, not of the "
                      "GPU's: a kernel may not use it (define a constant or macro of your own)")
MSG_NVRTC_ONLY_NAME = ("'{word}' is CUDA API that the grader's CPU checker does not provide "
                       "(texture and surface functions, the runtime API's types and constants): "
                       "a kernel that uses it, or names its own variable or function so, cannot be "
                       "checked as a GPU runs it (rename yours)")
MSG_RESERVED_NAME = ("'{word}' is a reserved name (names that begin with two underscores, or with "
                     "an underscore and a capital letter, belong to the compiler and to CUDA) that "
                     "the grader's CPU checker and the GPU's compiler do not declare alike: a "
                     "kernel may use only the CUDA API both provide (rename yours)")
MSG_ATTRIBUTE = ("attribute '{word}' is not one the grader's CPU checker and the GPU's compiler "
                 "honour alike (NVRTC ignores it where g++ applies it): a kernel may use aligned, "
                 "packed, noinline, always_inline, unused, noreturn and the standard [[...]] "
                 "attributes")
MSG_FORBIDDEN_PRAGMA = "#pragma {pragma} is not allowed (only #pragma unroll and #pragma once are)"

# --- the contract's rule for out-of-range ids, checked after each launch (andrea_gpu/host.py)
MSG_BAD_BUT_ALL_IN_RANGE = ("{kernel} (grid {grid}, block {block}) set *bad = {got} although every "
                            "id is in range")
MSG_BAD_NOT_REPORTED = ("{kernel} (grid {grid}, block {block}) did not report the out-of-range id "
                        "{where} = {bad_id}: *bad is still INT_MAX. Check every id against "
                        "num_rows and record the smallest flat index of a bad id with "
                        "atomicMin(bad, i), skipping that row{probe}")
MSG_BAD_NOT_SMALLEST = ("{kernel} (grid {grid}, block {block}) set *bad = {got}, but the first "
                        "out-of-range id is at flat index {first} ({where} = {bad_id}); use "
                        "atomicMin(bad, i) so that the smallest index wins{probe}")
MSG_BAD_NOT_AN_INDEX = ("{kernel} (grid {grid}, block {block}) set *bad = {got}, which is not a flat "
                        "index into the {n} ids; the first out-of-range id is at flat index "
                        "{first} ({where} = {bad_id}): record the index i of the id, not the id "
                        "itself, with atomicMin(bad, i){probe}")
MSG_PROBE_IDS = " (probe_ids: good ids mixed with num_rows, -1 and INT_MAX: {ids})"
#: A finding of the 32-bit offset probe, then what the probe was (its `kernel` field, unused by
#: the sentence, names the finding's kernel as every finding's data does).
MSG_FINDING_PROBE = "{finding}{probe}"
MSG_PROBE_WRAP = (" (probe_ids: good ids and {bad_id}, whose row offset {bad_id} * d_model ({d}) = "
                  "{offset} does not fit a 32-bit int: computed in int it wraps to {wrapped}, "
                  "which passes a range check of the offset. Compare the id itself with "
                  "num_rows, and compute offsets in 64 bits (size_t): {ids})")
MSG_GOOD_ROWS_WRONG = ("{kernel} (grid {grid}, block {block}) got the rows of good ids wrong when "
                       "out-of-range ids are present (first at token_ids{where}): skip only the "
                       "bad rows")
MSG_NEVER_WRITTEN = ("{kernel} (grid {grid}, block {block}) did not write {where} ({count} of "
                     "{total} elements left as they were: out is not zeroed before the launch). "
                     "Write every element of every good row, with = rather than +=, for any "
                     "grid and block size (rows in a grid-stride loop, columns in a block-stride "
                     "loop)")
MSG_GRADIENT_ROW_WRONG = ("{kernel} (grid {grid}, block {block}) got gradient row {row} wrong when "
                          "out-of-range ids are present: skip only the rows of bad ids")


class FindingError(RuntimeError):
    """An error whose message is a finding (``Said``): ``str(exc)`` is its English sentence,
    ``translatable()`` the template and values (None for a plain message)."""

    def __init__(self, said):
        super().__init__(str(said))
        self.said = said if isinstance(said, Said) else None

    def translatable(self) -> dict | None:
        return self.said.data() if self.said is not None else None


class Said:
    """A template and its values; values may be Said themselves."""

    __slots__ = ("msgid", "fields")

    def __init__(self, msgid: str, **fields: Any):
        self.msgid, self.fields = msgid, fields

    def __str__(self) -> str:
        return self.msgid.format(**{k: _text(v) for k, v in self.fields.items()})

    def data(self) -> dict:
        """``{"msgid", "fields"}`` as plain JSON (nested sentences as such dicts, a list of
        sentences as a list of them)."""
        return {"msgid": self.msgid, "fields": {k: _data(v) for k, v in self.fields.items()}}


def _text(v):
    if isinstance(v, Said):
        return str(v)
    if isinstance(v, list):   # sentences, one a line
        return "\n".join(str(x) for x in v)
    return v


def _data(v):
    if isinstance(v, Said):
        return v.data()
    if isinstance(v, list):
        return [_data(x) for x in v]
    return v


def templates() -> tuple[str, ...]:
    """Every template the executor can report (the catalogs must translate each)."""
    return tuple(dict.fromkeys([v for k, v in globals().items()
                                if k.startswith("MSG_") and isinstance(v, str)]
                               + list(SCHEDULES.values())))


def schedule(name: str) -> Said | str:
    """A schedule's name as a sentence of its own (translated), or as it is when unknown."""
    return Said(SCHEDULES[name]) if name in SCHEDULES else name


def thread(block, thr) -> Said:
    return Said(MSG_THREAD, bx=int(block[0]), by=int(block[1]), bz=int(block[2]),
                tx=int(thr[0]), ty=int(thr[1]), tz=int(thr[2]))


_T = r"\((\d+),(\d+),(\d+)\)"
_L = r"(\S+:\d+)"
#: The runtime's (runtime.cpp) own sentences, read back into templates.
_RUNTIME = (
    (re.compile(rf"divergent __syncthreads\(\): thread {_T} waits at {_L} but thread {_T} "
                rf"waits at {_L}$"), MSG_DIVERGENT_BARRIER, ("ax", "ay", "az", "line", "bx", "by",
                                                             "bz", "other")),
    (re.compile(rf"__syncthreads\(\) at {_L} is not reached by every thread of the block: thread "
                rf"{_T} waits there but thread {_T} has exited$"), MSG_BARRIER_EXITED,
     ("line", "ax", "ay", "az", "bx", "by", "bz")),
    (re.compile(rf"__syncthreads\(\) at {_L} is not reached by every thread of the block: thread "
                rf"{_T} waits there but other threads have exited$"), MSG_BARRIER_OTHERS_EXITED,
     ("line", "ax", "ay", "az")),
    (re.compile(rf"warp-level primitive at {_L} is not reached by every live lane of the warp: "
                rf"thread {_T} waits there but thread {_T} waits at (\S+)$"), MSG_WARP_DIVERGENT,
     ("line", "ax", "ay", "az", "bx", "by", "bz", "other")),
    (re.compile(rf"warp-level primitive at {_L} is not reached by every lane its mask "
                rf"\((0x[0-9a-f]{{8}})\) names: thread {_T} waits there but thread {_T} waits at "
                rf"(\S+)$"), MSG_WARP_MASK_LANE,
     ("line", "mask", "ax", "ay", "az", "bx", "by", "bz", "other")),
    (re.compile(rf"lanes named in one mask \((0x[0-9a-f]{{8}})\) wait at different warp-level "
                rf"primitives: thread {_T} at (\S+) \({_L}\), thread {_T} at (\S+) \((\S+)\); "
                rf"every lane a mask names must execute the same primitive with that mask$"),
     MSG_WARP_KIND_CLASH,
     ("mask", "ax", "ay", "az", "what", "line", "bx", "by", "bz", "other_what", "other")),
    (re.compile(rf"warp-level primitive at {_L} in a block whose first thread never reached "
                rf"one$"), MSG_WARP_FIRST_THREAD, ("line",)),
    (re.compile(rf"__trap\(\) at {_L}$"), MSG_TRAP, ("line",)),
    (re.compile(rf"assert\((.*)\) failed at {_L}$", re.S), MSG_ASSERT, ("expr", "line")),
    (re.compile(r"bad launch shape: (\d+) threads per block, (\d+) blocks$"), MSG_BAD_SHAPE,
     ("threads", "blocks")),
)
_SIGNALS = {"segmentation fault": MSG_SEGV, "bus error": MSG_BUS, "arithmetic exception": MSG_FPE}


def runtime_finding(msg: str) -> Said:
    """The runtime's message as a Said (its file:line values stay as written)."""
    for pattern, msgid, names in _RUNTIME:
        m = pattern.match(msg.strip())
        if m:
            vals = {n: (int(v) if v.isdigit() else v) for n, v in zip(names, m.groups())}
            return Said(msgid, **vals)
    if "cannot map" in msg or "out of memory" in msg:
        return Said(MSG_NO_MEMORY)
    return Said(MSG_RUNTIME_OTHER, text=msg)


def signal_fault(msg: str) -> tuple[Said, str]:
    """(the signal, the address) of the runtime's fault message."""
    m = re.match(r"(segmentation fault|bus error|arithmetic exception) at address (\S+)", msg)
    if not m:
        return Said(MSG_SEGV), "?"
    return Said(_SIGNALS[m.group(1)]), m.group(2)
