# bug: embedding_params also counts a tied-style output projection
# fails: embedding_layer_params, parameter_shares
def embedding_params(vocab_size, context_length, d_model):
    return (2 * _size(vocab_size) + _size(context_length)) * _size(d_model)
