// <stddef.h> as NVRTC and the CPU executor both see it (no system header reaches a kernel):
// what NVRTC has no header for.
#pragma once
typedef decltype(sizeof(0)) size_t;
typedef decltype((char *)0 - (char *)0) ptrdiff_t;
