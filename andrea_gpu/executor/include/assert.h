// assert.h for the CPU executor: a device-side assert() that fails stops the kernel as a trap
// naming the expression and the line (on a GPU it stops the launch too), instead of aborting
// the whole process as the C library's assert() would.
#pragma once
namespace __andrea_exec {
[[noreturn]] void assert_fail(const char *expr, const char *file, int line);
}
#undef assert
#define assert(e) ((e) ? (void)0 : ::__andrea_exec::assert_fail(#e, __FILE__, __LINE__))
