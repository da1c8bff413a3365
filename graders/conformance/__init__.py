"""The conformance suite: spec clauses checked against any implementation of the contract.

* ``registry``: which check verifies which clause;  ``checks/``: the checks themselves;
* ``runner``: run them against an implementation and collect results;
* ``plugin`` + ``test_conformance``: the same checks as pytest tests
  (``pytest --pyargs graders.conformance --andrea-impl andrea_ref``);
* ``cli``: ``andrea-conform TARGET``.
"""
