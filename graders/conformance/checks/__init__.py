"""Conformance checks, one module per part of the contract; importing a module registers them."""
