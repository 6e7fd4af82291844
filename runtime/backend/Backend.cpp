#include "runtime/backend/Backend.h"

#include <cstring>

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

Error Backend::resize(void *, Span<TensorView *>, Span<TensorView *>) {
  return Error::NotSupported;
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
