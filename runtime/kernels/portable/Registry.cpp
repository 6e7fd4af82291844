// The operator registry: Edge op name -> portable kernel. The compiler
// writes the same names (the Edge ops' names) into the program's operator
// table; the entries come from the ops' ODS records.
#include "runtime/kernels/SelectedOperators.h"
#include "runtime/kernels/portable/Kernels.h"
#include "runtime/platform/Platform.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace etch::runtime {
namespace {

using namespace portable;

// One entry per Edge op with a portable kernel, generated from the ops'
// records (scripts/generate-kernel-list.py).
constexpr KernelEntry kAllKernels[] = {
#define ETCH_PORTABLE_KERNEL(name, Validator, Kernel, shapeFromData)           \
  {name, validate##Validator, run##Kernel, shapeFromData},
#include "runtime/kernels/portable/PortableKernels.inc"
#undef ETCH_PORTABLE_KERNEL
};

// A selective build's (SelectedOperators.h); all of them otherwise.
constexpr auto kKernels =
    selectEntries<selectedCount(kAllKernels)>(kAllKernels);

} // namespace

const KernelEntry *portable::findPortableKernel(const char *name) {
  for (const KernelEntry &entry : kKernels)
    if (std::strcmp(entry.name, name) == 0)
      return &entry;
  return nullptr;
}

Span<const KernelEntry> portable::portableKernels() {
  return Span<const KernelEntry>(kKernels.data(), kKernels.size());
}

Error kernelError(const KernelCall &call, Error error, const char *format,
                  ...) {
  char message[384];
  va_list args;
  va_start(args, format);
  std::vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  ET_LOG(Error, "instruction %u (%s): %s", call.instruction, call.opName,
         message);
  return error;
}

} // namespace etch::runtime
