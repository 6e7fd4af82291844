#include "etch/Target/Target.h"
#include "edge/EdgeDialect.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
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

bool parseTargetOptions(llvm::ArrayRef<std::string> texts,
                        TargetSettings &values, std::string &error) {
  for (llvm::StringRef text : texts) {
    auto [targetName, setting] = text.split(':');
    auto [name, value] = setting.split('=');
    if (targetName.empty() || name.empty() || value.empty() ||
        !setting.contains('=')) {
      error = "target option '" + text.str() +
              "': expected <target>:<name>=<value>";
      return false;
    }
    const Target *target = lookupTarget(targetName);
    if (!target) {
      error =
          "target option '" + text.str() + "': no target '" + targetName.str() +
          "' (registered: " + llvm::join(registeredTargetNames(), ", ") + ")";
      return false;
    }
    std::vector<TargetOption> options = target->options();
    auto option = llvm::find_if(
        options, [&](const TargetOption &o) { return o.name == name; });
    if (option == options.end()) {
      std::vector<std::string> known;
      for (const TargetOption &o : options)
        known.push_back(o.name.str() + "=" + llvm::join(o.values, "|"));
      error = "target option '" + text.str() + "': " + targetName.str() +
              " has no option '" + name.str() + "' (" +
              (known.empty() ? "it takes none"
                             : "it takes " + llvm::join(known, ", ")) +
              ")";
      return false;
    }
    if (!llvm::is_contained(option->values, value)) {
      error = "target option '" + text.str() + "': " + name.str() + " takes " +
              llvm::join(option->values, " or ") + ", not '" + value.str() +
              "'";
      return false;
    }
    values[targetName.str()][name.str()] = value.str();
  }
  return true;
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
