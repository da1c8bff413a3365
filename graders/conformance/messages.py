"""Every sentence the conformance side says to a user, in one place (gettext msgids).

The checks word their own failures (``fail(TEMPLATE, ...)`` in ``checks/``); everything else
that ``andrea-conform``, the runner and the notebook reader say is here, as English msgids
with ``str.format`` placeholders, translated through ``graders/conformance/locale`` by
``i18n.Translator`` (``catalog.templates()`` finds them). Standard library only: any module
may import it.
"""

# ---- the runner (a check's outcome, the reproducer's last line)
MSG_MISSING = "function {function} is missing"
MSG_OPTIONAL = "optional function {function} is not provided"
MSG_ELSEWHERE = ("function {function} is missing; the checks of its own group count that, so "
                 "this check costs no points")
MSG_RAISED = "{function}() raised {exception}: {error}"
MSG_CHECK_BUG = "internal error in check {check}: {exception}: {error}"
MSG_FAULT = "{function}() could not answer: {detail}"
MSG_FAULT_NO_FUNCTION = "the implementation could not answer: {detail}"
MSG_FLAKY = "{function}() gave different results for the same input"
MSG_REPRODUCE_OR = "or: {command}"

# ---- notebooks (what was left out, a cell that raised): rendered by notes.py, for the
# self-check and the grader alike
MSG_DROPPED_MAGIC = "an IPython magic"
MSG_DROPPED_SHELL = "a shell command"
MSG_DROPPED_GET_IPYTHON = "a get_ipython() call"
MSG_DROPPED_HELP = "an IPython help request"
MSG_DROPPED_CELL_MAGIC = "a cell magic"
MSG_DROPPED_IPYTHON_IMPORT = "an import of IPython"
MSG_NOTE_DROPPED = ("Cell {cell}, line {line}: \u201c{text}\u201d was left out: {kind} only works "
                    "inside Jupyter, not in plain Python.")
MSG_DROPPED_MORE = "{n} more line(s) that only work inside Jupyter were left out too."
MSG_NOTE_CELL_RAISED = ("Cell {cell} raised {type}: {msg}; the cells after it were run (what it "
                        "would have defined is missing).")
MSG_NOTE_CELL_RAISED_AT = ("Cell {cell}, line {line} raised {type}: {msg}; the cells after it were "
                           "run (what it would have defined is missing).")

# ---- the per-check report (labels, explanations, summary line)
MSG_LABEL_PASS = "PASS"
MSG_LABEL_FAIL = "FAIL"
MSG_LABEL_ERROR = "ERROR"
MSG_LABEL_SKIP = "SKIP"
MSG_LABEL_NORUN = "NORUN"
MSG_EXPLAIN_CLAUSE = '{clause}: {statement}  [course section: "{title}"]'
MSG_EXPLAIN_NOT_IN_SPEC = "{clause}: (not in spec {spec})"
MSG_EXPLAIN_CHECK_BUG = ("the check itself broke (a bug in the conformance suite, not in the "
                         "implementation): {message}")
MSG_EXPLAIN_WRONG = "what went wrong: {message}"
MSG_EXPLAIN_HINT = "hint: {hint}"
MSG_EXPLAIN_SMALLEST = "smallest failing input:"
MSG_EXPLAIN_REPRODUCE = "reproduce:"
MSG_SUMMARY_PASSED = "{n} passed"
MSG_SUMMARY_FAILED = "{n} failed"
MSG_SUMMARY_ERRORS = "{n} errors"
MSG_SUMMARY_BROKEN = "{n} broken checks (the suite's fault)"
MSG_SUMMARY_SKIPPED = "{n} skipped"
MSG_SUMMARY_NOT_RUN = "{n} not run"

# ---- andrea-conform's own lines
MSG_CONFORM_HEADER = "{target} against spec {spec} (profile {profile})"
MSG_NOTE = "note"
MSG_CONFORMS = "conforms"
MSG_NO_NVRTC = ("NVRTC (the kit's gpu extra) is not installed here, so the kernel was built for "
                "the CPU executor only; the grader first compiles it for the GPU with NVRTC, "
                "which refuses host code that this build accepts (a helper without __device__, "
                "a main())")
MSG_DOES_NOT_CONFORM = "does not conform"

# ---- a result larger than the contract allows for its arguments (results.py), judged by its
# values (the kit's count, or the worker's) or by the bytes of the worker's reply (a string's
# characters can take several bytes each). Plural forms (gettext's ngettext), chosen by {want}:
# the msgid is the singular, PLURALS gives its plural and the field whose number chooses.
MSG_TOO_LARGE = ("{function}() returned {got} values where {want} was expected for these "
                 "arguments: a result this much larger than the contract's is not read")
PLURAL_TOO_LARGE = ("{function}() returned {got} values where {want} were expected for these "
                    "arguments: a result this much larger than the contract's is not read")
MSG_TOO_MANY_BYTES = ("{function}() returned a result of {got} bytes where {want} value was "
                      "expected for these arguments (at most {limit} bytes): a result this much "
                      "larger than the contract's is not read")
PLURAL_TOO_MANY_BYTES = ("{function}() returned a result of {got} bytes where {want} values were "
                         "expected for these arguments (at most {limit} bytes): a result this "
                         "much larger than the contract's is not read")
#: msgid (the singular) -> (the plural msgid, the field whose number chooses the form)
PLURALS = {
    MSG_TOO_LARGE: (PLURAL_TOO_LARGE, "want"),
    MSG_TOO_MANY_BYTES: (PLURAL_TOO_MANY_BYTES, "want"),
}

# ---- why a submission has no module to import (submission.py; the grader's report says the
# same msgid, graders/grade/messages.py re-exports them)
MSG_NO_MODULE = "No Python module found in the submission (expected one .py file)."
MSG_NOT_A_NOTEBOOK = ("{name} is not a Jupyter notebook that can be read; save it again from "
                      "Jupyter.")
MSG_MANY_MODULES = ("The submission has several Python modules ({names}); put one module in the "
                    "folder or name it submission.py.")
MSG_KIT_NAME = ("{names} in the submission has the name of one of the grader's own packages "
                "({package}); rename it, and its imports.")
