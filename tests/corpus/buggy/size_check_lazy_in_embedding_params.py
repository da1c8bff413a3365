# bug: embedding_params checks none of its sizes (it multiplies whatever it is given)
# fails: param_count_errors
def embedding_params(vocab_size, context_length, d_model):
    return (vocab_size + context_length) * d_model
