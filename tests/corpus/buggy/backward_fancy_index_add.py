# bug: CS231n's classic dW[x] += dout: fancy-index += is buffered, so a repeated id adds its gradient once (the assignment warns to use np.add.at)
# fails: token_gradient_scatter_add
def embed_backward(token_ids, grad_out, vocab_size, context_length):
    x = _ids(token_ids, vocab_size)
    t = _sequence(x, context_length)
    if grad_out.ndim != x.ndim + 1 or grad_out.shape[:-1] != x.shape:
        raise ValueError("grad_out must have shape token_ids.shape + (d_model,)")
    dW = np.zeros((vocab_size, grad_out.shape[-1]), dtype=np.float32)
    dW[x] += grad_out
    dP = np.zeros((context_length, grad_out.shape[-1]), dtype=np.float32)
    dP[:t] = grad_out.reshape(-1, t, grad_out.shape[-1]).sum(axis=0)
    return dW, dP
