//===- NoAllocationCheck.cpp - execute() must not touch the heap ----------===//
//
//   etch-no-alloc-check program.etp [--method NAME] [--threads N]
//   etch-no-alloc-check --self-test   allocates while counting: must fail
//
// Loads the method (allocating is allowed there), then counts every heap
// allocation in any thread while execute() runs three times on zero inputs;
// exits 1 when there was one. A method with dynamic input dims is checked at
// its inputs' largest shapes, then their smallest, then the largest again
// (preparing a new shape may allocate; executing it may not). In sanitizer builds the count comes from the
// sanitizer's allocation hooks, elsewhere from replacing malloc.
//
//===----------------------------------------------------------------------===//
#include "runtime/module/Module.h"
#include "runtime/platform/Platform.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
std::atomic<bool> counting{false};
std::atomic<long> allocations{0};
void noteAllocation() {
  if (counting.load(std::memory_order_relaxed))
    allocations.fetch_add(1, std::memory_order_relaxed);
}
} // namespace

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ETCH_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define ETCH_ASAN 1
#endif

#ifdef ETCH_ASAN
#include <sanitizer/allocator_interface.h>
#include <sanitizer/common_interface_defs.h>
// The first allocations counted print where they come from (the sanitizer's
// unwinder does not allocate through these hooks).
static void onMalloc(const volatile void *, size_t size) {
  if (!counting.load(std::memory_order_relaxed))
    return;
  if (allocations.fetch_add(1, std::memory_order_relaxed) < 4) {
    std::fprintf(stderr, "allocation of %zu bytes during execute:\n", size);
    __sanitizer_print_stack_trace();
  }
}
static void onFree(const volatile void *) {}
static void installCounter() {
  __sanitizer_install_malloc_and_free_hooks(onMalloc, onFree);
}
#else
// glibc lets a program replace malloc; everything (operator new, the
// libraries' threads) then comes through here.
extern "C" {
void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);

void *malloc(size_t size) {
  noteAllocation();
  return __libc_malloc(size);
}
void *calloc(size_t count, size_t size) {
  noteAllocation();
  return __libc_calloc(count, size);
}
void *realloc(void *pointer, size_t size) {
  noteAllocation();
  return __libc_realloc(pointer, size);
}
void *memalign(size_t alignment, size_t size) {
  noteAllocation();
  return __libc_memalign(alignment, size);
}
void *aligned_alloc(size_t alignment, size_t size) {
  noteAllocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
  noteAllocation();
  *out = __libc_memalign(alignment, size);
  return *out || !size ? 0 : 12 /* ENOMEM */;
}
void free(void *pointer) { __libc_free(pointer); }
}
static void installCounter() {}
#endif

using namespace etch::runtime;

/// Proves the counter sees allocations (operator new and a thread's malloc).
int selfTest() {
  installCounter();
  counting = true;
  int *volatile single = new int(1);
  delete single;
  counting = false;
  long count = allocations.load();
  std::printf("self-test: %ld heap allocation(s) counted\n", count);
  return count > 0 ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && !std::strcmp(argv[1], "--self-test"))
    return selfTest();
  const char *path = nullptr, *methodName = "forward";
  LoadOptions options;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--method") && i + 1 < argc)
      methodName = argv[++i];
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      options.threads = static_cast<size_t>(std::atoi(argv[++i]));
    else
      path = argv[i];
  }
  if (!path) {
    std::fprintf(stderr, "usage: etch-no-alloc-check program.etp [--method "
                         "NAME] [--threads N]\n");
    return 2;
  }
  installCounter();
  registerAllBackends();
  Result<std::unique_ptr<Module>> module = Module::open(path, options);
  if (!module.ok())
    return 1;
  Result<std::unique_ptr<Method>> method = (*module)->loadMethod(methodName);
  if (!method.ok())
    return 1;
  Method &m = **method;
  bool dynamic = false;
  for (size_t i = 0; i < m.inputCount(); ++i)
    for (int d = 0; d < m.input(i).rank(); ++d)
      dynamic |= m.inputMinSize(i, d) != m.inputMaxSize(i, d);
  int rounds = dynamic ? 3 : 1;
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < m.inputCount(); ++i) {
      TensorView &input = m.input(i);
      std::vector<int64_t> sizes(input.rank());
      for (int d = 0; d < input.rank(); ++d)
        sizes[d] = round == 1 ? m.inputMinSize(i, d) : m.inputMaxSize(i, d);
      std::vector<uint8_t> zeros(input.capacity());
      size_t bytes = elementSize(input.scalarType());
      for (int64_t size : sizes)
        bytes *= static_cast<size_t>(size);
      if (m.setInput(i, input.scalarType(), sizes.data(), input.rank(),
                     zeros.data(), bytes) != Error::Ok) {
        std::fprintf(stderr, "etch-no-alloc-check: cannot set input %zu\n", i);
        return 1;
      }
    }
    if (m.prepare() != Error::Ok) {
      std::fprintf(stderr, "etch-no-alloc-check: prepare failed\n");
      return 1;
    }
    counting = true;
    for (int run = 0; run < 3; ++run)
      if (m.execute() != Error::Ok) {
        counting = false;
        std::fprintf(stderr, "etch-no-alloc-check: execute failed\n");
        return 1;
      }
    counting = false;
  }
  long count = allocations.load();
  std::printf("%s: %ld heap allocation(s) in %d executes\n", path, count,
              3 * rounds);
  return count == 0 ? 0 : 1;
}
