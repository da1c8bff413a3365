"""Tests of andrea_gpu: kernels, the CPU executor, kernel submissions (see docs/gpu.md)."""
