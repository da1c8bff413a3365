"""andrea_runtime: everything of the kit that runs inside the grader's sandbox, in one package.

It imports only the standard library and NumPy (``cells`` and ``kernel_contract``: the
standard library alone), so that the grader can copy it whole into a worker's runtime folder
and the worker imports nothing else of the project:

* ``worker``: the submission worker (imports one submission, answers calls over a pipe);
* ``protocol``: the wire format (value codec, frames, the sealed memory arena, kept arrays);
* ``cells``: the one notebook cell loop (``andrea-conform`` runs it too);
* ``snapshot``: the one input-change comparison (did a call change its arguments?);
* ``ipython_input``: a notebook cell cleaned up as IPython does before it runs it (common
  indentation, pasted prompts), applied where a notebook is read (graders.conformance.sources);
* ``import_rule``: what a submission may import (the standard library, its own modules and
  the one list, graders/conformance/imports.yaml), installed by the worker and the kit alike;
* ``kernel_contract``: the one model of the spec's CUDA kernel contract (``spec`` reads it);
* ``validate``: the contract's argument checks (andrea_ref's, and the kernel runtime's in the
  sandbox; left out of the students' kit, where nothing uses it).

Every layer may import it: spec -> implementations -> checks -> products all stand on it.
"""
