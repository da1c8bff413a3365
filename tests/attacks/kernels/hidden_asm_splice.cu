// Hostile (kernel submission reads a file through the assembler): a raw string whose prefix is
// split by a line splice (R, backslash, newline, then the quote) is not seen as a raw string
// by a line-by-line search; the filter then ends the string at the quote inside it and takes the
// rest for a comment, and never sees the asm below, whose .incbin pulls a file into the CPU
// build.
//
// Expected: refused before NVRTC or g++ run (a raw string, on the line it starts).
__device__ inline int andrea_raw() { const char *r = R\
"x(" /* )x"; return r[0]; }
__device__ void andrea_inc() { asm(".incbin \"/etc/hostname\""); }
// */
