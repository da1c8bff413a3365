# bug: embed takes the position rows with np.take(..., mode="wrap"), so T > context wraps around instead of raising
# fails: sequence_longer_than_context
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2):
        raise ValueError("token ids must be (T,) or (B, T)")
    t = ids.shape[-1]
    return token_table[ids] + np.take(position_table, np.arange(t), axis=0, mode="wrap")
