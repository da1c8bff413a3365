"""Hostile: looks for the reference's source and the spec in the project folder, execs the
reference and exports its functions as its own.

With bubblewrap those files do not exist in the worker's file system: it finds nothing, every
check reports "function X is missing", score 0. Without bubblewrap it can succeed (see
docs/grading.md, "Without bubblewrap").
"""
import glob
import os

_found = []
for _pattern in ("/work/*/andrea_ref/embedding.py", "/*/andrea_ref/embedding.py",
                 "/*/*/andrea_ref/embedding.py", "/*/*/*/andrea_ref/embedding.py"):
    _found += glob.glob(_pattern)
for _spec in glob.glob("/*/*/spec/andrea-120m.yaml") + glob.glob("/*/*/*/spec/andrea-120m.yaml"):
    print("read the spec:", len(open(_spec).read()), "bytes")
if _found:
    _root = os.path.dirname(os.path.dirname(_found[0]))
    import sys
    sys.path.insert(0, _root)
    _ns = {}
    for _name in ("andrea_runtime/validate", "andrea_ref/embedding", "andrea_ref/vectors"):
        _src = open(os.path.join(_root, _name + ".py")).read()
        _src = _src.replace("from andrea_runtime import validate", "")
        exec(compile(_src, _name, "exec"), _ns)
        _ns["validate"] = type(sys)("validate")
        _ns["validate"].__dict__.update(_ns)
    for _k in ("token_embedding_params", "position_embedding_params", "embedding_params",
               "init_table", "lookup", "embed", "embed_backward", "dot", "norm",
               "cosine_similarity"):
        if _k in _ns:
            globals()[_k] = _ns[_k]
