"""Hostile (hidden verdicts): learn a hidden result from what is visible now.

Handed in after a correct submission's text (the test joins them): embed_backward, whose
group is shown only after the due date, is wrong (it drops every gradient) and prints the
inputs it is given. A student who
hands in this and the correct version compares what Gradescope shows before the due date:
the summary's "Nothing went wrong: every check passed." line was there for the correct one
and gone for this one, so a hidden check's failure could be read off a visible line (and the
same for restarts, what the submission printed and the time taken, which count every call).

Expected: everything visible before the due date (the summary, the visible tests, the
feedback file's text but for after-the-due-date sections) is the same for both.
"""
import numpy as np


def embed_backward(token_ids, grad_out, vocab_size, context_length):
    print("HIDDEN-INPUT", np.shape(token_ids), vocab_size, context_length)   # the hidden inputs
    d = np.shape(grad_out)[-1]
    return (np.zeros((vocab_size, d), dtype=np.float32),
            np.zeros((context_length, d), dtype=np.float32))
