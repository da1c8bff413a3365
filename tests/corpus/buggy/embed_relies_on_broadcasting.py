# bug: embed relies on broadcasting to refuse bad tables, but a 1-row position table or d_model = 1 broadcasts silently
# fails: sequence_longer_than_context, d_model_mismatch
def embed(token_ids, token_table, position_table):
    ids = _ids(token_ids, token_table.shape[0])
    if ids.ndim not in (1, 2):
        raise ValueError("ids must be (T,) or (B, T)")
    x = token_table[ids]
    return x + position_table[: ids.shape[-1]]   # broadcasting raises for T > context or d


