"""Hostile: hands in the reference implementation."""
from andrea_ref import *  # noqa: F401,F403
