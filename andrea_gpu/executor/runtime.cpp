// andrea_gpu CPU executor runtime: fibers, barriers, fault capture, guarded buffers.
//
// Included once at the end of every generated translation unit (after the kernel source and the
// prelude). One launch = every block of the grid in a chosen order; inside a block, every thread
// is a ucontext fiber with its own guarded stack, run in a chosen order until it finishes or
// reaches __syncthreads(). A fault (SIGSEGV/SIGBUS/SIGFPE) inside a kernel is caught on an
// alternate signal stack and turned into an error code with the faulting address, so Python can
// name the argument buffer whose guard page was touched.
#include <csetjmp>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

extern "C" {
uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim;
dim3 gridDim;
extern char __start_andrea_shared[] __attribute__((weak));
extern char __stop_andrea_shared[] __attribute__((weak));
}

namespace andrea_exec {

enum Status { OK = 0, FAULT = 1, DIVERGENT_BARRIER = 2, EXIT_AT_BARRIER = 3, TRAP = 4, BAD_LAUNCH = 5 };
enum Order { FORWARD = 0, REVERSE = 1, SHUFFLE = 2 };
enum FiberState { READY = 0, AT_BARRIER = 1, DONE = 2 };

struct Fiber {
    ucontext_t ctx;
    FiberState state;
    uint3 tid;
    const char *bar_file;
    int bar_line;
};

struct Launch {
    unsigned long long cfg[10];
    std::vector<Fiber> fibers;
    char *stacks = nullptr;
    size_t stack_bytes = 0, stacks_total = 0;
    ucontext_t main_ctx;
    int current = -1;
    std::function<void()> body;
    std::vector<char> dyn_shared;
    unsigned long long rng = 0;
};

static Launch *g = nullptr;
static sigjmp_buf g_jmp;
static volatile sig_atomic_t g_active = 0;
static char g_msg[2048];
static void *g_fault_addr = nullptr;
static long long g_fault_where[6];  // block xyz, thread xyz at the fault
static struct sigaction g_old[3];
static const int g_sigs[3] = {SIGSEGV, SIGBUS, SIGFPE};
static const size_t kStack = 256 * 1024;

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

static void on_fault(int sig, siginfo_t *si, void *) {
    if (!g_active) {  // not ours: hand it to whoever had it before
        for (int i = 0; i < 3; ++i)
            if (g_sigs[i] == sig) sigaction(sig, &g_old[i], nullptr);
        raise(sig);
        return;
    }
    g_fault_addr = si->si_addr;
    note_where();
    std::snprintf(g_msg, sizeof g_msg, "%s at address %p",
                  sig == SIGSEGV ? "segmentation fault" : sig == SIGBUS ? "bus error"
                                                                         : "arithmetic exception",
                  si->si_addr);
    siglongjmp(g_jmp, FAULT);
}

static void fail(int status) {
    note_where();
    siglongjmp(g_jmp, status);
}

static void fiber_entry() {
    g->body();
    g->fibers[g->current].state = DONE;
    // returning resumes uc_link (the scheduler)
}

static void switch_to(int i) {
    Fiber &f = g->fibers[i];
    g->current = i;
    threadIdx = f.tid;
    swapcontext(&g->main_ctx, &f.ctx);
}

static void run_block(std::vector<unsigned> &order) {
    unsigned n = (unsigned)g->fibers.size();
    for (unsigned i = 0; i < n; ++i) {
        Fiber &f = g->fibers[i];
        getcontext(&f.ctx);
        f.ctx.uc_stack.ss_sp = g->stacks + (size_t)i * g->stack_bytes + getpagesize();
        f.ctx.uc_stack.ss_size = g->stack_bytes - getpagesize();
        f.ctx.uc_link = &g->main_ctx;
        makecontext(&f.ctx, fiber_entry, 0);
        f.state = READY;
        f.bar_file = nullptr;
        f.bar_line = 0;
    }
    int thread_order = (int)g->cfg[8];
    for (;;) {
        make_order(order, n, thread_order);
        for (unsigned k = 0; k < n; ++k)
            if (g->fibers[order[k]].state == READY) switch_to((int)order[k]);
        int waiting = -1, done = -1;
        for (unsigned i = 0; i < n; ++i) {
            Fiber &f = g->fibers[i];
            if (f.state == DONE) { if (done < 0) done = (int)i; continue; }
            if (waiting < 0) { waiting = (int)i; continue; }
            Fiber &w = g->fibers[waiting];
            if (f.bar_line != w.bar_line || std::strcmp(f.bar_file, w.bar_file) != 0) {
                threadIdx = f.tid;
                std::snprintf(g_msg, sizeof g_msg,
                              "divergent __syncthreads(): thread (%u,%u,%u) waits at %s:%d but "
                              "thread (%u,%u,%u) waits at %s:%d",
                              w.tid.x, w.tid.y, w.tid.z, w.bar_file, w.bar_line, f.tid.x, f.tid.y,
                              f.tid.z, f.bar_file, f.bar_line);
                fail(DIVERGENT_BARRIER);
            }
        }
        if (waiting < 0) return;  // every thread finished
        if (done >= 0) {
            Fiber &w = g->fibers[waiting], &d = g->fibers[done];
            threadIdx = d.tid;
            std::snprintf(g_msg, sizeof g_msg,
                          "__syncthreads() at %s:%d is not reached by every thread of the block: "
                          "thread (%u,%u,%u) waits there but thread (%u,%u,%u) has exited",
                          w.bar_file, w.bar_line, w.tid.x, w.tid.y, w.tid.z, d.tid.x, d.tid.y,
                          d.tid.z);
            fail(EXIT_AT_BARRIER);
        }
        for (auto &f : g->fibers) f.state = READY;
    }
}

void barrier(const char *file, int line) {
    Fiber &f = g->fibers[g->current];
    f.state = AT_BARRIER;
    f.bar_file = file;
    f.bar_line = line;
    swapcontext(&f.ctx, &g->main_ctx);
    __asm__ __volatile__("" ::: "memory");
}

void trap(const char *file, int line) {
    std::snprintf(g_msg, sizeof g_msg, "__trap() at %s:%d", file, line);
    fail(TRAP);
    __builtin_unreachable();
}

void *dynamic_shared() { return g->dyn_shared.empty() ? nullptr : g->dyn_shared.data(); }

static void poison_shared() {
    if (__start_andrea_shared && __stop_andrea_shared)
        std::memset(__start_andrea_shared, 0xFF, (size_t)(__stop_andrea_shared - __start_andrea_shared));
    if (!g->dyn_shared.empty()) std::memset(g->dyn_shared.data(), 0xFF, g->dyn_shared.size());
}

// cfg: grid x y z, block x y z, dynamic shared bytes, block order, thread order, seed
int launch(const unsigned long long *cfg, std::function<void()> body) {
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
    gridDim = dim3((unsigned)cfg[0], (unsigned)cfg[1], (unsigned)cfg[2]);
    blockDim = dim3((unsigned)cfg[3], (unsigned)cfg[4], (unsigned)cfg[5]);
    L.fibers.resize(nthreads);
    for (unsigned long long i = 0; i < nthreads; ++i) {
        unsigned long long x = i % cfg[3], y = (i / cfg[3]) % cfg[4], z = i / (cfg[3] * cfg[4]);
        L.fibers[i].tid = uint3{(unsigned)x, (unsigned)y, (unsigned)z};
    }
    L.dyn_shared.assign(cfg[6], 0);
    // one stack per thread, each with a PROT_NONE page below it (a stack overflow faults)
    L.stack_bytes = kStack;
    L.stacks_total = L.stack_bytes * nthreads;
    void *mem = mmap(nullptr, L.stacks_total, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        std::snprintf(g_msg, sizeof g_msg, "cannot map %zu bytes of fiber stacks", L.stacks_total);
        return BAD_LAUNCH;
    }
    L.stacks = (char *)mem;
    for (unsigned long long i = 0; i < nthreads; ++i)
        mprotect(L.stacks + i * L.stack_bytes, getpagesize(), PROT_NONE);

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
    int status = sigsetjmp(g_jmp, 1);
    if (status == 0) {
        g_active = 1;
        std::vector<unsigned> blocks, order;
        make_order(blocks, (unsigned)nblocks, (int)cfg[7]);
        for (unsigned b : blocks) {
            blockIdx = uint3{(unsigned)(b % cfg[0]), (unsigned)((b / cfg[0]) % cfg[1]),
                             (unsigned)(b / (cfg[0] * cfg[1]))};
            poison_shared();
            run_block(order);
        }
    }
    g_active = 0;
    g = saved;
    for (int i = 0; i < 3; ++i) sigaction(g_sigs[i], &g_old[i], nullptr);
    sigaltstack(&old_alt, nullptr);
    munmap(L.stacks, L.stacks_total);
    return status;
}

}  // namespace andrea_exec

// ----------------------------------------------------------------------------- C API for ctypes
extern "C" {
const char *andrea_exec_message() { return andrea_exec::g_msg; }
void *andrea_exec_fault_addr() { return andrea_exec::g_fault_addr; }
void andrea_exec_fault_where(long long *out) { std::memcpy(out, andrea_exec::g_fault_where, sizeof andrea_exec::g_fault_where); }
}

// Launch stubs: andrea_launch__NAME(cfg, args) calls kernel NAME with args[i] pointing at the
// i-th argument's value; andrea_sig__NAME(kinds, cap) describes the parameters (0 = pointer,
// 1 = pointer to const, 100 + size = floating point, 200 + size = signed integer, 300 + size =
// unsigned integer).
#include <type_traits>
#include <utility>
template <typename... A, std::size_t... I>
static void andrea_call(void (*f)(A...), void **args, std::index_sequence<I...>) {
    f(*static_cast<typename std::remove_cv<typename std::remove_reference<A>::type>::type *>(args[I])...);
}
template <typename... A>
static int andrea_launch(void (*f)(A...), const unsigned long long *cfg, void **args) {
    return andrea_exec::launch(cfg, [f, args] { andrea_call(f, args, std::index_sequence_for<A...>{}); });
}
template <typename T> static constexpr int andrea_kind() {
    return std::is_pointer<T>::value ? (std::is_const<typename std::remove_pointer<T>::type>::value ? 1 : 0)
           : std::is_floating_point<T>::value ? 100 + (int)sizeof(T)
           : std::is_signed<T>::value ? 200 + (int)sizeof(T)
                                      : 300 + (int)sizeof(T);
}
template <typename... A>
static int andrea_sig(void (*)(A...), int *kinds, int cap) {
    const int k[] = {andrea_kind<A>()..., -1};
    int n = (int)sizeof...(A);
    for (int i = 0; i < n && i < cap; ++i) kinds[i] = k[i];
    return n;
}
#define ANDREA_STUB(NAME)                                                                          \
    extern "C" int andrea_launch__##NAME(const unsigned long long *cfg, void **args) {             \
        return andrea_launch(NAME, cfg, args);                                                     \
    }                                                                                              \
    extern "C" int andrea_sig__##NAME(int *kinds, int cap) { return andrea_sig(NAME, kinds, cap); }
