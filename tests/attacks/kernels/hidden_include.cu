// Hostile (kernel submission reads the answer key): no kernel code of its own. The grader's
// include filter reads 1'2 as a character literal that swallows the opening quote below, then
// takes the rest for a comment and never sees the include line; the compiler reads a digit
// separator and a string, and includes the reference kernels (here by the path the docs give
// for Gradescope). The entry point names sit in a string, where a name scan finds them.
//
// Expected: refused before NVRTC or g++ run, with a compiler-style message naming the line.
__device__ inline int andrea_names() { const char *n = "extern \"C\" __global__ void andrea_lookup( __global__ void andrea_embed_forward( __global__ void andrea_embed_backward_token( __global__ void andrea_embed_backward_position("; return n[0]; }
__device__ inline int andrea_sep() { int s = 1'2; const char *t = "'/*"; return s + t[0]; }
#include "/autograder/source/andrea-conformance/andrea_gpu/kernels/embedding.cu"
// */
