"""Hostile (unbounded grader): returns values whose repr is enormous, hoping the grader puts
them whole into its messages, reports and memory: 300 MiB of bytes, a 12-million-character
string, a list of two million numbers, and an int of 100000 digits.

Expected: each check fails or errors with a message of bounded size; every output format stays
under 5 MB and the grader's memory under 1.5 GB.
"""


def token_embedding_params(vocab_size, d_model):
    return b"x" * (300 << 20)


def position_embedding_params(context_length, d_model):
    return "y" * 12_000_000


def embedding_params(vocab_size, context_length, d_model):
    return list(range(2_000_000))


def dot(u, v):
    return 10 ** 100_000
