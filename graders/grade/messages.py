"""Every sentence the grader shows, in one place: English msgids of the gettext catalogs.

The Dutch and Korean translations live in ``graders/conformance/locale/<lang>/LC_MESSAGES/``; the
hints that checks attach (``graders.conformance.hints``) and the spec's group titles are msgids
of the same catalogs. Placeholders use ``str.format`` names, and translations keep them.
"""

from graders.conformance.hints import (KERNEL_HOST_CODE as KERNEL_HOST_CODE_HINT,  # noqa: F401
                                       host_code_in_log)
# Python's own exceptions and messages, in the reader's language: graders.conformance.i18n (the
# self-check says them too), re-exported here with the grader's other sentences.
from graders.conformance.i18n import (EXCEPTION_NAMES, PYTHON_MESSAGE_IDS,  # noqa: F401
                                      PYTHON_MESSAGES, exception_name, python_message)
# Why a submission has no module to import: the submission model's (graders.conformance.submission)
from graders.conformance.messages import (MSG_KIT_NAME as KIT_NAME,  # noqa: F401
                                          MSG_MANY_MODULES as MANY_MODULES,
                                          MSG_NO_MODULE as NO_MODULE,
                                          MSG_NOT_A_NOTEBOOK as NOT_A_NOTEBOOK)

# --- statuses and labels
PASSED = "passed"
FAILED = "failed"
ERROR = "error"
SKIPPED = "skipped"
NOT_RUN_LABEL = "not run"
NOTHING_WRONG = "Nothing went wrong: every check passed."
OPTIONAL_GROUP_SKIPPED = "optional functions not provided (this costs no points)"
OPTIONAL_SKIPPED = "Optional, not provided: {function}. This costs no points."
ELSEWHERE_SKIPPED = ("Not judged here: {function} is missing, which the checks of its own "
                     "group count. This check costs no points.")
CHECK_BUG = ("This check broke because of a bug in the grader, not in your code; it counts as "
             "passed. Please tell your teacher.")
NOT_RUN_IMPORT = "not run: your submission could not be imported (see the summary)"
NOT_RUN_BUDGET = ("not run: budget exhausted (your submission used up its {seconds} s before "
                  "this check)")
HINT_BUDGET = ("Your submission used up its time budget before this check could start; make the "
               "slow functions faster (whole-array NumPy operations instead of Python loops).")
SCORE = "Score"
GROUP = "Group"
STATUS = "Status"
POINTS = "Points"
WHAT_WENT_WRONG = "What went wrong"
SMALLEST_INPUT = "Smallest failing input"
COURSE_SECTION = "Course section"
HINT = "Hint"
REPRODUCE = "Reproduce it"
CHECKS_PASSED = "{passed} of {total} checks passed"
TOTAL_SCORE = "Total score: {score} / {max_score}"
GRADING_TOOK = "Graded in {seconds:.1f} s."
SUBMISSION_OUTPUT = "Output your submission printed (first {n} characters, for your information only):"
HIDDEN_GROUPS = "{n} group(s) of checks are hidden or shown after the due date."
RESTARTS = "Your submission's process was restarted {n} time(s) after a fault."
ISOLATION = "Isolation: {mode}"
# {mode} of ISOLATION, by the sandbox's mode (the report's isolation.mode keeps the tool's name)
ISOLATION_MODES = {"bwrap": "isolated", "container": "isolated (container)",
                   "rlimits": "not isolated, for trusted code only"}
SECTION_CLAUSE = "\u201c{section}\u201d, clause {clause}: {statement}"

# --- import problems
IMPORT_FAILED = "Your submission could not be imported, so no check could run."
IMPORT_ERROR_AT = "{type} at line {line}: {msg}"
IMPORT_ERROR = "{type}: {msg}"
IMPORT_HINT = "Fix this error so that your module imports cleanly; until then every check scores zero."
IMPORT_ERROR_AT_CELL = "{type} in cell {cell}, line {line}: {msg}"
FLAG_REFERENCE_COPY = ("{share}% of this submission's code fingerprints are the reference "
                       "implementation's (renaming, reformatting and removing comments do not "
                       "change this figure); review it before accepting the score")
# A submission whose source reaches into the grader (graders/grade/tamper.py): for the staff
FLAG_TAMPER = ("this submission's source reaches into the grader's machinery in {count} "
               "place(s) ({rules}): {places}. A submission that can tell it is being graded "
               "may behave differently then; read those places before accepting the score")
TAMPER_PLACE = "{file}, line {line}"
TAMPER_PLACE_IN_CELL = "{file}, cell {cell}, line {line}"
STAFF_SUMMARY = "For the staff: score {score} / {max_score}; {n} flag(s)."
AUTOGRADER_FAILED = ("The autograder could not grade this submission; this is not a verdict on "
                     "your work. Please tell the course staff.")

# --- what a fault was (proxy.py fills in the call and the numbers; the runner shows it as the
# {detail} of "{function}() could not answer: {detail}")
FAULT_TIMEOUT = "{what} did not finish within {seconds} s (an endless loop, or far too slow)"
FAULT_REPLY_TOO_LARGE = "{what} sent back more than {mib} MiB"
FAULT_REPLY_OVER_BOUND = ("{what}: the process running your code sent an answer of {got} bytes, "
                          "more than any result for these arguments can take ({limit} bytes)")
FAULT_MALFORMED_REPLY = "{what}: the process running your code sent an unreadable answer ({error})"
FAULT_OUTPUT = "{what} printed more than {limit} bytes of output"
FAULT_CPU = "{what}: the process running your code used up its CPU time limit"
FAULT_FILE_SIZE = "{what}: the process running your code wrote a file larger than allowed"
FAULT_SIGNAL = "{what}: the process running your code crashed with {signal}"
FAULT_PIPE_CLOSED = "{what}: the process running your code stopped without answering"
FAULT_EXIT = ("{what}: the process running your code exited with status {code} (os._exit, "
              "sys.exit or a crash)")
FAULT_FIRST_REPLY = "{what}: the process running your code gave an unexpected first answer"
FAULT_BUDGET = ("budget exhausted: {what} was not called because the submission used up its "
                "total time of {seconds} s")
FAULT_CHECK_TIME = "{what} not called: this check used up its time of {seconds} s"
FAULT_TIMED_OUT_BEFORE = "{what} not called again: it timed out {n} time(s) before"
FAULT_FORBIDDEN = ("the submission imports {module}, which is not allowed (the reference and the "
                   "grader are off limits)")
FAULT_MEMORY = "{what}: the submission {detail} (memory limit {mib} MiB)"
FAULT_SUBMISSION = "{what}: the submission {detail}"
WHAT_IMPORT = "importing the submission"   # the {what} of a fault while importing
# the {what} of a fault while a worker is started again for a call ({call}: "dot()")
WHAT_RESTART = "restarting the submission for {call}"
FAULT_REIMPORT = "{what}: the submission failed to import again ({error})"
# What the worker saw the submission do ({detail} of FAULT_SUBMISSION and FAULT_MEMORY).
DETAIL_EXIT_IMPORT = "called sys.exit({code}) while importing"
DETAIL_EXIT_CALL = "called sys.exit({code}) in {function}()"
DETAIL_INTERRUPT_CALL = "raised KeyboardInterrupt in {function}()"
DETAIL_MEMORY_IMPORT = "ran out of memory while importing"
DETAIL_MEMORY_CALL = "ran out of memory in {function}()"
DETAIL_MEMORY_RESULT = "ran out of memory sending the result of {function}()"
DETAIL_MEMORY_TOGETHER = "used more memory than allowed, counting every process it started"
SIGNAL_SEGV = "a segmentation fault (SIGSEGV)"
SIGNAL_ABRT = "an abort (SIGABRT)"
SIGNAL_BUS = "a bus error (SIGBUS)"
SIGNAL_FPE = "a floating-point trap (SIGFPE)"
SIGNAL_ILL = "an illegal instruction (SIGILL)"
SIGNAL_KILL = "SIGKILL (possibly the system's out-of-memory killer)"

# --- hints for faults and missing functions
KERNEL_COMPILE_FAILED = "Your kernel file does not compile; the compiler says:\n{log}"
KERNEL_REFUSED = "Your kernel file was not compiled:\n{log}"
IMPORT_HINT_KERNEL = ("Fix this error so that your kernel file compiles; until then every check "
                      "scores zero.")
HINT_KERNEL_HOST_CODE = KERNEL_HOST_CODE_HINT
HINT_EXECUTOR_GAP = ("Your kernel compiles for the GPU, but the checker's CPU executor cannot run "
                     "it yet: this is a gap of the checker, not an error in your kernel. Tell "
                     "your instructor; no check could run.")
HINT_TIMEOUT_KERNEL = ("Look for a loop that never ends, a grid-stride or block-stride loop whose "
                       "index never grows, or a __syncthreads() inside a loop that runs once per "
                       "element; keep the barriers per block few. This limit is the wall time of "
                       "the checker's CPU executor, which runs your kernel on a CPU (a kernel's "
                       "own cost is judged by its memory accesses, as on a GPU).")
HINT_TIMEOUT = ("Look for a loop that never ends, or a Python loop over every token; whole-array "
                "NumPy operations are fast enough.")
HINT_CRASH = ("The process running your code died: look for os._exit, sys.exit, or C code "
              "(ctypes) that crashes.")
HINT_RESOURCES = ("Your code used too much memory or CPU time: avoid building arrays much larger "
                  "than the input, such as a dense one-hot matrix.")
HINT_OUTPUT = "Remove print statements from your functions; output is limited."
HINT_FORBIDDEN = ("Submissions may not import the reference implementation or the grader; "
                  "write the functions yourself.")
HINT_MISSING = ("Define every function of the contract, with exactly the names and parameters "
                "of the assignment; a missing function scores zero for its checks.")
SCORE_HIDDEN = ("Your total score is shown once all groups of checks are published; the "
                "groups shown now are:")

# --- the batch's summary for the teacher (summary.txt, summary.html, scores.png)
SUMMARY_COUNTS = "{title}: {n} submissions, {graded} graded"
SUMMARY_STATS = "mean {mean:.2f}, median {median:.2f}, full marks {full}, zero {zero}"
SUMMARY_HISTOGRAM = "score histogram (the last bin is full marks only):"
SUMMARY_PROBLEMS = "problems (why no grade or 0):"
SUMMARY_FAILED = "checks failed most often:"
SUMMARY_FAILED_TITLE = "Checks failed most often"
SUMMARY_CHECK = "check"
SUMMARY_CLAUSES = "clauses"
SUMMARY_STUDENTS = "students"
SUMMARY_MESSAGE = "most common message"
SUMMARY_NONE = "(none)"
SUMMARY_TITLE = "{title}: batch summary"
SUMMARY_PAIRS = "{n} similar pair(s):"
SUMMARY_SIMILARITY = "similarity report"
HISTOGRAM_FULL = "{top} (full)"
HISTOGRAM_ALT = "score histogram"
HISTOGRAM_X = "score (of {top}); the green bar is full marks only"
HISTOGRAM_Y = "submissions"
HISTOGRAM_TITLE = "{title}: {n} graded"
# the CSV's `problem` codes (batch_reports.problem_of), as the summary says them
PROBLEMS = {c: c for c in (
    "not graded", "no module", "several modules", "not a notebook",
    "module named like the grader's", "syntax error", "compile error", "forbidden import",
    "timeout at import", "crash at import", "out of memory at import", "output flood at import",
    "no check passed")}
PROBLEM_IMPORT = "import error: {type}"
PROBLEM_NOT_GRADED = "not graded: {reason}"
PROBLEM_TEMPLATES = {"import error: {type}": PROBLEM_IMPORT,
                     "not graded: {reason}": PROBLEM_NOT_GRADED}
SIMILAR_TITLE = "Similar submissions"
SIMILAR_ABOUT = ("Pairs whose normalised code fingerprints overlap at or above the threshold "
                 "(renaming, reformatting and comments do not change the figure). A flag is a "
                 "reason to look, not a verdict; it does not change any score.")
SIMILAR_NONE = "No pair."
# --- the batch's HTML pages for the teacher (summary.html, similarity.html)
REPORT_STUDENTS = "Students"
REPORT_SORT_HINT = "Click a column heading to sort the table by it."
REPORT_SUBMISSION = "Submission"
REPORT_SCORE = "Score"
REPORT_PROBLEM = "Problem"
REPORT_FLAGS = "Flags"
REPORT_OPEN_FEEDBACK = "feedback file"
REPORT_MEAN = "Mean of the graded"
REPORT_NAMES_LINK = "A submission's name opens its feedback file."
REPORT_NOT_GRADED = "no grade"
REPORT_SCORES = "Scores"
REPORT_PROBLEMS = "Why no grade or zero"
REPORT_FLAG_REFERENCE = "{share:.0%} like the reference"
REPORT_FLAG_SIMILAR = "{share:.0%} like {other}"
REPORT_FLAG_SIMILAR_MORE = "and {n} more alike"
REPORT_FLAG_TAMPER = "reaches into the grader ({n} place(s))"
REPORT_MESSAGE_STUDENTS = "{n} of them"
REPORT_SIMILARITY = "Similarity"
REPORT_FRAGMENTS = "Shared fragments"
REPORT_COMPARE = "compare side by side"
REPORT_MORE_PAIRS = "{n} more pair(s) are not shown here; the gradebook CSV's flags column lists every pair."
SIMILAR_PAIRS_TITLE = "Pairs"
SIMILAR_FIGURE = ("{share:.0%} of the smaller submission's code fingerprints are found in the "
                  "other (flagged from {threshold:.0%}).")
SIMILAR_HOW = ("What was compared: the Python files of each submission, as normalised tokens. "
               "Comments, docstrings, blank lines and layout are left out; every name (a "
               "builtin, an attribute, a dotted name such as np.add.at read as one) but a "
               "keyword is the same placeholder, every number and every string another, and "
               "statements that do nothing are left out. A fingerprint is {k} tokens in a row; fingerprints "
               "that many submissions share (a template, the assignment's signatures) are not "
               "counted or highlighted.")
SIMILAR_FILES = "Files compared: {files}"
SIMILAR_NO_PYTHON = "(no Python file)"
SIMILAR_FRAGMENTS_ABOUT = ("{n} shared fragment(s), in matching colours on both sides; a click "
                           "on a highlighted line number jumps to the same fragment on the "
                           "other side.")
SIMILAR_LINES = "lines {first}\u2013{last}"
SIMILAR_LINES_IN = "{file}, lines {first}\u2013{last}"
SIMILAR_FRAGMENT = "fragment {n}"
SIMILAR_LENGTH = "Length (tokens)"
SIMILAR_REFERENCE = "Reference"
SIMILAR_CUT = "Only the first {n} lines are shown."
SIMILAR_BACK = "back to the list"
SIMILAR_REFERENCE_TITLE = "Submissions like the reference"
SIMILAR_REFERENCE_FIGURE = ("{share:.0%} of this submission's code fingerprints are the reference "
                            "implementation's (flagged from {threshold:.0%}).")
SIMILAR_REFERENCE_ABOUT = ("The reference's own text is not shown: each highlighted fragment "
                           "names the reference file and lines it matches.")
SIMILAR_REFERENCE_NONE = "No submission is flagged as a copy of the reference."
SIMILAR_TAMPER_TITLE = "Submissions that reach into the grader"
SIMILAR_TAMPER_ABOUT = ("Places in a submission's source that reach into the grader's machinery: "
                        "its runtime or its packages by name, the interpreter's objects (gc, "
                        "frames, sys.modules), native memory (ctypes, mmap), process tricks, or "
                        "code built at run time from data. A submission that can tell it is "
                        "being graded may behave differently then: every verdict describes what "
                        "it did with the data the grader gave it. Read these places before "
                        "accepting the score; the flag never changes it.")
SIMILAR_TAMPER_NONE = "No submission reaches into the grader."
SIMILAR_TAMPER_PLACE = "Place"
SIMILAR_TAMPER_RULE = "Kind"
SIMILAR_TAMPER_CODE = "Code"
SIMILAR_TAMPER_MORE = "{n} more place(s) are not listed."

# --- group titles (data of the spec, translated here)
GROUP_TITLES = (
    "Parameter counts", "Token lookup", "Token + position embedding", "Initialisation",
    "Backward pass", "Dot product, norm and cosine", "Position encodings (reference only)",
    "Spec arithmetic",
)


def fault_detail(detail: dict, t=None) -> str:
    """A fault's text (``{"msgid", "fields"}`` from ``ImplementationFault.translatable``) in the
    translator's language; the signal's description is a sentence of its own."""
    t = t or (lambda msgid, **kw: msgid.format(**kw) if kw else msgid)
    fields = dict(detail.get("fields") or {})
    call = fields.pop("what_call", None)
    for name in ("signal", "what"):   # a sentence of its own; a call such as dot() stays as it is
        if isinstance(fields.get(name), str):
            fields[name] = t(fields[name])
    if isinstance(call, str):         # a fault while the worker was started again for `call`
        fields["what"] = t(WHAT_RESTART, call=call)
    said = fields.pop("detail_said", None)   # what the worker saw, a sentence of its own
    if isinstance(said, dict) and isinstance(said.get("msgid"), str):
        fields["detail"] = t(said["msgid"], **dict(said.get("fields") or {}))
    return t(detail["msgid"], **fields)


def import_hint(error_type: str | None, kernel: bool, error_msg: str | None = None) -> str:
    """The hint under an import failure (`error_type`: the exception's type, if any, and
    `error_msg` its message): a kernel the checker's CPU executor cannot build (ExecutorGap:
    it compiles for the GPU) is not the student's to fix; a kernel file that does not compile
    because it holds host code (a helper without __device__, the main() it was tested with) is
    told so."""
    if kernel and error_type == "ExecutorGap":
        return HINT_EXECUTOR_GAP
    if kernel and error_type == "CompileError" and host_code_in_log(error_msg):
        return HINT_KERNEL_HOST_CODE
    return IMPORT_HINT_KERNEL if kernel else IMPORT_HINT


def import_detail(imp, t=None, *, kernel: bool = False) -> str:
    """Why the import failed (a report.NoModule or report.ImportFailed, or its JSON form), in the translator's
    language (English without one); `kernel`: the submission is a .cu file (its compile
    step's feedback)."""
    from .report import ImportErrorInfo, NoModule, import_outcome_from_dict

    t = t or (lambda msgid, **kw: msgid.format(**kw) if kw else msgid)
    if isinstance(imp, dict):   # its JSON form (a report's "import")
        imp = import_outcome_from_dict(imp)
    if isinstance(imp, NoModule):
        return t(imp.problem, **imp.fields)
    if imp.fault_detail is not None:
        return fault_detail(imp.fault_detail.to_dict(), t)
    if imp.fault:
        return imp.fault
    err = imp.error or ImportErrorInfo("Error", "")
    if err.type == "CompileError" and kernel:
        return compile_detail(err.to_dict(), t)
    typ, msg = exception_name(err.type, t), python_message(err.type, err.msg, t)
    if err.line and err.cell:   # a notebook: the cell and the line in it
        text = t(IMPORT_ERROR_AT_CELL, type=typ, cell=err.cell, line=err.line, msg=msg)
    elif err.line:
        text = t(IMPORT_ERROR_AT, type=typ, line=err.line, msg=msg)
    else:
        text = t(IMPORT_ERROR, type=typ, msg=msg)
    if err.text:
        text += "\n    " + err.text.strip()
    return text


# A check that broke on the submission's value (and not on the reference): the check failed.
CHECK_BROKE_ON_RESULT = ("a value the submission returned made this check break ({exception}: "
                         "{error}); the check does not break on the reference implementation, "
                         "so that value is wrong (its type, size or shape)")


# --- the kernel executor's findings (andrea_gpu/executor/findings.py: a data race, an
# out-of-bounds access, barrier misuse, ...): its own templates, translated by these catalogs.
def executor_templates() -> tuple[str, ...]:
    from andrea_gpu.executor import findings

    return findings.templates()


_SAID_DEPTH = 4


def executor_said(data, depth: int = 0) -> dict | None:
    """`data` as ``{"msgid", "fields"}`` when it is an executor sentence whose values are plain
    numbers, short strings or such sentences, else None (it came from the submission's
    process: a grader uses only what it can check)."""
    if depth > _SAID_DEPTH or not isinstance(data, dict) or set(data) != {"msgid", "fields"}:
        return None
    msgid, fields = data["msgid"], data["fields"]
    if not isinstance(msgid, str) or msgid not in executor_templates() \
            or not isinstance(fields, dict) or len(fields) > 16:
        return None
    clean: dict = {}
    for k, v in fields.items():
        if not isinstance(k, str) or not k.isidentifier():
            return None
        if isinstance(v, dict):
            v = executor_said(v, depth + 1)
            if v is None:
                return None
        elif isinstance(v, list):   # sentences, one a line
            v = [executor_said(x, depth + 1) for x in v[:20]]
            if not all(v):
                return None
        elif isinstance(v, bool) or not isinstance(v, (str, int, float, type(None))):
            return None
        elif isinstance(v, str):
            v = v[:300]
        clean[k] = v
    try:   # every value the template names is there
        msgid.format(**{k: "" if isinstance(v, dict) else v for k, v in clean.items()})
    except (KeyError, IndexError, ValueError, AttributeError):
        return None
    return {"msgid": msgid, "fields": clean}


def compile_detail(err: dict, t) -> str:
    """Why a kernel file did not compile: the kit's refusal in the reader's language, or the
    compiler's own log as it wrote it under a translated sentence."""
    said = err.get("said")
    lines = [executor_said(s) for s in said] if isinstance(said, list) and len(said) <= 20 \
        else None
    if lines and all(lines):
        return t(KERNEL_REFUSED, log="\n".join(said_text(s, t) for s in lines))
    return t(KERNEL_COMPILE_FAILED, log=str(err.get("msg", "")))


def said_text(said: dict, t=None) -> str:
    """An executor sentence (checked by executor_said) in the translator's language."""
    t = t or (lambda msgid, **kw: msgid.format(**kw) if kw else msgid)
    fields = {k: said_text(v, t) if isinstance(v, dict)
              else "\n".join(said_text(x, t) for x in v) if isinstance(v, list) else v
              for k, v in (said.get("fields") or {}).items()}
    return t(said["msgid"], **fields)


# A kernel's finding (a data race, an out-of-bounds access, ...) is a sentence of its own: the
# executor's exception class is not named.
KERNEL_FINDING = "{function}(): {error}"
KERNEL_FINDING_INSTEAD = "{function}(): {error}; it should raise {want}"

