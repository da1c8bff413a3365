"""Hints for common bugs, attached to a failure when its symptom matches.

Each hint is an English sentence and doubles as the gettext msgid that the grader translates.
"""

WRAP_AROUND = ("Negative or too-large ids must raise IndexError: check the range before "
               "indexing (Python/NumPy indexing silently wraps -1 around to the last row, and "
               "clipping turns a bad id into a valid one).")
SHIFTED_IDS = "Token id i selects row i: check for an off-by-one shift between ids and rows."
NOT_INTEGER = "Token ids must be integers; check the dtype before indexing (floats and bools are a TypeError)."
POSITION_ROWS = "Position t adds row t of the position table: x_t = token_table[id_t] + position_table[t]."
POSITION_PER_ROW = ("Positions restart at 0 in every row of a batch: for ids of shape (B, T), "
                    "x[b, t] = token_table[ids[b, t]] + position_table[t], whatever b is.")
REPEATED_IDS = ("Repeated ids must accumulate their gradients (scatter-add); assigning with "
                "grad[ids] = ... keeps only the last one.")
BATCH_SUM = "The position gradient sums grad_out over the batch dimension, not the mean."
INIT_SCALE = "Entries should be drawn with std 1/sqrt(d_model), e.g. rng.standard_normal(...) / sqrt(d_model)."
INIT_STD = ("Entries should be drawn with the std the spec gives (see the message), e.g. "
            "std * rng.standard_normal(shape).")
INIT_RNG = ("Draw every number from the Generator passed in as rng, not from np.random's global "
            "state or a Generator you seed yourself.")
MUTATION = "Work on copies: a function must not modify the arrays it is given."
CONTEXT = "A sequence longer than the position table has no position rows: raise ValueError."
ZERO_VECTOR = "The cosine of a zero vector is undefined: raise ValueError instead of dividing by zero."
DTYPE = "Keep float32 data in float32; an accidental float64 result doubles memory and traffic."
ARITHMETIC_LOOKUP = ("A lookup copies rows; it does no arithmetic. Here -0.0 turned into 0.0 or a NaN "
                     "spread to other entries, which happens when the rows are computed (e.g. a "
                     "one-hot matrix product) instead of indexed: use table[token_ids].")
KERNEL_HOST_CODE = ("A kernel file holds device code only: mark every helper function a kernel "
                    "calls __device__, and leave the host code you tested with (main, "
                    "cudaMalloc, cudaMemcpy, <<<...>>> launches) out of the file, or put it "
                    "between #ifndef __CUDACC_RTC__ and #endif; the grader launches your "
                    "kernels itself.")


def host_code_in_log(log) -> bool:
    """Whether NVRTC's log rejects host code in a kernel file: an unannotated (host) function,
    the runtime API's host functions (not declared for device code), a <<<...>>> launch."""
    import re

    return bool(re.search(r"host functions are not allowed in JIT mode|calling a __host__ "
                          r"function|identifier \"cuda[A-Z]\w*\" is undefined|<<<",
                          str(log or "")))


RAISED = ("Your function raised an exception where the spec expects a result (or a "
          "different exception); run the reproducer below to see the traceback.")
