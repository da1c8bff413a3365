# bug: the counts are the course's numbers typed in, whatever the sizes asked for
# fails: token_table_params, position_table_params, embedding_layer_params
def token_embedding_params(vocab_size, d_model):
    _size(vocab_size), _size(d_model)
    return 6488832


def position_embedding_params(context_length, d_model):
    _size(context_length), _size(d_model)
    return 786432


def embedding_params(vocab_size, context_length, d_model):
    _size(vocab_size), _size(context_length), _size(d_model)
    return 7275264
