"""How a worker process is started and stopped: limits, scratch folder, environment, bubblewrap.

One module per job: ``probe`` (can untrusted code be isolated here? ``choose_mode``),
``features`` (the interpreter and bubblewrap's options), ``mounts`` (what the worker sees),
``scratch`` (the submission's scratch folder and the worker's runtime), ``limits`` (rlimits and
the memory cgroup), ``processes`` (finding, timing and killing the worker's processes) and
``launch`` (one worker start's command line, environment and pre-exec step), and
``container`` (the container mode's preparation and check). This package
exports what the grader uses; a worker's whole life (prepare, launch, run, close) is one
``graders.grade.proxy.Session``.

Untrusted code runs only where it can neither signal, trace nor read the grader, nor write
anything the grader later trusts. ``choose_mode`` decides, once per grader process:

* ``bwrap`` (``--sandbox auto`` or ``bwrap``): the worker runs in bubblewrap with new mount,
  PID, network, IPC and UTS namespaces: an empty root with read-only binds of /usr, the Python
  installation, the installed packages (minus the kit's own and the test tooling),
  the worker's runtime and the submission copy. The
  only writable place is one size-limited tmpfs (``Limits.max_disk_mb``) holding the worker's
  home, ``/tmp`` and ``/dev/shm``; it is new for every worker start and vanishes with it. The
  project, the spec, answers, the gradebook and result files do not exist in there. Run as
  root, the worker drops to a uid of its own (checked to own no process) before it imports
  the submission; as another user, bubblewrap maps it into a user namespace. What the
  installed bubblewrap offers is read from ``bwrap --help`` (``features.bwrap_features``),
  never assumed from its version (0.6 has no ``--size``: its tmpfs is bounded by the memory
  cgroup).
* ``container`` (``--sandbox container`` only, never chosen otherwise): for disposable
  one-submission containers where namespaces cannot be made; root only. The grader's files
  are made root-only and the shared writable folders closed to others, which a process under a
  worker uid then checks (``container.prepare_container``); each worker runs under a uid of its
  own with the seccomp filter, the rlimits, a memory cgroup where possible and a private folder.
* ``rlimits`` (``--sandbox none``): no namespaces, for **trusted code only** (your own
  reference solutions, tests of the grader). The same limits, fresh folders, scrubbed
  environment and import guard, and a private uid where the grader is root and the
  interpreter is readable by others; but no private /tmp, no write quota, and without a
  private uid the code can signal the grader. ``auto`` never falls back to it: where
  bubblewrap cannot run, grading **fails closed** with :class:`IsolationUnavailable`.

All set rlimits (CPU seconds, address space, processes, file size, open files, no core
files), a parent-death signal and a new session; :func:`kill_leftovers` then kills the worker
and everything it started, and confirms they are gone before it returns.
"""

from .container import PROTECT_ENV, SHARED_WRITABLE, grader_files, prepare_container
from .errors import IsolationUnavailable, SandboxError
from .features import BWRAP_ENV, BWRAP_REQUIRED, bwrap_features, bwrap_path
from .launch import FORBIDDEN_MODULES, KERNEL_FORBIDDEN, plan
from .limits import Limits, MemoryCgroup
from .mounts import IN_SANDBOX
from .probe import (CONTAINER_HINT, bwrap_not_refused, choose_mode, probe_bwrap, refusal,
                    start_probe)
from .processes import MARKER, LaunchPlan, cpu_seconds, kill_leftovers, read_bwrap_info
from .scratch import (CELLS_FILE, KERNEL_CONTRACT_FILE, KERNEL_RUNTIME_EXCLUDED, RUNTIME_PACKAGE,
                      WORKER, Scratch, package_folder, prepare)

__all__ = ["BWRAP_ENV", "bwrap_features", "bwrap_not_refused", "bwrap_path", "BWRAP_REQUIRED",
           "CELLS_FILE", "choose_mode", "CONTAINER_HINT", "cpu_seconds", "FORBIDDEN_MODULES",
           "grader_files", "IN_SANDBOX", "IsolationUnavailable", "KERNEL_CONTRACT_FILE",
           "KERNEL_FORBIDDEN", "KERNEL_RUNTIME_EXCLUDED", "kill_leftovers", "LaunchPlan",
           "Limits", "MARKER", "MemoryCgroup", "package_folder", "plan", "prepare",
           "prepare_container", "probe_bwrap", "PROTECT_ENV", "read_bwrap_info", "refusal",
           "RUNTIME_PACKAGE", "SandboxError", "Scratch", "SHARED_WRITABLE", "start_probe",
           "WORKER"]
