"""The embedding-layer spec: YAML data, its JSON Schema, and the loader.

>>> from spec import load_spec
>>> s = load_spec("andrea-120m")
>>> s.model.vocab_size, s.model.d_model, s.model.context_length
(8449, 768, 1024)
"""

from .loader import (CONTRACT, DEFAULT_SPEC, SCHEMA_PATH, SPEC_DIR, Clause, Model, Quantity, Spec,
                     SpecError, evaluate, load_spec, quantity_findings, resolve_spec_path,
                     round_half_up)

__all__ = ["CONTRACT", "DEFAULT_SPEC", "SCHEMA_PATH", "SPEC_DIR", "Clause", "Model", "Quantity",
           "Spec", "SpecError", "evaluate", "load_spec", "quantity_findings", "resolve_spec_path",
           "round_half_up"]
