# bug: picoGPT's wte[inputs] + wpe[range(len(inputs))] applied to (B, T) ids: len() is B, not T (wrong rows for B = 1; a broadcasting error, or IndexError past the table's rows, otherwise: no value whose dtype could be judged)
# fails: embed_adds_position_rows, embed_shapes, embed_keeps_float32
def embed(token_ids, token_table, position_table):
    if token_table.shape[1] != position_table.shape[1]:
        raise ValueError("d_model differs between the tables")
    inputs = _ids(token_ids, token_table.shape[0])
    _sequence(inputs, position_table.shape[0])
    return token_table[inputs] + position_table[range(len(inputs))]
