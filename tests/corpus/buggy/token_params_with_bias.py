# bug: the token table is counted with a bias row ((V + 1) * d_model)
# fails: token_table_params, embedding_layer_params, parameter_shares
def token_embedding_params(vocab_size, d_model):
    return (_size(vocab_size) + 1) * _size(d_model)


def embedding_params(vocab_size, context_length, d_model):
    return token_embedding_params(vocab_size, d_model) + position_embedding_params(context_length, d_model)
