// andrea_gpu CPU executor runtime: fibers, barriers, fault capture, race detection.
//
// Compiled once (without instrumentation) into an object that is linked with every kernel
// build; the kernel's own translation unit (prelude.h + the .cu text + launch stubs) is compiled
// with -fsanitize=thread, so the compiler calls __tsan_readN / __tsan_writeN before each of its
// memory accesses. Those hooks are defined here: instead of ThreadSanitizer's runtime they feed
// a happens-before checker that knows the CUDA model (see "Race detection" below).
//
// One launch = every block of the grid in a chosen order. Inside a block the first thread (in
// the chosen order) runs as a fiber: if it finishes without reaching __syncthreads(), the other
// threads of the block are plain function calls, one after the other (no context switch at
// all). Once a thread reaches a barrier, every thread of the block is a fiber with its own
// guarded stack, run in the chosen order until it finishes or reaches __syncthreads(). Fibers
// switch with a few instructions of assembly (callee-saved registers and the stack pointer; no
// signal mask, so no system call). A fault (SIGSEGV/SIGBUS/SIGFPE) inside a kernel is caught
// on an alternate signal stack and turned into an error code with the faulting address, so
// Python can name the argument buffer whose guard page was touched.
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <unordered_map>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>
#include <ucontext.h>

struct uint3 { unsigned int x, y, z; };
struct dim3 { unsigned int x, y, z; };

// The built-in variables sit together in a section of their own, so the race checker can skip
// reads of them with one comparison.
#define ANDREA_BUILTIN __attribute__((section("andrea_builtins")))
extern "C" {
ANDREA_BUILTIN uint3 threadIdx;
ANDREA_BUILTIN uint3 blockIdx;
ANDREA_BUILTIN dim3 blockDim;
ANDREA_BUILTIN dim3 gridDim;
extern char __start_andrea_builtins[];
extern char __stop_andrea_builtins[];
extern char __start_andrea_shared[] __attribute__((weak));
// Defined (as 1) by kernel units that use warp-level primitives.
extern const int __andrea_exec_uses_warps __attribute__((weak));
extern char __stop_andrea_shared[] __attribute__((weak));
}

namespace __andrea_exec {

enum Status { OK = 0, FAULT = 1, DIVERGENT_BARRIER = 2, EXIT_AT_BARRIER = 3, TRAP = 4,
              BAD_LAUNCH = 5, RACE = 6, UNINIT_SHARED = 7, TOO_MUCH_WORK = 8 };
enum Order { FORWARD = 0, REVERSE = 1, SHUFFLE = 2 };
enum FiberState { READY = 0, AT_BARRIER = 1, DONE = 2, AT_WARP = 3 };
// What a lane waits at (AT_WARP): lanes of one group must wait at the same kind (PTX: the same
// instruction with the same qualifiers and mask), __activemask() waits for no one.
enum WarpKind { W_SYNC = 0, W_ACTIVE = 1, W_SHFL = 2, W_VOTE = 3, W_MATCH = 4, W_REDUCE = 5 };
static const char *const kWarpKindName[] = {"__syncwarp", "__activemask", "__shfl_*_sync",
                                            "__ballot/__any/__all_sync",
                                            "__match_*_sync", "__reduce_*_sync"};
static const unsigned kWarp = 32;

// ----------------------------------------------------------------------------- context switch
#if defined(__x86_64__) && !defined(ANDREA_EXEC_UCONTEXT)
// andrea_exec_switch(&save_sp, to_sp): push the callee-saved registers, save the stack pointer,
// load the other fiber's, pop its registers and return into it.
extern "C" void andrea_exec_switch(void **save_sp, void *to_sp);
asm(R"(
    .text
    .p2align 4
    .globl andrea_exec_switch
    .hidden andrea_exec_switch
    .type andrea_exec_switch,@function
andrea_exec_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size andrea_exec_switch, .-andrea_exec_switch
)");
struct Ctx { void *sp = nullptr; };
static inline void ctx_switch(Ctx &from, Ctx &to) { andrea_exec_switch(&from.sp, to.sp); }
static void ctx_make(Ctx &c, char *stack_lo, size_t size, void (*entry)()) {
    uintptr_t top = ((uintptr_t)(stack_lo + size)) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = nullptr;              // no caller above the entry function
    *--sp = (void *)entry;        // `ret` of the first switch lands here, 16-byte aligned + 8
    for (int i = 0; i < 6; ++i) *--sp = nullptr;  // rbp rbx r12 r13 r14 r15
    c.sp = sp;
}
#else
struct Ctx { ucontext_t uc; };
static inline void ctx_switch(Ctx &from, Ctx &to) { swapcontext(&from.uc, &to.uc); }
static void ctx_make(Ctx &c, char *stack_lo, size_t size, void (*entry)()) {
    getcontext(&c.uc);
    c.uc.uc_stack.ss_sp = stack_lo;
    c.uc.uc_stack.ss_size = size;
    c.uc.uc_link = nullptr;
    makecontext(&c.uc, entry, 0);
}
#endif

struct Fiber {
    Ctx ctx;
    FiberState state;
    uint3 tid;
    unsigned epoch;          // barriers this thread has passed in the current block
    unsigned wepoch;         // warp-level synchronisations (and barriers) passed
    unsigned long long xchg[2];  // this lane's values in warp exchanges (__shfl_*, __ballot_*),
    unsigned xrel[2];            // alternately (exchange k uses slot k % 2), each stamped with
    unsigned xk;                 // the release that took it (0: none yet); exchanges entered
    int xpend;                   // the slot this lane published for its wait, -1: none
    unsigned wmask;              // the mask of the primitive it waits at (lanes of its warp)
    unsigned rel;                // the release that let it go last (its group's values)
    unsigned amask;              // __activemask(): the lanes waiting at the same call with it
    int wkind;                   // what it waits at: a W_* below
    int bred[2];                 // __syncthreads_count/and/or: this thread's predicate, by epoch % 2
    // Fences (__threadfence, __threadfence_block) this thread has passed in the current block,
    // and where its last one of each scope was (epoch, wepoch, fences passed after it; fseq 0:
    // none): an atomic after a fence releases what came before the fence (see Release).
    unsigned fseq;
    unsigned dev_epoch, dev_wepoch, dev_fseq;
    unsigned any_epoch, any_wepoch, any_fseq;
    const char *bar_file;
    int bar_line;
};

// ----------------------------------------------------------------------------- race detection
// Every 4-byte word of an argument buffer or of shared memory has a shadow cell: the last plain
// write, up to two plain reads since, and up to two atomics (atomicAdd, atomicExch, atomicCAS,
// ... of prelude.h, announced through atomic_begin), each as (block, thread, barrier epoch, code
// address). Two accesses conflict when they come from different CUDA threads, no
// __syncthreads() orders them (different blocks: nothing orders blocks within a launch; or the
// same block in the same barrier epoch), and one is a plain write, or one is plain and the other
// an atomic (a plain read or write of a word another thread updates atomically: CUDA's memory
// model calls it a data race, compute-sanitizer's racecheck reports it, and `atomicExch(g, *g +
// v)` loses updates on a GPU). Two atomics never conflict, unless one is block-scoped
// (atomicAdd_block, ...) and they come from different blocks: such an atomic is atomic only
// among the threads of its block. A fence then an atomic releases, and another thread's later
// atomic on that word acquires, an ordering across threads and blocks (see Release).
// site: code address relative to this library's launch(), 32 bits (one library is small).
// write: bit 0 a write (an atomic is a read and a write), bit 1 an atomic, bit 2 block-scoped,
// bit 3 a read an atomicCAS of the same thread checked.
// mask: the bytes of the word the access touched (bit i = byte i), so that threads writing
// neighbouring bytes (a char array) do not conflict.
// K_GUESS marks a plain read that this thread's atomicCAS then compared with (see Pending).
enum { K_WRITE = 1, K_ATOMIC = 2, K_BLOCK = 4, K_GUESS = 8 };
// fseq: the fences the thread had passed when it made the access (see Release).
struct Acc { int32_t site; uint32_t blk, epoch, wepoch, fseq; uint16_t thr; uint8_t write, mask; };
// unwritten: bytes of the word no access has written yet (for shared-memory reads).
// pre1, pre2: the word as it was before atomic a1, a2; alast: which atomic modified the word
// last (1, 2), 0 when a plain write came after it (or none was seen).
// rel: an atomic after a fence released something through this word (g_rel holds what).
struct Cell { Acc w, r1, r2, a1, a2; uint32_t pre1, pre2; uint8_t unwritten, alast, rel; };
static const uint32_t NONE = 0xFFFFFFFFu;
static const size_t kWordsPerPage = 256;

struct Range {
    uintptr_t lo = 0, hi = 0;
    // The argument's whole mapping between its guard pages (andrea_exec_set_spans): an access
    // there outside [lo, hi) is out of bounds even where no guard page catches it (the bytes a
    // buffer shares with its page). Equal to lo, hi when not given.
    uintptr_t slo = 0, shi = 0;
    int arg = -1;               // argument index, -1 static shared, -2 dynamic shared
    std::vector<Cell *> pages;  // lazily allocated shadow, kWordsPerPage cells each
};

struct Launch {
    unsigned long long cfg[10];
    std::vector<Fiber> fibers;
    Ctx main_ctx;
    int current = -1;
    const std::vector<unsigned> *order = nullptr;  // this round's thread order
    long pos = -1, limit = 0;   // position in `order`; threads at or past `limit` wait
    bool direct = false;        // the current thread runs as a plain call, not a fiber
    std::function<void()> body;
    std::vector<char> dyn_shared;
    unsigned long long rng = 0;
    std::vector<Range> ranges;
    Range *last = nullptr;      // the range of the previous access (most accesses repeat it)
    uint32_t blk = 0, thr = 0, epoch = 0, wepoch = 0, fseq = 0;
    unsigned wrel = 0;          // warp-level releases so far (each group's id, see release_warps)
    bool track = false;
};

// ----------------------------------------------------------------------------- fences
// CUDA's memory model (the programming guide's last-block reduction): a thread's fence
// (__threadfence(), or __threadfence_block() for its block) followed by an atomic on a word is
// a release; another thread's later atomic on that word (every atomic here is a
// read-modify-write, so it reads the value of that atomic or of a later one in the word's order)
// acquires it. The releasing thread's accesses before its fence, and those its block's barriers
// (its warp's synchronisations) ordered before the fence, are then ordered before the
// acquiring thread's accesses after its atomic, and its block's after the next barrier (its
// warp's after the next warp-level synchronisation). A release carries no further (what the
// acquiring thread releases in turn does not pass on what it acquired): fewer orderings than a
// GPU guarantees, so never a race missed. A plain write of the word ends what it carries.
struct Release {
    uint32_t thr, epoch, wepoch, fseq;  // thread; its accesses with fseq < fseq, its block's
                                        // with epoch < epoch, its warp's with wepoch < wepoch
    uint8_t block;                      // block scope (block fence or block-scoped atomic)
};
// What the atomics of one word released, by releasing block, in the order of the word's
// atomics (the index); an acquire takes the releases with from <= index < upto.
struct WordReleases {
    std::unordered_map<uint32_t, std::vector<std::pair<uint32_t, Release>>> by_block;
    uint32_t n = 0, cut = 0;  // releases so far; the first one a plain write has not ended
};
struct Acquire {
    WordReleases *word;
    uint32_t from, upto, thr, epoch, wepoch;
    uint8_t block;  // by a block-scoped atomic: only releases from the acquiring block
};
// Words of global memory (argument buffers, __device__ variables) for the launch, of shared
// memory for the block; the current block's acquires (blocks run one after the other).
static std::unordered_map<uintptr_t, WordReleases> g_rel, g_rel_shared;
static std::vector<Acquire> g_acq;
static const size_t kMaxAcquires = 1 << 16;

static Launch *g = nullptr;
static std::vector<uintptr_t> g_spans;  // the next launch's argument mappings (lo, hi) per argument
static sigjmp_buf g_jmp;
static volatile sig_atomic_t g_active = 0;
static char g_msg[2048];
static void *g_fault_addr = nullptr;
// 1 when the fault is a general-protection fault (SIGSEGV with SI_KERNEL: no address): on
// x86-64 a misaligned vector access (a float4 load from an address not a multiple of 16) or
// an address that cannot exist, not a null pointer.
static int g_fault_general = 0;
// 1 when the fault address is in the guard page below a fiber's stack: a stack overflow.
static int g_fault_stack = 0;
static char *g_stacks = nullptr;     // fiber stacks, kept from launch to launch
static size_t g_stack_count = 0;
static long long g_fault_where[6];  // block xyz, thread xyz at the fault
static long long g_race[16];        // see andrea_exec_race
static long long g_uninit[16];      // the launch's first read of never-written shared memory
static bool g_uninit_seen = false;
// The byte shared memory is filled with before every block (andrea_exec_set_fill: the launcher
// runs a launch that read never-written shared memory again with another fill, to see whether
// the value it read reaches anything).
static int g_fill = 0xFF;
// The call site of the atomic now running (its caller's return address), so that a fault or an
// out-of-bounds access inside it is reported at the student's line.
static const void *g_atomic_site = nullptr;
// Work: every memory access of the kernel (the instrumentation's hooks) in this launch, and the
// most one launch may make (andrea_exec_set_work_limit: what the checker allows a launch on a
// GPU); tracked: those the race checker recorded, at most g_track_budget (then the rest of the
// launch runs untracked: g_track_cut).
static unsigned long long g_accesses = 0, g_access_limit = ~0ULL;
static unsigned long long g_tracked = 0, g_track_budget = ~0ULL;
static int g_track_cut = 0;
static struct sigaction g_old[3];
static const int g_sigs[3] = {SIGSEGV, SIGBUS, SIGFPE};
static const size_t kStack = 32 * 1024;
int atomics_used = 0;                // set by prelude.h's atomics during a launch

static unsigned long long next_rand() {  // splitmix64: reproducible shuffles from the seed
    unsigned long long z = (g->rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void make_order(std::vector<unsigned> &idx, unsigned n, int order) {
    idx.resize(n);
    for (unsigned i = 0; i < n; ++i) idx[i] = order == REVERSE ? n - 1 - i : i;
    if (order == SHUFFLE)
        for (unsigned i = n; i > 1; --i) std::swap(idx[i - 1], idx[next_rand() % i]);
}

static void note_where() {
    g_fault_where[0] = blockIdx.x; g_fault_where[1] = blockIdx.y; g_fault_where[2] = blockIdx.z;
    g_fault_where[3] = threadIdx.x; g_fault_where[4] = threadIdx.y; g_fault_where[5] = threadIdx.z;
}

static long long site_offset(const void *site);
static long long g_fault_pc = -1;    // code offset of the faulting instruction in the library

static void on_fault(int sig, siginfo_t *si, void *uctx) {
    if (!g_active) {  // not ours: hand it to whoever had it before
        for (int i = 0; i < 3; ++i)
            if (g_sigs[i] == sig) sigaction(sig, &g_old[i], nullptr);
        raise(sig);
        return;
    }
    g_fault_addr = si->si_addr;
    g_fault_general = sig == SIGSEGV && si->si_code == SI_KERNEL;
    {
        const char *a = (const char *)si->si_addr;
        g_fault_stack = g_stacks && a >= g_stacks && a < g_stacks + g_stack_count * kStack &&
                        (size_t)(a - g_stacks) % kStack < (size_t)getpagesize();
    }
#if defined(__x86_64__)
    g_fault_pc = site_offset((const char *)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP] + 1);
#else
    (void)uctx;
#endif
    if (g_atomic_site) g_fault_pc = site_offset(g_atomic_site);
    note_where();
    std::snprintf(g_msg, sizeof g_msg, "%s at address %p",
                  sig == SIGSEGV ? "segmentation fault" : sig == SIGBUS ? "bus error"
                                                                         : "arithmetic exception",
                  si->si_addr);
    siglongjmp(g_jmp, FAULT);
}

static void fail(int status) {
    note_where();
    g_active = 0;
    siglongjmp(g_jmp, status);
}

static long long site_offset(const void *site) {
    Dl_info info;
    if (site && dladdr(site, &info) && info.dli_fbase)
        return (long long)((const char *)site - (const char *)info.dli_fbase) - 1;
    return -1;
}

int launch(const unsigned long long *, const unsigned long long *, int, int, std::function<void()>);
static const char *site_base() { return (const char *)(void *)&launch; }
static long long acc_offset(const Acc &a) { return site_offset(site_base() + a.site); }

static void record(long long *o, const Range &r, uintptr_t addr, const Acc &now, const Acc *other) {
    o[0] = r.arg; o[1] = (long long)(addr - r.lo); o[2] = now.write; o[3] = now.blk;
    o[4] = now.thr; o[5] = acc_offset(now);
    if (other) { o[6] = other->write; o[7] = other->blk; o[8] = other->thr; o[9] = acc_offset(*other); }
    else { o[6] = o[7] = o[8] = o[9] = -1; }
    o[10] = (long long)r.lo;
}

static void report(const Range &r, uintptr_t addr, const Acc &now, const Acc *other) {
    g->track = false;
    record(g_race, r, addr, now, other);
    std::snprintf(g_msg, sizeof g_msg, "data race");
    fail(RACE);
}

// Unordered: other block; or same block between the same two barriers, and either different
// warps or the same warp between the same two warp-level synchronisations.
static inline bool unordered(const Acc &a, const Acc &now) {
    return a.blk != now.blk ||
           (a.thr != now.thr && a.epoch == now.epoch &&
            (a.thr / kWarp != now.thr / kWarp || a.wepoch == now.wepoch));
}
// `a` (recorded earlier) is ordered before `now` (of the current block) by a release that a
// thread of the current block acquired (see Release).
static bool acquired(const Acc &a, const Acc &now) {
    for (const Acquire &q : g_acq) {
        // `now` comes after the acquire: the same thread (the acquire was recorded earlier), its
        // block after a barrier, its warp after a warp-level synchronisation
        if (!(q.thr == now.thr || now.epoch > q.epoch ||
              (now.epoch == q.epoch && q.thr / kWarp == now.thr / kWarp && now.wepoch > q.wepoch)))
            continue;
        if (q.block && a.blk != now.blk) continue;
        auto it = q.word->by_block.find(a.blk);
        if (it == q.word->by_block.end()) continue;
        for (const auto &ir : it->second) {
            if (ir.first < q.from || ir.first >= q.upto) continue;
            const Release &r = ir.second;
            if (r.block && a.blk != now.blk) continue;
            if (a.thr == r.thr ? a.fseq < r.fseq
                               : a.epoch < r.epoch ||
                                     (a.epoch == r.epoch && a.thr / kWarp == r.thr / kWarp &&
                                      a.wepoch < r.wepoch))
                return true;
        }
    }
    return false;
}
static inline bool conflicts(const Acc &a, const Acc &now) {
    return a.blk != NONE && (a.mask & now.mask) && unordered(a, now) &&
           (g_acq.empty() || !acquired(a, now));
}
// Two atomics: only a block-scoped one against an atomic of another block.
static inline bool atomics_conflict(const Acc &a, const Acc &now) {
    return a.blk != NONE && (a.mask & now.mask) && a.blk != now.blk &&
           ((a.write | now.write) & K_BLOCK);
}
// An atomic slot whose access cannot conflict with anything `now` cannot conflict with (empty,
// or ordered before `now` on the same bytes) may take `now`.
static inline bool superseded(const Acc &a, const Acc &now) {
    return a.blk == NONE || (!unordered(a, now) && !(a.mask & ~now.mask));
}

// Shadow pages are kept from launch to launch (fresh memory costs a page fault per 4 KiB).
static std::vector<Cell *> g_free_pages;
static const size_t kKeepPages = 2400;  // about 80 MiB of shadow (132-byte cells)

static Cell *cell_of(Range &r, uintptr_t addr) {
    size_t word = (addr - r.lo) >> 2, page = word / kWordsPerPage;
    Cell *&p = r.pages[page];
    if (!p) {
        if (!g_free_pages.empty()) {
            p = g_free_pages.back();
            g_free_pages.pop_back();
        } else {
            p = (Cell *)std::malloc(sizeof(Cell) * kWordsPerPage);
        }
        if (!p) { std::snprintf(g_msg, sizeof g_msg, "out of memory for race shadow"); fail(BAD_LAUNCH); }
        std::memset(p, 0xFF, sizeof(Cell) * kWordsPerPage);
    }
    return p + word % kWordsPerPage;
}

// A plain read that races only with other threads' atomics (no plain write) may be the guess
// of a compare-and-swap loop (the CUDA guide's `old = *p; do { assumed = old; old =
// atomicCAS(p, assumed, f(assumed)); } while (assumed != old);`): the CAS checks it. It is held
// back: an atomicCAS of this thread on the same bytes that compares with the value read
// forgives it; anything else of this thread on them (another atomic, a plain write) or the end
// of its turn (a barrier, a warp-level primitive, its end) reports it. So that a CAS that does
// not retry is caught too, the read sees the word as it was before the other thread's atomic
// where that is what a GPU could have shown it (the atomic is the word's last change): a
// one-shot CAS then fails and its update is lost, as on a GPU, and a retrying loop converges.
struct Pending {
    bool on = false;
    Range *r = nullptr;
    uintptr_t addr = 0;
    size_t n = 0;
    Acc now{}, other{};
    unsigned char seen[8];              // the bytes the read saw
    int restore = 0;                    // words (1 or 2, from word0) to give back their value
    uintptr_t word0 = 0;
    uint32_t cur[2] = {0, 0};
    uint8_t which[2] = {0, 0};          // which words were changed (the others are left)
};
static Pending g_pend;
static void report(const Range &r, uintptr_t addr, const Acc &now, const Acc *other);

// Give the words the stale read changed their value back (before this thread goes on).
static inline void pend_restore() {
    if (!g_pend.restore) return;
    for (int i = 0; i < 2; ++i)
        if (g_pend.which[i]) std::memcpy((void *)(g_pend.word0 + 4 * i), &g_pend.cur[i], 4);
    g_pend.restore = 0;
}
// The thread's turn ends or it touches the bytes otherwise: a held-back read is a race.
static void pend_flush() {
    pend_restore();
    if (!g_pend.on) return;
    g_pend.on = false;
    report(*g_pend.r, g_pend.addr, g_pend.now, &g_pend.other);
}

static void out_of_bounds(uintptr_t a, const void *site) {
    g->track = false;
    g_fault_addr = (void *)a;
    g_fault_pc = site_offset(site);
    std::snprintf(g_msg, sizeof g_msg, "%s at address %p", "segmentation fault", (void *)a);
    fail(FAULT);
}

// A plain read of at most 8 bytes racing with another thread's atomic (see Pending).
static void hold_back(Range &r, uintptr_t a, size_t n, const Acc &now, const Acc &other,
                      uintptr_t end) {
    if (g_pend.on && (g_pend.addr != a || g_pend.n != n)) pend_flush();
    if (g_pend.on) return;  // the same read again: held back already
    g_pend.on = true;
    g_pend.r = &r; g_pend.addr = a; g_pend.n = n; g_pend.now = now; g_pend.other = other;
    g_pend.word0 = a & ~(uintptr_t)3;
    g_pend.which[0] = g_pend.which[1] = 0;
    for (int i = 0; i < 2; ++i) {
        uintptr_t w = g_pend.word0 + 4 * i;
        if (w >= end || w < r.lo || w + 4 > r.hi) continue;
        Cell *c = cell_of(r, w);
        const Acc *last = c->alast == 1 ? &c->a1 : c->alast == 2 ? &c->a2 : nullptr;
        if (!last || !unordered(*last, now)) continue;
        std::memcpy(&g_pend.cur[i], (void *)w, 4);
        const uint32_t pre = c->alast == 1 ? c->pre1 : c->pre2;
        std::memcpy((void *)w, &pre, 4);
        g_pend.which[i] = 1;
        g_pend.restore = 1;
    }
    std::memcpy(g_pend.seen, (const void *)a, n);
}

static void access_range(Range &r, uintptr_t a, size_t n, bool write, const void *site) {
    Launch *L = g;
    L->last = &r;
    if (a < r.lo || a + n > r.hi) out_of_bounds(a < r.lo || a >= r.hi ? a : r.hi, site);
    uintptr_t end = a + n < r.hi ? a + n : r.hi;
    Acc now{(int32_t)((const char *)site - site_base()), L->blk, L->epoch, L->wepoch, L->fseq,
            (uint16_t)L->thr, (uint8_t)write, 0};
    for (uintptr_t w = a & ~(uintptr_t)3; w < end; w += 4) {
        uintptr_t at = w < r.lo ? r.lo : w;
        uintptr_t from = a > w ? a : w, to = end < w + 4 ? end : w + 4;
        now.mask = (uint8_t)(((1u << (to - w)) - 1) & ~((1u << (from - w)) - 1));
        Cell *c = cell_of(r, at);
        if (conflicts(c->w, now)) report(r, from, now, &c->w);
        const Acc *atomic = conflicts(c->a1, now) ? &c->a1 : conflicts(c->a2, now) ? &c->a2 : nullptr;
        if (atomic) {
            if (write || n > 8) report(r, from, now, atomic);
            hold_back(r, a, n, now, *atomic, end);
        }
        if (write) {
            if (conflicts(c->r1, now)) report(r, from, now, &c->r1);
            if (conflicts(c->r2, now)) report(r, from, now, &c->r2);
            c->w = now;
            c->alast = 0;
            if (c->rel == 1) {  // the word's releases end here
                auto &m = r.arg < 0 ? g_rel_shared : g_rel;
                auto it = m.find(w);
                if (it != m.end()) it->second.cut = it->second.n;
            }
            c->unwritten &= (uint8_t)~now.mask;
            if (now.mask == 0xF) c->r1.blk = c->r2.blk = NONE;
        } else {
            // Recorded (the launch's first); the launcher decides whether the value read was
            // used (andrea_exec_uninit), unless a write by another thread makes it a race.
            if (r.arg < 0 && (c->unwritten & now.mask) && !g_uninit_seen) {
                record(g_uninit, r, from, now, nullptr);
                g_uninit_seen = true;
            }
            if (c->r1.blk == NONE || (c->r1.blk == now.blk && c->r1.thr == now.thr)) c->r1 = now;
            else c->r2 = now;
        }
    }
}

static void too_much_work(const void *site) {
    g->track = false;
    g_fault_pc = site_offset(site);
    std::snprintf(g_msg, sizeof g_msg, "more than %llu memory accesses in one launch",
                  g_access_limit);
    fail(TOO_MUCH_WORK);
}

static inline void access(const void *ptr, size_t n, bool write, const void *site) {
    Launch *L = g;
    if (!L) return;
    if (g_pend.restore) pend_restore();
    const char *p = (const char *)ptr;
    if (p >= __start_andrea_builtins && p < __stop_andrea_builtins) return;  // registers on a GPU
    if (++g_accesses > g_access_limit) too_much_work(site);
    if (!L->track) return;
    if (++g_tracked > g_track_budget) { L->track = false; g_track_cut = 1; return; }
    uintptr_t a = (uintptr_t)ptr;
    Range *last = L->last;
    if (last && a >= last->slo && a < last->shi) return access_range(*last, a, n, write, site);
    for (Range &r : L->ranges)
        if (a >= r.slo && a < r.shi) return access_range(r, a, n, write, site);
}

// An atomic (prelude.h) announces itself with its caller's address and its scope: an access
// outside an argument buffer (within its mapping) is out of bounds at that line. In the shadow
// it is a read and a write that conflicts with another thread's unordered plain access (and,
// block-scoped, with another block's atomic), never with another atomic; on shared memory it
// initialises the bytes (for the never-written check).
static void atomic_shadow(Range &r, uintptr_t a, size_t n, const void *site, bool block_scope,
                          const void *cmp) {
    Launch *L = g;
    L->last = &r;
    uintptr_t end = a + n < r.hi ? a + n : r.hi;
    Acc now{(int32_t)((const char *)site - site_base()), L->blk, L->epoch, L->wepoch, L->fseq,
            (uint16_t)L->thr, (uint8_t)(K_WRITE | K_ATOMIC | (block_scope ? K_BLOCK : 0)), 0};
    // an atomicCAS whose compare value is what the word holds: this thread's read of it was
    // the CAS's guess, which the CAS checks (no race with other threads' atomics)
    const bool checks = cmp && !std::memcmp(cmp, (const void *)a, n);
    for (uintptr_t w = a & ~(uintptr_t)3; w < end; w += 4) {
        uintptr_t from = a > w ? a : w, to = end < w + 4 ? end : w + 4;
        now.mask = (uint8_t)(((1u << (to - w)) - 1) & ~((1u << (from - w)) - 1));
        Cell *c = cell_of(r, w < r.lo ? r.lo : w);
        if (checks) {
            if (c->r1.blk == now.blk && c->r1.thr == now.thr) c->r1.write |= K_GUESS;
            if (c->r2.blk == now.blk && c->r2.thr == now.thr) c->r2.write |= K_GUESS;
        }
        if (conflicts(c->w, now)) report(r, from, now, &c->w);
        if (conflicts(c->r1, now) && !(c->r1.write & K_GUESS)) report(r, from, now, &c->r1);
        if (conflicts(c->r2, now) && !(c->r2.write & K_GUESS)) report(r, from, now, &c->r2);
        if (atomics_conflict(c->a1, now)) report(r, from, now, &c->a1);
        if (atomics_conflict(c->a2, now)) report(r, from, now, &c->a2);
        // Two slots, kept from different threads where they can be: a plain access then finds
        // another thread's atomic in one of them whichever thread it comes from.
        uint32_t pre;
        std::memcpy(&pre, (const void *)(w < r.lo ? r.lo : w), 4);
        if (superseded(c->a1, now)) { c->a1 = now; c->pre1 = pre; c->alast = 1; }
        else { c->a2 = now; c->pre2 = pre; c->alast = 2; }
        c->unwritten &= (uint8_t)~now.mask;
    }
}

// The current thread's atomic on [a, a + n): it acquires what earlier atomics on these words
// released, then releases what came before its last fence (see Release).
static void atomic_sync(uintptr_t a, size_t n, bool block_scope, Range *in) {
    Launch *L = g;
    const Fiber &f = L->fibers[L->current];
    const bool shared = in && in->arg < 0;
    auto &m = shared ? g_rel_shared : g_rel;
    for (uintptr_t w = a & ~(uintptr_t)3; w < a + n; w += 4) {
        auto it = m.find(w);
        if (it != m.end() && it->second.n > it->second.cut) {
            WordReleases &wr = it->second;
            Acquire *last = g_acq.empty() ? nullptr : &g_acq.back();
            if (last && last->word == &wr && last->thr == L->thr && last->epoch == L->epoch &&
                last->wepoch == L->wepoch && last->block == (uint8_t)block_scope &&
                last->from == wr.cut)
                last->upto = wr.n;  // the same thread again between the same synchronisations
            else if (g_acq.size() < kMaxAcquires)  // (past it: fewer orderings, never fewer races)
                g_acq.push_back(Acquire{&wr, wr.cut, wr.n, L->thr, L->epoch, L->wepoch,
                                        (uint8_t)block_scope});
        }
        if (!f.any_fseq) continue;  // no fence before: no release
        Release r{L->thr, 0, 0, 0, 0};
        if (f.dev_fseq && !block_scope) {
            r.epoch = f.dev_epoch; r.wepoch = f.dev_wepoch; r.fseq = f.dev_fseq;
            WordReleases &wr = m[w];
            wr.by_block[L->blk].push_back({wr.n++, r});
        }
        if (f.any_fseq != f.dev_fseq || block_scope) {  // a later block-scope fence, or atomic
            r.epoch = f.any_epoch; r.wepoch = f.any_wepoch; r.fseq = f.any_fseq; r.block = 1;
            WordReleases &wr = m[w];
            wr.by_block[L->blk].push_back({wr.n++, r});
        }
        if (in && w >= in->lo && w < in->hi) cell_of(*in, w)->rel = 1;
    }
}

// __threadfence() (device) and __threadfence_block(): see Release.
void fence(int device) {
    Launch *L = g;
    if (!L || L->current < 0) return;
    Fiber &f = L->fibers[L->current];
    L->fseq = ++f.fseq;
    f.any_epoch = L->epoch; f.any_wepoch = L->wepoch; f.any_fseq = f.fseq;
    if (device) { f.dev_epoch = L->epoch; f.dev_wepoch = L->wepoch; f.dev_fseq = f.fseq; }
}

void atomic_begin(const void *ptr, size_t n, const void *site, int block_scope, const void *cmp) {
    atomics_used = 1;
    g_atomic_site = site;
    pend_restore();
    if (g_pend.on) {  // a held-back read of these bytes: forgiven by a CAS that checks it
        uintptr_t a = (uintptr_t)ptr;
        if (a < g_pend.addr + g_pend.n && g_pend.addr < a + n) {
            if (cmp && a == g_pend.addr && n == g_pend.n && !std::memcmp(cmp, g_pend.seen, n))
                g_pend.on = false;
            else
                pend_flush();
        }
    }
    if (g && ++g_accesses > g_access_limit) too_much_work(site);
    Launch *L = g;
    if (!L || !L->track) return;
    if (++g_tracked > g_track_budget) { L->track = false; g_track_cut = 1; return; }
    uintptr_t a = (uintptr_t)ptr;
    Range *in = L->last && a >= L->last->slo && a < L->last->shi ? L->last : nullptr;
    for (size_t i = 0; !in && i < L->ranges.size(); ++i)
        if (a >= L->ranges[i].slo && a < L->ranges[i].shi) in = &L->ranges[i];
    if (in && (a < in->lo || a + n > in->hi)) out_of_bounds(a < in->lo || a >= in->hi ? a : in->hi, site);
    atomic_sync(a, n, block_scope != 0, in);
    if (!in) return;
    atomic_shadow(*in, a, n, site, block_scope != 0, cmp);
}

static void clear_shadow(Range &r) {
    for (Cell *&p : r.pages) {
        if (!p) continue;
        if (g_free_pages.size() < kKeepPages) g_free_pages.push_back(p);
        else std::free(p);
        p = nullptr;
    }
}

static void set_current(int i) {
    Fiber &f = g->fibers[i];
    g->current = i;
    threadIdx = f.tid;
    g->thr = (uint32_t)i;
    g->epoch = f.epoch;
    g->wepoch = f.wepoch;
    g->fseq = f.fseq;
}

// The next READY thread of this round, in order, or the scheduler when there is none: fibers
// hand over to each other directly, one switch per barrier crossing.
static Ctx *next_ctx() {
    Launch *L = g;
    while (++L->pos < L->limit) {
        unsigned i = (*L->order)[L->pos];
        if (L->fibers[i].state == READY) {
            set_current((int)i);
            return &L->fibers[i].ctx;
        }
    }
    return &L->main_ctx;
}

static void run_round(long from) {
    g->direct = false;
    g->pos = from;
    Ctx *c = next_ctx();
    if (c != &g->main_ctx) ctx_switch(g->main_ctx, *c);
}

static void fiber_entry() {
    g->body();
    pend_flush();
    Fiber &f = g->fibers[g->current];
    f.state = DONE;
    ctx_switch(f.ctx, *next_ctx());  // never resumed
    std::abort();
}

static char *stack_of(unsigned i) { return g_stacks + (size_t)i * kStack; }

static bool ensure_stacks(size_t n) {
    if (n <= g_stack_count) return true;
    if (g_stacks) munmap(g_stacks, g_stack_count * kStack);
    void *mem = mmap(nullptr, n * kStack, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) { g_stacks = nullptr; g_stack_count = 0; return false; }
    g_stacks = (char *)mem;
    g_stack_count = n;
    for (size_t i = 0; i < n; ++i) mprotect(stack_of((unsigned)i), getpagesize(), PROT_NONE);
    return true;
}

static void start_fiber(unsigned i) {
    Fiber &f = g->fibers[i];
    size_t page = getpagesize();
    // Stacks are kStack apart, so their tops would all fall into the same cache sets: start each
    // one a different number of cache lines below its top.
    size_t colour = (size_t)(i % 64) * 64;
    ctx_make(f.ctx, stack_of(i) + page, kStack - page - colour, fiber_entry);
    f.state = READY;
}

static void check_barrier_round() {
    unsigned n = (unsigned)g->fibers.size();
    int waiting = -1, done = -1;
    for (unsigned i = 0; i < n; ++i) {
        Fiber &f = g->fibers[i];
        if (f.state == DONE) { if (done < 0) done = (int)i; continue; }
        if (waiting < 0) { waiting = (int)i; continue; }
        Fiber &w = g->fibers[waiting];
        if (f.bar_line != w.bar_line ||
            (f.bar_file != w.bar_file && std::strcmp(f.bar_file, w.bar_file) != 0)) {
            threadIdx = f.tid;
            std::snprintf(g_msg, sizeof g_msg,
                          "divergent __syncthreads(): thread (%u,%u,%u) waits at %s:%d but "
                          "thread (%u,%u,%u) waits at %s:%d",
                          w.tid.x, w.tid.y, w.tid.z, w.bar_file, w.bar_line, f.tid.x, f.tid.y,
                          f.tid.z, f.bar_file, f.bar_line);
            fail(DIVERGENT_BARRIER);
        }
    }
    if (waiting >= 0 && done >= 0) {
        Fiber &w = g->fibers[waiting], &d = g->fibers[done];
        threadIdx = d.tid;
        std::snprintf(g_msg, sizeof g_msg,
                      "__syncthreads() at %s:%d is not reached by every thread of the block: "
                      "thread (%u,%u,%u) waits there but thread (%u,%u,%u) has exited",
                      w.bar_file, w.bar_line, w.tid.x, w.tid.y, w.tid.z, d.tid.x, d.tid.y,
                      d.tid.z);
        fail(EXIT_AT_BARRIER);
    }
}

// Warp-level primitives go on by groups: the lanes waiting at one whose mask names the same live
// lanes (CUDA: every non-exited lane named in the mask executes a primitive with that mask), each
// lane counted in its own group. Lanes at the same __activemask() call go on together, with
// their lanes as its result. True if any lane went on. A lane waiting for a lane that waits at
// __syncthreads(), or for lanes that wait with another mask while nothing else of the warp can
// move, can never go on: an error. A group's lanes leave with one warp-synchronisation count,
// larger than any of theirs (equal counts mean "not ordered": lanes outside the group keep
// theirs, so the race checker never orders what the group did not).
static bool release_warps() {
    unsigned n = (unsigned)g->fibers.size();
    bool released = false;
    for (unsigned w = 0; w < n; w += kWarp) {
        unsigned end = w + kWarp < n ? w + kWarp : n;
        unsigned live = 0, waiting = 0;
        for (unsigned i = w; i < end; ++i) {
            FiberState st = g->fibers[i].state;
            if (st != DONE) live |= 1u << (i - w);
            if (st == AT_WARP) waiting |= 1u << (i - w);
        }
        if (!waiting) continue;
        bool moved = false;
        int stuck = -1, blocker = -1, clash = -1;
        for (unsigned i = w; i < end; ++i) {
            Fiber &f = g->fibers[i];
            if (f.state != AT_WARP || f.wkind == W_ACTIVE) continue;
            const unsigned group = (f.wmask & live) | 1u << (i - w);
            bool ok = true;
            unsigned top = 0;
            for (unsigned j = w; j < end && ok; ++j) {
                if (!(group >> (j - w) & 1u)) continue;
                const Fiber &o = g->fibers[j];
                if (o.state == AT_WARP && o.wkind != W_ACTIVE && o.wkind != f.wkind &&
                    ((o.wmask & live) | 1u << (j - w)) == group) {
                    ok = false;  // the same lanes, at primitives of different kinds
                    if (clash < 0) { clash = (int)i; blocker = (int)j; }
                } else if (o.state != AT_WARP || o.wkind == W_ACTIVE ||
                           ((o.wmask & live) | 1u << (j - w)) != group) {
                    ok = false;
                    if (clash < 0 && (stuck < 0 || (o.state == AT_BARRIER &&
                                                    g->fibers[blocker].state != AT_BARRIER))) {
                        stuck = (int)i; blocker = (int)j;
                    }
                }
                top = o.wepoch > top ? o.wepoch : top;
            }
            if (!ok) continue;
            const unsigned r = ++g->wrel;
            for (unsigned j = w; j < end; ++j) {
                if (!(group >> (j - w) & 1u)) continue;
                Fiber &o = g->fibers[j];
                if (o.xpend >= 0) o.xrel[o.xpend] = r;
                o.xpend = -1;
                o.rel = r;
                o.wepoch = top + 1;
                o.state = READY;
            }
            moved = true;
        }
        // __activemask(): one group per call site, once no group of primitives can go on (lanes
        // still on their way from a branch join the others there first, as a GPU reconverges)
        if (!moved) {
            for (unsigned i = w; i < end; ++i) {
                Fiber &f = g->fibers[i];
                if (f.state != AT_WARP || f.wkind != W_ACTIVE) continue;
                unsigned group = 0;
                for (unsigned j = i; j < end; ++j) {
                    const Fiber &o = g->fibers[j];
                    if (o.state == AT_WARP && o.wkind == W_ACTIVE && o.bar_line == f.bar_line &&
                        o.bar_file == f.bar_file)
                        group |= 1u << (j - w);
                }
                for (unsigned j = i; j < end; ++j)
                    if (group >> (j - w) & 1u) {
                        g->fibers[j].amask = group;
                        g->fibers[j].state = READY;
                    }
                moved = true;
            }
        }
        if (moved) { released = true; continue; }
        Fiber &a = g->fibers[clash >= 0 ? clash : stuck], &b = g->fibers[blocker];
        threadIdx = b.tid;
        if (clash >= 0)
            std::snprintf(g_msg, sizeof g_msg,
                          "lanes named in one mask (0x%08x) wait at different warp-level "
                          "primitives: thread (%u,%u,%u) at %s (%s:%d), thread (%u,%u,%u) at %s "
                          "(%s:%d); every lane a mask names must execute the same primitive "
                          "with that mask",
                          a.wmask, a.tid.x, a.tid.y, a.tid.z, kWarpKindName[a.wkind],
                          a.bar_file, a.bar_line, b.tid.x, b.tid.y, b.tid.z,
                          kWarpKindName[b.wkind], b.bar_file ? b.bar_file : "?", b.bar_line);
        else if (b.state == AT_WARP)
            std::snprintf(g_msg, sizeof g_msg,
                          "warp-level primitive at %s:%d is not reached by every lane its mask "
                          "(0x%08x) names: thread (%u,%u,%u) waits there but thread (%u,%u,%u) "
                          "waits at %s:%d",
                          a.bar_file, a.bar_line, a.wmask, a.tid.x, a.tid.y, a.tid.z, b.tid.x,
                          b.tid.y, b.tid.z, b.bar_file ? b.bar_file : "?", b.bar_line);
        else
            std::snprintf(g_msg, sizeof g_msg,
                          "warp-level primitive at %s:%d is not reached by every live lane of the "
                          "warp: thread (%u,%u,%u) waits there but thread (%u,%u,%u) waits at "
                          "%s:%d", a.bar_file, a.bar_line, a.tid.x, a.tid.y, a.tid.z, b.tid.x,
                          b.tid.y, b.tid.z, b.bar_file ? b.bar_file : "?", b.bar_line);
        fail(DIVERGENT_BARRIER);
    }
    return released;
}

static void warp_wait(const char *file, int line, unsigned mask, int kind) {
    Fiber &f = g->fibers[g->current];
    f.wmask = mask;
    f.wkind = kind;
    if (g->direct) {
        std::snprintf(g_msg, sizeof g_msg, "warp-level primitive at %s:%d in a block whose "
                      "first thread never reached one", file, line);
        fail(EXIT_AT_BARRIER);
    }
    pend_flush();
    f.state = AT_WARP;
    f.bar_file = file;
    f.bar_line = line;
    ctx_switch(f.ctx, *next_ctx());
    __asm__ __volatile__("" ::: "memory");
}

void warp_sync(const char *file, int line, unsigned mask) { warp_wait(file, line, mask, W_SYNC); }

// __activemask(): the lanes of the warp that are at this same call together (the lanes a GPU
// runs converged there); it waits for no one and orders nothing.
unsigned active_mask(const char *file, int line) {
    warp_wait(file, line, 0u, W_ACTIVE);
    return g->fibers[g->current].amask;
}

static unsigned long long publish(unsigned long long value) {
    Fiber &f = g->fibers[g->current];
    unsigned slot = f.xk++ % 2;
    f.xchg[slot] = value;
    f.xrel[slot] = 0;
    f.xpend = (int)slot;
    return value;
}

// The value lane `o` published for the release that let the current lane go; false if none.
static inline bool published(const Fiber &o, unsigned long long *value) {
    const unsigned r = g->fibers[g->current].rel;
    for (int s = 0; s < 2; ++s)
        if (r && o.xrel[s] == r) { *value = o.xchg[s]; return true; }
    return false;
}

// One warp-wide exchange: every live lane publishes `value`, then reads lane `src` of its warp
// (its own value when src is not a live lane). Exchanges alternate between two slots, so one
// synchronisation each suffices: a lane can only overwrite slot k % 2 again in exchange k + 2,
// after every lane has passed exchange k + 1, hence finished reading exchange k.
unsigned long long warp_exchange(unsigned long long value, int src, unsigned mask,
                                 const char *file, int line) {
    int me = g->current;
    unsigned base = (unsigned)me / kWarp * kWarp;
    publish(value);
    warp_wait(file, line, mask, W_SHFL);
    unsigned from = base + (unsigned)src;
    unsigned long long v;
    if (src >= 0 && src < (int)kWarp && from < g->fibers.size() && published(g->fibers[from], &v))
        return v;
    return value;
}

// __ballot_sync: bit i set when live lane i of the warp passed a non-zero predicate.
unsigned warp_ballot(int pred, unsigned mask, const char *file, int line) {
    int me = g->current;
    unsigned base = (unsigned)me / kWarp * kWarp;
    publish(pred != 0);
    warp_wait(file, line, mask, W_VOTE);
    unsigned bits = 0;
    unsigned long long v;
    for (unsigned l = 0; l < kWarp && base + l < g->fibers.size(); ++l)
        if (published(g->fibers[base + l], &v) && v) bits |= 1u << l;
    return bits;
}

static void run_block(std::vector<unsigned> &order) {
    unsigned n = (unsigned)g->fibers.size();
    for (auto &f : g->fibers) {
        f.state = READY; f.epoch = 0; f.wepoch = 0; f.xk = 0; f.xrel[0] = f.xrel[1] = 0;
        f.xpend = -1; f.wmask = 0; f.rel = 0; f.amask = 0; f.wkind = 0;
        f.bar_file = nullptr; f.bar_line = 0;
        f.fseq = f.dev_fseq = f.any_fseq = 0;
        f.dev_epoch = f.dev_wepoch = f.any_epoch = f.any_wepoch = 0;
    }
    g_acq.clear();
    g_rel_shared.clear();
    int thread_order = (int)g->cfg[8];
    if (thread_order == SHUFFLE || order.size() != n) make_order(order, n, thread_order);
    // The first thread runs as a fiber; if it never reaches a barrier, neither may the others
    // (a barrier some threads skip is an error), so they run as plain calls.
    unsigned first = order[0];
    g->order = &order;
    g->limit = 1;
    start_fiber(first);
    run_round(-1);
    // (not with warp-level primitives: a lane may skip them when another warp's lanes do not)
    if (g->fibers[first].state == DONE && &__andrea_exec_uses_warps == nullptr) {
        for (unsigned k = 1; k < n; ++k) {
            unsigned i = order[k];
            set_current((int)i);
            g->direct = true;
            g->body();
            pend_flush();
            g->fibers[i].state = DONE;
        }
        g->direct = false;
        return;
    }
    for (unsigned k = 1; k < n; ++k) start_fiber(order[k]);
    g->limit = n;
    run_round(0);
    for (;;) {
        if (release_warps()) {  // warp-level synchronisations first, then the block barrier
            if (thread_order == SHUFFLE) make_order(order, n, thread_order);
            run_round(-1);
            continue;
        }
        check_barrier_round();
        bool any = false;
        unsigned top = 0;  // lanes that synchronised in smaller groups have larger counts
        for (auto &f : g->fibers) top = f.wepoch > top ? f.wepoch : top;
        for (auto &f : g->fibers)
            if (f.state == AT_BARRIER) { f.state = READY; ++f.epoch; f.wepoch = top + 1; any = true; }
        if (!any) return;  // every thread finished
        if (thread_order == SHUFFLE) make_order(order, n, thread_order);
        run_round(-1);
    }
}

void barrier(const char *file, int line) {
    Fiber &f = g->fibers[g->current];
    if (g->direct) {  // the block's first thread finished without this barrier
        std::snprintf(g_msg, sizeof g_msg,
                      "__syncthreads() at %s:%d is not reached by every thread of the block: "
                      "thread (%u,%u,%u) waits there but other threads have exited",
                      file, line, f.tid.x, f.tid.y, f.tid.z);
        fail(EXIT_AT_BARRIER);
    }
    pend_flush();
    f.state = AT_BARRIER;
    f.bar_file = file;
    f.bar_line = line;
    ctx_switch(f.ctx, *next_ctx());
    __asm__ __volatile__("" ::: "memory");
}

void trap(const char *file, int line) {
    std::snprintf(g_msg, sizeof g_msg, "__trap() at %s:%d", file, line);
    fail(TRAP);
    __builtin_unreachable();
}

[[noreturn]] void assert_fail(const char *expr, const char *file, int line) {
    std::snprintf(g_msg, sizeof g_msg, "assert(%s) failed at %s:%d", expr, file, line);
    fail(TRAP);
    __builtin_unreachable();
}

void atomic_end() { g_atomic_site = nullptr; }

// __syncthreads_count (op 0), __syncthreads_and (1), __syncthreads_or (2): a barrier that also
// combines every thread's predicate. Slots alternate by barrier epoch, as warp exchanges do.
int barrier_reduce(int pred, int op, const char *file, int line) {
    const unsigned e = g->fibers[g->current].epoch;
    g->fibers[g->current].bred[e % 2] = pred;
    barrier(file, line);
    int count = 0;
    for (const Fiber &f : g->fibers) count += f.bred[e % 2] != 0;
    const int n = (int)g->fibers.size();
    return op == 0 ? count : op == 1 ? (count == n) : (count != 0);
}

// Every live lane's value (all[lane]) and the mask of live lanes: __match_*_sync, __reduce_*_sync.
unsigned warp_gather(unsigned long long value, unsigned long long *all, unsigned mask,
                     int reduce, const char *file, int line) {
    int me = g->current;
    unsigned base = (unsigned)me / kWarp * kWarp;
    publish(value);
    warp_wait(file, line, mask, reduce ? W_REDUCE : W_MATCH);
    unsigned live = 0;
    for (unsigned l = 0; l < kWarp; ++l) {
        all[l] = 0;
        if (base + l < g->fibers.size() && published(g->fibers[base + l], &all[l])) live |= 1u << l;
    }
    return live;
}

void *dynamic_shared() { return g->dyn_shared.empty() ? nullptr : g->dyn_shared.data(); }

static void poison_shared() {
    if (__start_andrea_shared && __stop_andrea_shared)
        std::memset(__start_andrea_shared, g_fill, (size_t)(__stop_andrea_shared - __start_andrea_shared));
    if (!g->dyn_shared.empty()) std::memset(g->dyn_shared.data(), g_fill, g->dyn_shared.size());
}

static void add_range(std::vector<Range> &rs, uintptr_t lo, size_t n, int arg) {
    if (!lo || !n) return;
    Range r;
    r.lo = r.slo = lo;
    r.hi = r.shi = lo + n;
    r.arg = arg;
    r.pages.assign((n / 4 + kWordsPerPage) / kWordsPerPage + 1, nullptr);
    rs.push_back(std::move(r));
}

// cfg: grid x y z, block x y z, dynamic shared bytes, block order, thread order, seed.
// ranges: (address, bytes) per argument (0, 0 for values), checked for races when track != 0.
int launch(const unsigned long long *cfg, const unsigned long long *ranges, int nranges,
           int track, std::function<void()> body) {
    Launch L;
    std::memcpy(L.cfg, cfg, sizeof L.cfg);
    L.body = std::move(body);
    L.rng = cfg[9];
    unsigned long long nthreads = cfg[3] * cfg[4] * cfg[5];
    unsigned long long nblocks = cfg[0] * cfg[1] * cfg[2];
    if (nthreads == 0 || nthreads > 1024 || nblocks == 0) {
        std::snprintf(g_msg, sizeof g_msg, "bad launch shape: %llu threads per block, %llu blocks",
                      nthreads, nblocks);
        return BAD_LAUNCH;
    }
    gridDim = dim3{(unsigned)cfg[0], (unsigned)cfg[1], (unsigned)cfg[2]};
    blockDim = dim3{(unsigned)cfg[3], (unsigned)cfg[4], (unsigned)cfg[5]};
    L.fibers.resize(nthreads);
    for (unsigned long long i = 0; i < nthreads; ++i) {
        unsigned long long x = i % cfg[3], y = (i / cfg[3]) % cfg[4], z = i / (cfg[3] * cfg[4]);
        L.fibers[i].tid = uint3{(unsigned)x, (unsigned)y, (unsigned)z};
    }
    L.dyn_shared.assign(cfg[6], 0);
    if (!ensure_stacks(nthreads)) {
        std::snprintf(g_msg, sizeof g_msg, "cannot map %llu bytes of fiber stacks",
                      nthreads * (unsigned long long)kStack);
        return BAD_LAUNCH;
    }
    if (track) {
        for (int i = 0; i < nranges; ++i) {
            size_t before = L.ranges.size();
            add_range(L.ranges, ranges[2 * i], ranges[2 * i + 1], i);
            if (L.ranges.size() > before && (size_t)i < g_spans.size() / 2 &&
                g_spans[2 * i] <= L.ranges.back().lo && g_spans[2 * i + 1] >= L.ranges.back().hi) {
                L.ranges.back().slo = g_spans[2 * i];
                L.ranges.back().shi = g_spans[2 * i + 1];
            }
        }
        g_spans.clear();
        if (__start_andrea_shared && __stop_andrea_shared)
            add_range(L.ranges, (uintptr_t)__start_andrea_shared,
                      (size_t)(__stop_andrea_shared - __start_andrea_shared), -1);
        add_range(L.ranges, (uintptr_t)L.dyn_shared.data(), L.dyn_shared.size(), -2);
    }

    // catch faults on an alternate stack (the fault may be a fiber stack overflow)
    stack_t alt, old_alt;
    std::vector<char> alt_mem(1 << 16);
    alt.ss_sp = alt_mem.data();
    alt.ss_size = alt_mem.size();
    alt.ss_flags = 0;
    sigaltstack(&alt, &old_alt);
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; ++i) sigaction(g_sigs[i], &sa, &g_old[i]);

    Launch *saved = g;
    g = &L;
    g_msg[0] = 0;
    g_fault_addr = nullptr;
    g_fault_general = 0;
    g_fault_stack = 0;
    g_fault_pc = -1;
    g_atomic_site = nullptr;
    g_pend = Pending();
    g_rel.clear();
    g_rel_shared.clear();
    g_acq.clear();
    g_uninit_seen = false;
    g_accesses = g_tracked = 0;
    g_track_cut = 0;
    atomics_used = 0;
    int status = sigsetjmp(g_jmp, 1);
    if (status == 0) {
        g_active = 1;
        std::vector<unsigned> blocks, order;
        make_order(blocks, (unsigned)nblocks, (int)cfg[7]);
        for (unsigned b : blocks) {
            blockIdx = uint3{(unsigned)(b % cfg[0]), (unsigned)((b / cfg[0]) % cfg[1]),
                             (unsigned)(b / (cfg[0] * cfg[1]))};
            poison_shared();
            for (Range &r : L.ranges)
                if (r.arg < 0) clear_shadow(r);  // shared memory is new in every block
            L.blk = b;
            L.track = track != 0 && !g_track_cut;
            run_block(order);
            L.track = false;
        }
    }
    g_active = 0;
    g_atomic_site = nullptr;
    g_fill = 0xFF;
    g_access_limit = g_track_budget = ~0ULL;
    g = saved;
    for (int i = 0; i < 3; ++i) sigaction(g_sigs[i], &g_old[i], nullptr);
    sigaltstack(&old_alt, nullptr);
    for (Range &r : L.ranges) clear_shadow(r);
    g_rel.clear();
    g_rel_shared.clear();
    g_acq.clear();
    return status;
}

}  // namespace __andrea_exec

// ----------------------------------------------------------------------------- instrumentation
// The kernel's translation unit is compiled with -fsanitize=thread: these are the hooks the
// compiler calls (ThreadSanitizer's ABI), implemented by the checker above.
#define ANDREA_HOOK(KIND, N, W)                                                               \
    extern "C" __attribute__((noinline)) void __tsan_##KIND##N(void *p) {                      \
        __andrea_exec::access(p, N, W, __builtin_return_address(0));                            \
    }                                                                                          \
    extern "C" __attribute__((noinline)) void __tsan_unaligned_##KIND##N(void *p) {            \
        __andrea_exec::access(p, N, W, __builtin_return_address(0));                            \
    }                                                                                          \
    extern "C" __attribute__((noinline)) void __tsan_volatile_##KIND##N(void *p) {             \
        __andrea_exec::access(p, N, W, __builtin_return_address(0));                            \
    }
ANDREA_HOOK(read, 1, false) ANDREA_HOOK(read, 2, false) ANDREA_HOOK(read, 4, false)
ANDREA_HOOK(read, 8, false) ANDREA_HOOK(read, 16, false)
ANDREA_HOOK(write, 1, true) ANDREA_HOOK(write, 2, true) ANDREA_HOOK(write, 4, true)
ANDREA_HOOK(write, 8, true) ANDREA_HOOK(write, 16, true)
#undef ANDREA_HOOK
extern "C" {
__attribute__((noinline)) void __tsan_read_range(void *p, unsigned long n) {
    __andrea_exec::access(p, n, false, __builtin_return_address(0));
}
__attribute__((noinline)) void __tsan_write_range(void *p, unsigned long n) {
    __andrea_exec::access(p, n, true, __builtin_return_address(0));
}
void __tsan_init() {}
// __threadfence() calls __andrea_exec::fence (prelude.h), not these.
void __tsan_atomic_signal_fence(int) {}
void __tsan_atomic_thread_fence(int) {}
void __tsan_func_entry(void *) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void **, void *) {}
void __tsan_vptr_read(void **) {}
}

// ----------------------------------------------------------------------------- C API for ctypes
extern "C" {
const char *andrea_exec_message() { return __andrea_exec::g_msg; }
void *andrea_exec_fault_addr() { return __andrea_exec::g_fault_addr; }
int andrea_exec_fault_general() { return __andrea_exec::g_fault_general; }
int andrea_exec_fault_stack() { return __andrea_exec::g_fault_stack; }
void andrea_exec_fault_where(long long *out) { std::memcpy(out, __andrea_exec::g_fault_where, sizeof __andrea_exec::g_fault_where); }
// A race or uninitialised read: [0] argument index (-1 static shared, -2 dynamic shared),
// [1] byte offset in it, then for this access and the other one (-1 when none): write?, flat
// block, flat thread, code offset in the library; [10] the range's start address.
void andrea_exec_race(long long *out) { std::memcpy(out, __andrea_exec::g_race, sizeof __andrea_exec::g_race); }
long long andrea_exec_fault_pc() { return __andrea_exec::g_fault_pc; }
// The last launch's first read of never-written shared memory (as andrea_exec_race); 0 if none.
int andrea_exec_uninit(long long *out) {
    std::memcpy(out, __andrea_exec::g_uninit, sizeof __andrea_exec::g_uninit);
    return __andrea_exec::g_uninit_seen ? 1 : 0;
}
// The next launch's limits: memory accesses in all (it stops with TOO_MUCH_WORK past it) and
// accesses the race checker records (the rest of the launch runs untracked); 0: no limit.
void andrea_exec_set_work_limit(unsigned long long accesses, unsigned long long tracked) {
    __andrea_exec::g_access_limit = accesses ? accesses : ~0ULL;
    __andrea_exec::g_track_budget = tracked ? tracked : ~0ULL;
}
// The last launch's memory accesses, and whether its race check stopped at the budget.
unsigned long long andrea_exec_accesses() { return __andrea_exec::g_accesses; }
int andrea_exec_track_cut() { return __andrea_exec::g_track_cut; }
// The byte shared memory is filled with in the next launch (0xFF otherwise).
void andrea_exec_set_fill(int byte) { __andrea_exec::g_fill = byte & 0xFF; }
// For the next launch: (lo, hi) of each argument's whole accessible mapping (0, 0 for values).
void andrea_exec_set_spans(const unsigned long long *spans, int n) {
    __andrea_exec::g_spans.assign(spans, spans + 2 * n);
}
int andrea_exec_atomics_used() { return __andrea_exec::atomics_used; }
int __andrea_exec_launch(const unsigned long long *cfg, const unsigned long long *ranges,
                         int nranges, int track, void (*body)(void *), void *ctx) {
    return __andrea_exec::launch(cfg, ranges, nranges, track, [body, ctx] { body(ctx); });
}
}
