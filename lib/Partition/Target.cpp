#include "etch/Target/Target.h"

#include "llvm/ADT/StringMap.h"

namespace etch {
namespace {
llvm::StringMap<std::unique_ptr<Target>> &registry() {
  static llvm::StringMap<std::unique_ptr<Target>> targets;
  return targets;
}
} // namespace

void registerTarget(std::unique_ptr<Target> target) {
  llvm::StringRef name = target->name();
  registry().try_emplace(name, std::move(target));
}

const Target *lookupTarget(llvm::StringRef name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::vector<llvm::StringRef> registeredTargetNames() {
  std::vector<llvm::StringRef> names;
  for (const auto &entry : registry())
    names.push_back(entry.getKey());
  std::sort(names.begin(), names.end());
  return names;
}

} // namespace etch
