# bug: embedding_params adds an output projection, but only when d_model is at least 512
# fails: embedding_layer_params, parameter_shares
def embedding_params(vocab_size, context_length, d_model):
    v, t, d = _size(vocab_size), _size(context_length), _size(d_model)
    return (v + t) * d + (v * d if d >= 512 else 0)
