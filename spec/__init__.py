"""The embedding-layer spec: YAML data, its JSON Schema, and the loader.

>>> from spec import load_spec
>>> s = load_spec("andrea-120m")
>>> s.model.vocab_size, s.model.d_model, s.model.context_length
(8449, 768, 1024)
>>> s.contract.required[:3]
('token_embedding_params', 'position_embedding_params', 'embedding_params')
"""

from .loader import (DEFAULT_SPEC, SCHEMA_PATH, SPEC_DIR, Clause, Contract, Function,
                     KernelEntryPoint, KernelParam, Kernels, Model, Quantity, QuantityValue,
                     Raises, Spec, SpecError, contract_table, evaluate, evaluate_quantities, is_number,
                     load_spec, numeric_fields, quantity_findings, read_spec_file,
                     resolve_spec_path, round_half_up)

__all__ = ["CONTRACT", "DEFAULT_SPEC", "SCHEMA_PATH", "SPEC_DIR", "Clause", "Contract", "Function",
           "KernelEntryPoint", "KernelParam", "Kernels", "Model", "Quantity", "QuantityValue",
           "Raises", "Spec", "SpecError", "contract_table", "evaluate", "evaluate_quantities", "is_number",
           "load_spec", "numeric_fields", "quantity_findings", "read_spec_file",
           "resolve_spec_path", "round_half_up"]


def __getattr__(name: str):
    # CONTRACT: the required function names of the default spec's contract. The names live in
    # the spec file only; this is a convenience for code that has no Spec at hand.
    if name == "CONTRACT":
        return load_spec(DEFAULT_SPEC).contract.required
    raise AttributeError(f"module 'spec' has no attribute {name!r}")
