#include "runtime/backend/Backend.h"
#include "runtime/platform/Platform.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace etch::runtime {
namespace {
struct Registration {
  const char *name;
  Backend *backend;
};
constexpr int kMaxBackends = 16;
Registration registrations[kMaxBackends];
int registrationCount = 0;
} // namespace

size_t Backend::profile(void *, Span<DelegateEvent>) { return 0; }

Error Backend::resize(void *, Span<TensorView *>, Span<TensorView *>) {
  return Error::NotSupported;
}

Error invalidBlob(const char *target, const char *what) {
  ET_LOG(Error, "%s: %s", target, what);
  return Error::DelegateInvalidBlob;
}

size_t delegateThreadCount(Span<const CompileSpec> specs,
                           const LoadOptions &options) {
  if (options.threads)
    return options.threads;
  for (const CompileSpec &spec : specs)
    if (std::strcmp(spec.key, "num_threads") == 0 && spec.value.size() < 16) {
      char text[16] = {};
      std::memcpy(text, spec.value.data(), spec.value.size());
      if (long threads = std::strtol(text, nullptr, 10); threads > 0)
        return static_cast<size_t>(threads);
    }
  return std::max(1u, std::thread::hardware_concurrency());
}

bool registerBackend(const char *name, Backend *backend) {
  if (registrationCount == kMaxBackends || findBackend(name))
    return false;
  registrations[registrationCount++] = {name, backend};
  return true;
}

Backend *findBackend(const char *name) {
  for (int i = 0; i < registrationCount; ++i)
    if (std::strcmp(registrations[i].name, name) == 0)
      return registrations[i].backend;
  return nullptr;
}

} // namespace etch::runtime
