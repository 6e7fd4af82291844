// non_max_suppression whose largest output (batches x classes x boxes
// per class) does not fit int64.
func.func @forward(%boxes: tensor<1x4294967296x4xf32>, %scores: tensor<1x4294967296x4294967296xf32>) -> tensor<?x3xi64> {
  %0 = edge.non_max_suppression %boxes, %scores {iou_threshold = 0.5 : f64, max_output_boxes_per_class = 9223372036854775807 : i64, score_threshold = 0.0 : f64} : (tensor<1x4294967296x4xf32>, tensor<1x4294967296x4294967296xf32>) -> tensor<?x3xi64>
  return %0 : tensor<?x3xi64>
}
