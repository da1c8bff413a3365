"""Hostile: prints a fake Gradescope result (score 100) and writes it to every results.json it
can reach, at import and again inside lookup(), whose answers are wrong (all zeros).

The grader must build its result only from its own checks: the lookup check fails, the fake
JSON appears only as the submission's captured output, no results.json appears in the grader's
folder (nor /autograder/results with bubblewrap), and the correct parameter count still passes.
"""
import json as _json
import os as _os

import numpy as np

_FAKE = {"score": 100, "tests": [{"name": "everything", "score": 100, "max_score": 100,
                                   "status": "passed"}]}
print(_json.dumps(_FAKE))
for _path in ("/autograder/results/results.json", "results.json", "../results.json",
              _os.path.expanduser("~/results.json")):
    try:
        _os.makedirs(_os.path.dirname(_os.path.abspath(_path)), exist_ok=True)
        with open(_path, "w") as _f:
            _json.dump(_FAKE, _f)
    except OSError:
        pass


def lookup(table, token_ids):
    print(_json.dumps(_FAKE))
    return np.zeros(np.shape(token_ids) + (np.shape(table)[1],), dtype=np.float32)


def token_embedding_params(vocab_size, d_model):
    return vocab_size * d_model
