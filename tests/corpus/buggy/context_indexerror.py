# bug: a sequence longer than the context raises IndexError ("no position row") instead of ValueError
# fails: sequence_longer_than_context, backward_errors
def _sequence(ids, context):
    if ids.ndim not in (1, 2):
        raise ValueError("token ids must be (T,) or (B, T)")
    if ids.shape[-1] > context:
        raise IndexError("no position row for this position")
    return ids.shape[-1]
