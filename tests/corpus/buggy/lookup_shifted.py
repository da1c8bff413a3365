# bug: off by one, id i reads row i - 1
# fails: lookup_selects_row, lookup_is_onehot_product
def lookup(table, token_ids):
    return table[_ids(token_ids, table.shape[0]) - 1]
