# bug: the parameter counts are floats (computed with / and **), e.g. 6488832.0
# fails: token_table_params, position_table_params, embedding_layer_params
def token_embedding_params(vocab_size, d_model):
    return _size(vocab_size) * _size(d_model) / 1


def position_embedding_params(context_length, d_model):
    return float(_size(context_length) * _size(d_model))


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(context_length, d_model)
