# bug: tied embeddings: the embedding layer's count is taken to be the token table only (shared with the output projection, positions forgotten)
# fails: embedding_layer_params, parameter_shares
def embedding_params(vocab_size, context_length, d_model):
    _size(context_length)
    return _size(vocab_size) * _size(d_model)
