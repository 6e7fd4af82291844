// The kernel table the executor uses: every portable kernel, with the
// optimized run function where there is one (validation stays the portable
// kernel's). ETCH_KERNELS=portable keeps the portable run functions, to
// compare or to bisect a numeric difference.
//
// Bare metal (ETCH_BARE_METAL: scripts/cortex-m.sh) has no threads: the
// portable table alone, used in place.
#include "runtime/kernels/KernelCall.h"
#include "runtime/kernels/SelectedOperators.h"
#include "runtime/kernels/portable/Kernels.h"

#if ETCH_BARE_METAL

namespace etch::runtime {

bool selectiveKernels() { return kSelectiveBuild; }
const KernelEntry *findKernel(const char *name) {
  return portable::findPortableKernel(name);
}
void prepareKernels(size_t) {}
Span<const KernelEntry> registeredKernels() {
  return portable::portableKernels();
}

} // namespace etch::runtime

#else

#include "runtime/kernels/optimized/Kernels.h"
#include "runtime/kernels/optimized/ThreadPool.h"

#include <cstdlib>
#include <cstring>

namespace etch::runtime {
namespace {

constexpr size_t kMaxKernels = 512;

struct Table {
  KernelEntry entries[kMaxKernels];
  size_t size = 0;
};

bool optimizedEnabled() {
  const char *choice = std::getenv("ETCH_KERNELS");
  return !choice || std::strcmp(choice, "portable") != 0;
}

Table makeTable() {
  Table table;
  Span<const KernelEntry> portable = portable::portableKernels();
  bool optimized = optimizedEnabled();
  for (size_t i = 0; i < portable.size() && i < kMaxKernels; ++i) {
    KernelEntry entry = portable[i];
    if (optimized)
      for (const optimized::OptimizedKernel &faster :
           optimized::optimizedKernels())
        if (std::strcmp(faster.name, entry.name) == 0)
          entry.run = faster.run;
    table.entries[table.size++] = entry;
  }
  return table;
}

const Table &table() {
  static const Table kernels = makeTable();
  return kernels;
}

} // namespace

bool selectiveKernels() { return kSelectiveBuild; }

const KernelEntry *findKernel(const char *name) {
  for (size_t i = 0; i < table().size; ++i)
    if (std::strcmp(table().entries[i].name, name) == 0)
      return &table().entries[i];
  return nullptr;
}

void prepareKernels(size_t threads) {
  if (optimizedEnabled())
    optimized::ThreadPool::shared().resize(
        optimized::kernelThreadCount(threads));
}

Span<const KernelEntry> registeredKernels() {
  return Span<const KernelEntry>(table().entries, table().size);
}

} // namespace etch::runtime

#endif // ETCH_BARE_METAL
