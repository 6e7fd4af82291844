//===- LayoutBorders.cpp - Helpers for channels-last targets --------------===//
#include "etch/Target/ChannelsLast.h"

#include "edge/EdgeDialect.h"
#include "etch/Target/Target.h"

using namespace mlir;
using namespace etch::edge;

namespace etch {

std::string whyNotGlobalAveragePool(Operation *op) {
  auto rank = [](Value value) {
    return cast<RankedTensorType>(value.getType()).getRank();
  };
  if (auto pool = dyn_cast<AdaptiveAvgPool2dOp>(op))
    return rank(pool.getSelf()) == 4 &&
                   pool.getOutputSize() == ArrayRef<int64_t>{1, 1}
               ? ""
               : "only global (1x1) adaptive average pooling";
  auto mean = cast<MeanOp>(op);
  std::optional<ArrayRef<int64_t>> dims = mean.getDim();
  if (rank(mean.getSelf()) != 4 || !dims || dims->size() != 2)
    return "only the mean over H and W of NCHW input";
  SmallVector<int64_t> normalized;
  for (int64_t dim : *dims)
    normalized.push_back(dim < 0 ? dim + 4 : dim);
  llvm::sort(normalized);
  return normalized == SmallVector<int64_t>{2, 3} ? ""
                                                  : "only the mean over H and W";
}

FailureOr<LayoutBorderViews>
collectLayoutBorderViews(Block &body, bool channelsLast, StringRef target) {
  LayoutBorderViews views;
  auto isBorder = [](Operation *user) {
    return user->hasAttr(kLayoutBorderAttr);
  };
  for (Operation &op : body) {
    auto permute = dyn_cast<PermuteOp>(op);
    if (!permute || !permute->hasAttr(kLayoutBorderAttr))
      continue;
    Value input = permute.getSelf();
    auto argument = dyn_cast<BlockArgument>(input);
    bool intoDelegate = argument &&
                        permute.getDims() == ArrayRef(kNhwcToNchw) &&
                        llvm::all_of(argument.getUsers(), isBorder);
    bool outOfDelegate =
        !argument && permute.getDims() == ArrayRef(kNchwToNhwc) &&
        llvm::all_of(permute->getUsers(), [](Operation *user) {
          return isa<DelegateReturnOp>(user);
        });
    if (!channelsLast || !(intoDelegate || outOfDelegate))
      return permute.emitOpError()
             << target
             << ": a layout border permute must view a channels-last "
                "delegate's argument as NCHW (dims 0, 3, 1, 2; its only "
                "readers) or a value it returns as NHWC (dims 0, 2, 3, 1)";
    views.permutes.insert(permute);
    views.viewed.insert(intoDelegate ? input : permute.getResult());
  }
  return views;
}

} // namespace etch
