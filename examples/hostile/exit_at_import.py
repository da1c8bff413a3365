"""Hostile: kills its own process while being imported (no exception, no output)."""
import os

os._exit(0)
