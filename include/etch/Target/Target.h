//===- Target.h - What a target tells the compiler --------------*- C++ -*-===//
//
// A target is a thin class with a few hooks: which ops it runs, how a
// claimed subgraph becomes an opaque blob, and how to print that blob. Each
// lives in targets/<name>/compiler and registers itself through the one line
// in targets/CMakeLists.txt; nothing else in the tree names a target.
//
//===----------------------------------------------------------------------===//
#ifndef ETCH_TARGET_TARGET_H
#define ETCH_TARGET_TARGET_H

#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace etch {
namespace edge {
class DelegateOp;
}
namespace quantization {
class Quantizer;
}

/// A compiled delegate: the blob and the compile specs the runtime half gets.
struct CompiledDelegate {
  std::vector<uint8_t> blob;
  std::vector<std::pair<std::string, std::string>> specs;
};

/// A setting of a target's code generator: et-compile
/// --target-option=<target>:<name>=<value>, or the etch-codegen pass's
/// target-options. Values outside \p values are refused before any
/// delegate is compiled.
struct TargetOption {
  llvm::StringRef name;
  llvm::StringRef help;
  std::vector<llvm::StringRef> values; // the accepted ones, default first
};

/// The options given for one target, by name; an option not given is
/// absent (the target uses its default).
using TargetOptionValues = std::map<std::string, std::string>;
/// Settings per target name, as parseTargetOptions leaves them.
using TargetSettings = std::map<std::string, TargetOptionValues>;

/// Where a target's delegates run.
enum class TargetDevice { Cpu, Gpu };

class Target {
public:
  virtual ~Target() = default;
  virtual llvm::StringRef name() const = 0;
  virtual TargetDevice device() const = 0;
  /// Order among the default targets (lower claims first).
  virtual int defaultPriority() const = 0;
  /// Whether et-compile uses the target without --targets.
  virtual bool onByDefault() const { return true; }
  /// Empty when the target runs \p op as it is (types, attributes, shapes);
  /// otherwise a short reason, shown in the partition summary.
  virtual std::string whyUnsupported(mlir::Operation *op) const = 0;
  /// The layout a delegate holding \p op must give its values: 0 when the
  /// op does not care. The partitioner never puts ops of two different
  /// non-zero layouts in one delegate (XNNPACK: NHWC for its 2-D operators,
  /// the program's layout for a rank-4 fully connected layer).
  virtual unsigned delegateLayout(mlir::Operation *op) const { return 0; }
  /// Whether \p delegate stores its rank-4 values channels-last (NHWC) and
  /// can take and give them so at its borders. etch-assign-layout then keeps
  /// values NHWC between such delegates: it marks each border with an
  /// `edge.permute` carrying kLayoutBorderAttr, which the target's compile
  /// must treat as a change of view only (no data movement).
  virtual bool keepsChannelsLast(edge::DelegateOp delegate) const;
  /// The settings compile reads (none by default).
  virtual std::vector<TargetOption> options() const { return {}; }
  /// Lowers a delegate body the target claimed with \p options (checked
  /// against options()); errors at the op's location.
  virtual mlir::FailureOr<CompiledDelegate>
  compile(edge::DelegateOp delegate,
          const TargetOptionValues &options) const = 0;
  /// A readable dump of a blob this target wrote (tests, --dump-delegates).
  virtual std::string describeBlob(llvm::ArrayRef<uint8_t> blob) const = 0;
  /// What the target's runtime half decides at load for \p blob, from the
  /// CPU the program runs on, in one line for the partition summary; empty
  /// when it decides nothing there.
  virtual std::string describeLoadChoices(llvm::ArrayRef<uint8_t> blob) const {
    return {};
  }
  /// The target's int8 scheme for --quantize=int8; null when it has none.
  virtual const quantization::Quantizer *quantizer() const { return nullptr; }
};

/// Marks an `edge.permute` at a delegate border that only renames the
/// dims of data already stored channels-last (see keepsChannelsLast).
inline constexpr llvm::StringLiteral kLayoutBorderAttr = "etch.layout_border";
/// The dims of those permutes: an NHWC view of an NCHW value returned from
/// a delegate, and an NCHW view of an NHWC delegate argument.
inline constexpr int64_t kNchwToNhwc[] = {0, 2, 3, 1};
inline constexpr int64_t kNhwcToNchw[] = {0, 3, 1, 2};

/// Registers \p target (names are unique; "portable" is reserved for the
/// fallback that needs no target).
void registerTarget(std::unique_ptr<Target> target);
const Target *lookupTarget(llvm::StringRef name);
std::vector<llvm::StringRef> registeredTargetNames();

/// Parses "<target>:<name>=<value>" settings into values per target name;
/// false (and \p error, naming the setting and what was expected) for a
/// malformed text, an unknown target or option, or a value not accepted.
bool parseTargetOptions(llvm::ArrayRef<std::string> texts,
                        TargetSettings &values, std::string &error);
/// The etch-codegen pass with \p settings already parsed (the pipeline's;
/// et-opt's textual target-options are parsed by the pass itself).
std::unique_ptr<mlir::Pass> createCodegen(TargetSettings settings);
/// What et-compile uses without --targets: every CPU target that was built
/// and is on by default, by default priority, then "portable".
std::vector<std::string> defaultTargets();
/// Registers every target under targets/ (generated from
/// targets/CMakeLists.txt).
void registerAllTargets();

} // namespace etch

#endif // ETCH_TARGET_TARGET_H
