"""Checks and products built on the spec: conformance suite, grader, audits."""
