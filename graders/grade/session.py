"""One submission's worker from its scratch folder to its removal: prepare -> launch -> run -> close.

``grade()`` has one path through it. The worker may be launched early, before the grader
loads its checks, so that Python, NumPy and the submission's import overlap that work
(:meth:`Session.launch_early`); whether it was or not, :meth:`Session.run` prepares and
starts what is not yet there, imports the submission, runs the caller's body on the proxy and
closes the worker, and :meth:`Session.close` removes everything (also of a session that is
dropped before it ran).
"""

from __future__ import annotations

from typing import Callable

from .proxy import Outcome, SubmissionProxy
from .sandbox import Limits, SandboxError, Scratch, bwrap_not_refused, prepare


class Session:
    """The worker of one submission (its files, the module to import, kernel or Python), run
    under `limits` in sandbox `mode` ('bwrap' or 'rlimits'), answering `functions`."""

    def __init__(self, files: dict[str, bytes], module: str, *, functions: list[str],
                 limits: Limits, mode: str, kernel: bool = False,
                 kernel_contract: dict | None = None, cells: str = ""):
        self.files, self.module, self.functions = files, module, functions
        self.limits, self.mode = limits, mode
        self.kernel, self.kernel_contract, self.cells = kernel, kernel_contract, cells
        self.scratch: Scratch | None = None
        self.proxy: SubmissionProxy | None = None

    # ------------------------------------------------------------------ the steps
    def prepare(self) -> SubmissionProxy:
        """The scratch folder and the proxy (once); OSError where the folder cannot be made."""
        if self.proxy is None:
            self.scratch = prepare(self.files, self.module, kernel=self.kernel,
                                   kernel_contract=self.kernel_contract, cells=self.cells)
            self.proxy = SubmissionProxy(self.scratch, self.limits, self.mode, self.functions)
            self.proxy.kernel_outputs = self.kernel   # embed_backward(..., outputs=)
        return self.proxy

    def launch(self) -> None:
        """Start the worker; its import runs while the caller goes on (:meth:`start` waits)."""
        self.prepare().launch()

    def start(self) -> Outcome:
        """The submission imported in its worker (launched now unless it already was)."""
        return self.prepare().start()

    def run(self, body: Callable[[SubmissionProxy, Outcome], dict]) -> dict:
        """Start, call ``body(proxy, outcome)``, close; the body's dict with what the worker
        printed, its restarts, CPU time and faults added (also when the body raised)."""
        run: dict = {}
        try:
            run.update(body(self.prepare(), self.start()))
        finally:
            self.close(into=run)
        return run

    def close(self, into: dict | None = None) -> None:
        """Stop the worker (confirming everything it started is gone) and remove the scratch
        folder; `into` receives what the worker left behind (its output, restarts, ...)."""
        proxy, scratch = self.proxy, self.scratch
        try:
            if proxy is not None:
                proxy.close()
        finally:
            if proxy is not None and into is not None:
                # before any check ran (an import that failed) everything is visible
                visible = proxy.visible_output
                into.update(submission_output=proxy.output.text(), restarts=proxy.restarts,
                            visible_output=(proxy.output.text() if visible is None else
                                            visible.decode("utf-8", errors="replace")),
                            visible_restarts=(proxy.restarts if proxy.visible_restarts is None
                                              else proxy.visible_restarts),
                            worker_cpu_s=round(proxy.worker_cpu_s, 3),
                            faults=[f[:500] for f in proxy.faults[:20]])
            if scratch is not None:
                scratch.cleanup()

    # ------------------------------------------------------------------ early start
    @classmethod
    def launch_early(cls, sandbox: str, **kwargs) -> "Session | None":
        """A session whose worker is already starting, or None where anything on the way fails
        (the same step then fails again in its place, in the order the caller's mistakes
        first, then isolation, then the sandbox). Under bubblewrap the worker starts while
        bubblewrap's probe still runs: bubblewrap that cannot isolate starts nothing, and a
        probe that fails stops this worker before any check."""
        if sandbox in ("auto", "bwrap"):             # the probe's answer is awaited later
            if not bwrap_not_refused():
                return None
            mode = "bwrap"
        elif sandbox in ("none", "rlimits"):
            mode = "rlimits"
        else:
            return None
        session = cls(mode=mode, **kwargs)
        try:
            proxy = session.prepare()
        except (RuntimeError, OSError, SandboxError):
            session.close()
            return None
        try:
            proxy.launch()
        except SandboxError:
            session.close()
            return None
        except BaseException:
            session.close()
            raise
        return session
