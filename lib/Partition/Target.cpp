#include "etch/Target/Target.h"
#include "edge/EdgeDialect.h"

#include "llvm/ADT/StringMap.h"

#include <algorithm>

namespace etch {
namespace {
llvm::StringMap<std::unique_ptr<Target>> &registry() {
  static llvm::StringMap<std::unique_ptr<Target>> targets;
  return targets;
}
} // namespace

bool Target::keepsChannelsLast(edge::DelegateOp) const { return false; }

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

std::vector<std::string> defaultTargets() {
  std::vector<const Target *> cpu;
  for (const auto &entry : registry())
    if (entry.getValue()->device() == TargetDevice::Cpu &&
        entry.getValue()->onByDefault())
      cpu.push_back(entry.getValue().get());
  std::sort(cpu.begin(), cpu.end(), [](const Target *a, const Target *b) {
    return std::make_pair(a->defaultPriority(), a->name()) <
           std::make_pair(b->defaultPriority(), b->name());
  });
  std::vector<std::string> names;
  for (const Target *target : cpu)
    names.push_back(target->name().str());
  names.push_back("portable");
  return names;
}

} // namespace etch
