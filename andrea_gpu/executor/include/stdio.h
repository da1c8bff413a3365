// <stdio.h> as NVRTC and the CPU executor both see it (no system header reaches a kernel):
// nothing: NVRTC declares CUDA's math functions and printf itself (prelude.h, for the executor).
#pragma once
