//===- AttentionOps.cpp - scaled_dot_product_attention --------------------===//
#include "edge/EdgeDialect.h"

using namespace mlir;
using namespace etch::edge;

LogicalResult ScaledDotProductAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType query = rankedType(adaptor.getQuery());
  RankedTensorType key = rankedType(adaptor.getKey());
  RankedTensorType value = rankedType(adaptor.getValue());
  if (failed(verifySameElementType(location, name,
                                   {{"query", adaptor.getQuery()},
                                    {"key", adaptor.getKey()},
                                    {"value", adaptor.getValue()}})))
    return failure();
  int64_t rank = query.getRank();
  if (rank < 2 || key.getRank() != rank || value.getRank() != rank)
    return emitInferenceError(location, name,
                              "query, key and value must share a rank >= 2, "
                              "got " +
                                  formatType(query) + ", " + formatType(key) +
                                  ", " + formatType(value));
  if (adaptor.getDropoutP().convertToDouble() != 0.0)
    return emitInferenceError(location, name,
                              "dropout_p must be 0 (inference), got " +
                                  std::to_string(
                                      adaptor.getDropoutP().convertToDouble()));
  int64_t embed = query.getDimSize(rank - 1);
  if (!extentsAgree(embed, key.getDimSize(rank - 1)) ||
      !extentsAgree(key.getDimSize(rank - 2), value.getDimSize(rank - 2)))
    return emitInferenceError(location, name,
                              "query/key embedding sizes or key/value "
                              "sequence lengths differ: " +
                                  formatType(query) + ", " + formatType(key) +
                                  ", " + formatType(value));
  // Leading (batch, head) dims: equal, or with enable_gqa the head dim of
  // key/value divides query's.
  for (int64_t d = 0; d < rank - 2; ++d) {
    int64_t q = query.getDimSize(d);
    for (RankedTensorType other : {key, value}) {
      int64_t k = other.getDimSize(d);
      bool grouped = adaptor.getEnableGqa() && d == rank - 3 &&
                     !ShapedType::isDynamic(q) && !ShapedType::isDynamic(k) &&
                     k > 0 && q % k == 0;
      if (!extentsAgree(q, k) && !grouped)
        return emitInferenceError(
            location, name,
            "batch/head dims of query " + formatShape(query.getShape()) +
                " and key/value " + formatShape(other.getShape()) +
                " differ" +
                (d == rank - 3 ? " (grouped-query heads need enable_gqa)"
                               : ""));
    }
  }
  if (Value mask = adaptor.getAttnMask()) {
    RankedTensorType maskType = rankedType(mask);
    Type element = maskType.getElementType();
    if (!element.isInteger(1) && element != query.getElementType())
      return emitInferenceError(location, name,
                                "attn_mask must be i1 or query's element "
                                "type, got " +
                                    formatType(maskType));
    SmallVector<int64_t> scores(query.getShape().drop_back());
    scores.push_back(key.getDimSize(rank - 2));
    if (!broadcastsTo(maskType.getShape(), scores))
      return emitInferenceError(location, name,
                                "attn_mask " + formatShape(maskType.getShape()) +
                                    " does not broadcast to the scores " +
                                    formatShape(scores));
  }
  SmallVector<int64_t> shape(query.getShape().drop_back());
  shape.push_back(value.getDimSize(rank - 1));
  types.push_back(RankedTensorType::get(shape, query.getElementType()));
  return success();
}
