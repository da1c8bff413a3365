// Hostile (kernel submission reads a file, second lexing trick): a raw string R"x(" ... )x"
// holds a quote and a comment opener; the filter ends the string at that quote and takes the
// rest for a comment, the compiler ends it at )x" and then sees the include and the asm.
//
// Expected: refused before NVRTC or g++ run.
__device__ inline int andrea_raw() { const char *r = R"x(" /* )x"; return r[0]; }
#include "/etc/hostname"
__device__ void andrea_inc() { asm(".incbin \"/etc/hostname\""); }
// */
