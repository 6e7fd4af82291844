#!/usr/bin/env python3
"""Builds small ONNX models for the importer's lit tests: make_onnx.py CASE OUT."""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
rng = np.random.default_rng(0)


def weight(name, *shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def floats(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def model(nodes, inputs, outputs, initializers=(), opset=17):
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def vi(name, shape, elem=F):
    return helper.make_tensor_value_info(name, elem, shape)


def gemm():
    return model(
        [helper.make_node("Gemm", ["x", "w", "b"], ["linear"], name="fc", transB=1),
         helper.make_node("Gemm", ["x", "w2", "c"], ["scaled"], name="scaled_gemm",
                          alpha=2.0, beta=0.5),
         helper.make_node("Gemm", ["xt", "w2"], ["no_bias"], name="transposed_a",
                          transA=1)],
        [vi("x", [2, 4]), vi("xt", [4, 2])],
        [vi("linear", [2, 3]), vi("scaled", [2, 5]), vi("no_bias", [2, 5])],
        [weight("w", 3, 4), weight("b", 3), weight("w2", 4, 5), weight("c", 2, 5)])


def matmul():
    return model(
        [helper.make_node("MatMul", ["x", "w"], ["proj"], name="proj"),
         helper.make_node("MatMul", ["q", "k"], ["scores"], name="scores"),
         helper.make_node("MatMul", ["h", "h2"], ["heads"], name="heads")],
        [vi("x", [2, 7, 4]), vi("q", [2, 3, 4]), vi("k", [2, 4, 5]),
         vi("h", [2, 4, 3, 8]), vi("h2", [2, 4, 8, 3])],
        [vi("proj", [2, 7, 6]), vi("scores", [2, 3, 5]), vi("heads", [2, 4, 3, 3])],
        [weight("w", 4, 6)])


def shape_ops():
    return model(
        [helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
         helper.make_node("Transpose", ["r"], ["t"], name="transpose", perm=[1, 0, 2]),
         helper.make_node("Unsqueeze", ["t", "axes"], ["u"], name="unsqueeze"),
         helper.make_node("Squeeze", ["u", "axes"], ["s"], name="squeeze"),
         helper.make_node("Concat", ["s", "s"], ["c"], name="concat", axis=-1),
         helper.make_node("Slice", ["c", "starts", "ends", "slice_axes", "steps"], ["sl"],
                          name="slice"),
         helper.make_node("Gather", ["sl", "index"], ["g"], name="select", axis=1),
         helper.make_node("Flatten", ["x"], ["f"], name="flatten", axis=1),
         helper.make_node("Gather", ["table", "ids"], ["e"], name="embedding")],
        [vi("x", [2, 3, 4]), vi("ids", [5], TensorProto.INT64)],
        [vi("g", [6, 2]), vi("f", [2, 12]), vi("e", [5, 6])],
        [ints("shape", [0, -1, 2]), ints("axes", [0]),
         ints("starts", [1]), ints("ends", [2**63 - 1]), ints("slice_axes", [2]),
         ints("steps", [2]), ints("index", 0), weight("table", 10, 6)])


def activations():
    return model(
        [helper.make_node("Clip", ["x", "zero", "six"], ["relu6"], name="relu6"),
         helper.make_node("Clip", ["relu6", "zero"], ["relu"], name="relu_clip"),
         helper.make_node("Sigmoid", ["relu"], ["sig"], name="sigmoid"),
         helper.make_node("Tanh", ["sig"], ["tanh"], name="tanh"),
         helper.make_node("HardSwish", ["tanh"], ["hs"], name="hardswish"),
         helper.make_node("HardSigmoid", ["hs"], ["hsig"], name="hardsigmoid",
                          alpha=1.0 / 6.0),
         helper.make_node("HardSigmoid", ["hsig"], ["odd"], name="odd_hardsigmoid",
                          alpha=0.2, beta=0.5),
         helper.make_node("Softmax", ["odd"], ["sm"], name="softmax", axis=1),
         helper.make_node("LogSoftmax", ["sm"], ["lsm"], name="log_softmax"),
         helper.make_node("Erf", ["lsm"], ["erf"], name="erf"),
         helper.make_node("Div", ["erf", "two"], ["half"], name="div"),
         helper.make_node("LeakyRelu", ["half"], ["leaky"], name="leaky", alpha=0.25),
         helper.make_node("LeakyRelu", ["leaky"], ["leaky2"], name="leaky_default"),
         helper.make_node("Elu", ["leaky2"], ["elu"], name="elu", alpha=0.5)],
        [vi("x", [2, 8])], [vi("elu", [2, 8])],
        [floats("zero", 0.0), floats("six", 6.0), floats("two", 2.0)])


def norm_pool():
    return model(
        [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["bn"],
                          name="bn", epsilon=1e-3),
         helper.make_node("MaxPool", ["bn"], ["mp"], name="maxpool", kernel_shape=[3, 3],
                          strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1),
         helper.make_node("AveragePool", ["mp"], ["ap"], name="avgpool",
                          kernel_shape=[2, 2], strides=[1, 1], count_include_pad=1),
         helper.make_node("ConvTranspose", ["ap", "wt"], ["up"], name="deconv",
                          strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]),
         helper.make_node("ReduceMean", ["up"], ["mean"], name="mean", axes=[2, 3],
                          keepdims=0),
         helper.make_node("LayerNormalization", ["mean", "ln_s", "ln_b"], ["ln"],
                          name="layernorm", epsilon=1e-5),
         helper.make_node("Conv", ["x", "w"], ["same"], name="same_conv",
                          auto_pad="SAME_UPPER", strides=[2, 2]),
         helper.make_node("GlobalMaxPool", ["same"], ["gmp"], name="gmp")],
        [vi("x", [1, 4, 9, 9])], [vi("ln", [1, 3]), vi("gmp", [1, 2, 1, 1])],
        [weight("s", 4), weight("b", 4), weight("m", 4), floats("v", [1, 2, 3, 4]),
         weight("wt", 4, 3, 3, 3), weight("ln_s", 3), weight("ln_b", 3),
         weight("w", 2, 4, 3, 3)])


def reduce_sum_opset13():
    return model(
        [helper.make_node("ReduceSum", ["x", "axes"], ["y"], name="sum", keepdims=1)],
        [vi("x", [2, 3, 4])], [vi("y", [2, 1, 4])], [ints("axes", [1])], opset=13)


def shape_arithmetic():
    # Channel split as exporters write it: bounds computed from Shape.
    return model(
        [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
         helper.make_node("Gather", ["shape", "one"], ["channels"], name="channels"),
         helper.make_node("Div", ["channels", "two"], ["half"], name="half"),
         helper.make_node("Unsqueeze", ["half", "zero_axis"], ["half_1d"], name="half_1d"),
         helper.make_node("Slice", ["x", "start", "half_1d", "one_1d"], ["first"], name="split"),
         helper.make_node("Concat", ["batch", "half_1d", "minus_one"], ["target"],
                          name="target", axis=0),
         helper.make_node("Cast", ["target"], ["target64"], name="cast", to=TensorProto.INT64),
         helper.make_node("Reshape", ["first", "target64"], ["y"], name="reshape")],
        [vi("x", [2, 6, 4])], [vi("y", [2, 3, 4])],
        [ints("one", 1), ints("two", 2), ints("zero_axis", [0]), ints("start", [0]),
         ints("one_1d", [1]), ints("batch", [2]), ints("minus_one", [-1])])


def shape_arithmetic_ranks():
    # What onnx's function expansions compute from ranks: Size of a Shape
    # (a scalar) less a 1-D axis, ConstantOfShape of it, Neg, Max, Range.
    return model(
        [helper.make_node("Shape", ["x"], ["shape"], name="shape"),
         helper.make_node("Size", ["shape"], ["rank"], name="rank"),
         helper.make_node("Sub", ["rank", "one_1d"], ["count"], name="count"),
         helper.make_node("ConstantOfShape", ["count"], ["ones"], name="ones",
                          value=helper.make_tensor("v", TensorProto.INT64, [1], [1])),
         helper.make_node("Neg", ["minus_one"], ["plus_one"], name="neg"),
         helper.make_node("Max", ["plus_one", "zero_1d", "minus_one"], ["last"], name="max"),
         helper.make_node("Concat", ["minus_one", "ones", "last"], ["target"],
                          name="target", axis=0),
         helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape"),
         helper.make_node("Gather", ["shape", "one"], ["channels"], name="channels"),
         helper.make_node("Range", ["zero", "channels", "two"], ["even"], name="range"),
         helper.make_node("Gather", ["x", "even"], ["z"], name="pick", axis=1)],
        [vi("x", [2, 6, 4])], [vi("y", [48, 1, 1, 1]), vi("z", [2, 3, 4])],
        [ints("one", 1), ints("two", 2), ints("zero", 0), ints("one_1d", [1]),
         ints("zero_1d", [0]), ints("minus_one", [-1])])


def data_dependent():
    # Extents the values decide: NonZero, Compress of elements and of rows,
    # and ops after them.
    return model(
        [helper.make_node("Greater", ["x", "zero"], ["positive"], name="positive"),
         helper.make_node("NonZero", ["positive"], ["where"], name="where"),
         helper.make_node("Reshape", ["positive", "flat"], ["flat_mask"], name="flat_mask"),
         helper.make_node("Compress", ["x", "flat_mask"], ["picked"], name="picked"),
         helper.make_node("Mul", ["picked", "two"], ["doubled"], name="doubled"),
         helper.make_node("ReduceMax", ["x"], ["row_max"], name="row_max", axes=[1],
                          keepdims=0),
         helper.make_node("Greater", ["row_max", "half"], ["big_rows"], name="big_rows"),
         helper.make_node("Compress", ["x", "big_rows"], ["rows"], name="rows", axis=0),
         helper.make_node("Relu", ["rows"], ["relu_rows"], name="relu_rows")],
        [vi("x", [3, 4])],
        [vi("where", [2, None], TensorProto.INT64), vi("doubled", [None]),
         vi("relu_rows", [None, 4])],
        [floats("zero", 0.0), floats("two", 2.0), floats("half", 0.5), ints("flat", [-1])],
        opset=13)


def unique_axis():
    return model(
        [helper.make_node("Unique", ["x"], ["y"], name="unique", axis=0)],
        [vi("x", [3, 4])], [vi("y", [None, 4])], opset=13)


def gelu_pattern():
    # Exact GELU as torch.onnx writes it, constants from Constant nodes.
    def const(name, value):
        return helper.make_node("Constant", [], [name], name=name,
                                value=numpy_helper.from_array(np.array(value, np.float32)))
    return model(
        [const("sqrt2", 1.4142135), helper.make_node("Div", ["x", "sqrt2"], ["d"], name="div"),
         helper.make_node("Erf", ["d"], ["e"], name="erf"), const("one", 1.0),
         helper.make_node("Add", ["e", "one"], ["a"], name="add"),
         helper.make_node("Mul", ["x", "a"], ["m"], name="mul"), const("half", 0.5),
         helper.make_node("Mul", ["m", "half"], ["y"], name="gelu_out")],
        [vi("x", [2, 8])], [vi("y", [2, 8])])


def math():
    ops = ["Exp", "Log", "Sqrt", "Neg", "Abs", "Sin", "Cos", "Reciprocal", "Floor",
           "Ceil", "Round"]
    nodes, previous = [], "x"
    for op in ops:
        nodes.append(helper.make_node(op, [previous], [op.lower()], name=op.lower()))
        previous = op.lower()
    nodes += [helper.make_node("Pow", [previous, "two"], ["pow"], name="pow"),
              helper.make_node("Max", ["pow", "x"], ["max"], name="max"),
              helper.make_node("Min", ["max", "x"], ["y"], name="min")]
    return model(nodes, [vi("x", [2, 3])], [vi("y", [2, 3])], [floats("two", 2.0)])


def trigonometry():
    """Each op reads the input directly (their domains differ)."""
    ops = ["Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Sign"]
    nodes = [helper.make_node(op, ["x"], [op.lower()], name=op.lower()) for op in ops]
    return model(nodes, [vi("x", [2, 3])], [vi(op.lower(), [2, 3]) for op in ops])


def masks():
    return model(
        [helper.make_node("Greater", ["x", "zero"], ["positive"], name="greater"),
         helper.make_node("Where", ["positive", "x", "zero"], ["relu"], name="where"),
         helper.make_node("Cast", ["relu"], ["ints"], name="cast", to=TensorProto.INT64),
         helper.make_node("Pad", ["x", "pads", "minus_one"], ["padded"], name="pad"),
         helper.make_node("Split", ["padded", "sizes"], ["left", "right"], name="split",
                          axis=1)],
        [vi("x", [2, 3])],
        [vi("ints", [2, 3], TensorProto.INT64), vi("left", [3, 2]), vi("right", [3, 4])],
        [floats("zero", 0.0), ints("pads", [0, 1, 1, 2]), floats("minus_one", -1.0),
         ints("sizes", [2, 4])])


def extremes():
    return model(
        [helper.make_node("ReduceMax", ["x"], ["max"], name="max", axes=[1], keepdims=0),
         helper.make_node("ReduceMin", ["x"], ["min"], name="min", axes=[0]),
         helper.make_node("ArgMax", ["x"], ["argmax"], name="argmax", axis=1, keepdims=0)],
        [vi("x", [2, 5])],
        [vi("max", [2]), vi("min", [1, 5]), vi("argmax", [2], TensorProto.INT64)])


def bad_opset():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [vi("x", [2])], [vi("y", [2])], opset=23)


def asymmetric_pads():
    return model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="lopsided",
                          pads=[0, 0, 1, 1])],
        [vi("x", [1, 2, 8, 8])], [vi("y", [1, 3, 8, 8])], [weight("w", 3, 2, 2, 2)])


def transposed_asymmetric_pads():
    return model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="lopsided_up",
                          pads=[0, 0, 1, 1])],
        [vi("x", [1, 2, 8, 8])], [vi("y", [1, 3, 8, 8])], [weight("w", 2, 3, 2, 2)])


def transposed_same():
    return model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="same_up",
                          auto_pad="SAME_UPPER", strides=[2, 2])],
        [vi("x", [1, 2, 3, 3])], [vi("y", [1, 3, 6, 6])], [weight("w", 2, 3, 3, 3)])


def transposed_wide_output():
    """output_shape 11 from a full transposed extent of 7: two zero rows
    would have to come before the output."""
    return model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="wide_up",
                          output_shape=[11, 11], strides=[2, 2])],
        [vi("x", [1, 2, 3, 3])], [vi("y", [1, 3, 11, 11])], [weight("w", 2, 3, 3, 3)])


def transposed_dynamic_pads():
    """Asymmetric pads on a dynamic width: the crop's end counts from the back."""
    return model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="lopsided_up",
                          pads=[0, 0, 1, 1])],
        [vi("x", [1, 2, 8, "width"])], [vi("y", [1, 3, 8, None])],
        [weight("w", 2, 3, 2, 2)])


def transposed_same_dynamic():
    """auto_pad SAME on a dynamic width: the output size is unknown."""
    return model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="same_up",
                          auto_pad="SAME_UPPER", strides=[2, 2])],
        [vi("x", [1, 2, 3, "width"])], [vi("y", [1, 3, 6, None])],
        [weight("w", 2, 3, 3, 3)])


def huge_dilation():
    """A dilation whose window does not fit int64 under auto_pad SAME."""
    return model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="wide_window",
                          auto_pad="SAME_UPPER", dilations=[2 ** 62, 1])],
        [vi("x", [1, 2, 8, 8])], [vi("y", None)], [weight("w", 3, 2, 3, 3)])


def dynamic_kernel():
    """A convolution whose weight is a graph input of unknown kernel size."""
    return model(
        [helper.make_node("Conv", ["x", "w"], ["y"], name="runtime_kernel")],
        [vi("x", [1, 2, 8, 8]), vi("w", [3, 2, "kh", "kw"])], [vi("y", None)])


def nms_runtime_threshold():
    """NonMaxSuppression whose IoU threshold is a graph input."""
    return model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "most", "iou"],
                          ["selected"], name="suppress")],
        [vi("boxes", [1, 6, 4]), vi("scores", [1, 2, 6]), vi("iou", [1])],
        [vi("selected", [None, 3], TensorProto.INT64)], [ints("most", [3])])


def control_flow():
    """Loop with a constant trip count (a carried value and a scan output),
    If with a constant and with a run-time condition, and Scan both ways."""
    F_ = TensorProto.FLOAT
    loop_body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_f"], to=F_),
         helper.make_node("Mul", ["acc", "two"], ["twice"]),
         helper.make_node("Add", ["twice", "i_f"], ["acc_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0)],
        "loop_body",
        [vi("i", [], TensorProto.INT64), vi("cond_in", [], TensorProto.BOOL),
         vi("acc", [3, 4])],
        [vi("cond_out", [], TensorProto.BOOL), vi("acc_out", [3, 4]), vi("total", [])],
        [floats("two", 2.0)])
    then_branch = helper.make_graph(
        [helper.make_node("Add", ["x", "one"], ["plus"])], "then",
        [], [vi("plus", [3, 4])], [floats("one", 1.0)])
    else_branch = helper.make_graph(
        [helper.make_node("Sub", ["x", "one_"], ["minus"])], "else",
        [], [vi("minus", [3, 4])], [floats("one_", 1.0)])
    relu_branch = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["relu"])], "relu", [], [vi("relu", [3, 4])])
    neg_branch = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["neg"])], "neg", [], [vi("neg", [3, 4])])
    scan_body = helper.make_graph(
        [helper.make_node("Add", ["sum_in", "row"], ["sum_out"]),
         helper.make_node("Identity", ["sum_out"], ["partial"])],
        "scan_body", [vi("sum_in", [4]), vi("row", [4])],
        [vi("sum_out", [4]), vi("partial", [4])])
    return model(
        [helper.make_node("Loop", ["count", "", "x"], ["acc_final", "totals"],
                          name="loop", body=loop_body),
         helper.make_node("If", ["yes"], ["picked"], name="known_if",
                          then_branch=then_branch, else_branch=else_branch),
         helper.make_node("If", ["flag"], ["chosen"], name="runtime_if",
                          then_branch=relu_branch, else_branch=neg_branch),
         helper.make_node("Scan", ["zeros", "x"], ["sum", "running"], name="scan",
                          body=scan_body, num_scan_inputs=1),
         helper.make_node("Scan", ["zeros", "x"], ["sum_back", "running_back"],
                          name="scan_back", body=scan_body, num_scan_inputs=1,
                          scan_input_directions=[1], scan_output_directions=[1])],
        [vi("x", [3, 4]), vi("flag", [], TensorProto.BOOL)],
        [vi("acc_final", [3, 4]), vi("totals", [3]), vi("picked", [3, 4]),
         vi("chosen", [3, 4]), vi("sum", [4]), vi("running", [3, 4]),
         vi("running_back", [3, 4])],
        [ints("count", 3), numpy_helper.from_array(np.array(True), "yes"),
         floats("zeros", [0.0] * 4)])


def loop_runtime_count():
    """A Loop whose trip count is a graph input."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]),
         helper.make_node("Neg", ["v"], ["v_out"])], "body",
        [vi("i", [], TensorProto.INT64), vi("c", [], TensorProto.BOOL), vi("v", [2])],
        [vi("c_out", [], TensorProto.BOOL), vi("v_out", [2])])
    return model(
        [helper.make_node("Loop", ["n", "", "x"], ["y"], name="repeat", body=body)],
        [vi("n", [], TensorProto.INT64), vi("x", [2])], [vi("y", [2])])


def volume_pools():
    """Global and windowed pooling over an NCDHW (video) input."""
    return model(
        [helper.make_node("GlobalAveragePool", ["x"], ["mean"], name="gap"),
         helper.make_node("GlobalMaxPool", ["x"], ["peak"], name="gmp"),
         helper.make_node("MaxPool", ["x"], ["pooled"], name="pool",
                          kernel_shape=[2, 2, 2], strides=[1, 2, 2])],
        [vi("x", [1, 2, 3, 4, 5])],
        [vi("mean", [1, 2, 1, 1, 1]), vi("peak", [1, 2, 1, 1, 1]),
         vi("pooled", [1, 2, 2, 2, 2])])


def nms_every_box():
    """NonMaxSuppression as torchvision exports it: INT64_MAX boxes allowed."""
    return model(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "most", "iou"],
                          ["selected"], name="suppress")],
        [vi("boxes", [1, 6, 4]), vi("scores", [1, 1, 6])],
        [vi("selected", [None, 3], TensorProto.INT64)],
        [ints("most", [2**63 - 1]), floats("iou", [0.5])])


def training_dropout():
    return model(
        [helper.make_node("Dropout", ["x", "ratio", "training"], ["y"], name="drop")],
        [vi("x", [2, 3]), vi("training", [], TensorProto.BOOL)], [vi("y", [2, 3])],
        [floats("ratio", 0.5)])


def recurrent(op="LSTM", w_rows=12, inputs=("x", "w", "r"), **attributes):
    """A one-step recurrent node over [1, 2, 3] with hidden size 3."""
    def make():
        return model(
            [helper.make_node(op, list(inputs), ["", "h"], name="cell", hidden_size=3,
                              **attributes)],
            [vi("x", [1, 2, 3])], [vi("h", [1, 2, 3])],
            [weight("w", 1, w_rows, 3), weight("r", 1, w_rows, 3),
             ints("lens", [1, 1])])
    return make


RECURRENT_ERRORS = {
    "rnn_unknown_activation": recurrent("RNN", 3, activations=["Swish"]),
    "lstm_input_forget": recurrent(input_forget=1),
    "gru_wrong_weight": recurrent("GRU", 12),
    "lstm_reverse_lengths": recurrent(inputs=("x", "w", "r", "", "lens"), direction="reverse"),
    "rnn_bad_direction": recurrent("RNN", 3, direction="sideways"),
}


def scatter_multiply():
    return model(
        [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], name="scatter",
                          reduction="mul")],
        [vi("x", [4])], [vi("y", [4])],
        [ints("i", [[1], [2]]), floats("u", [2.0, 3.0])])


def runtime_depth():
    return model(
        [helper.make_node("OneHot", ["i", "depth", "values"], ["y"], name="hot")],
        [vi("i", [3], TensorProto.INT64), vi("depth", [], TensorProto.INT64)],
        [vi("y", [3, None])], [floats("values", [0.0, 1.0])])


def batch_norm_short_scale():
    """A per-channel scale one entry short: a check of edge.batch_norm's verifier."""
    return model(
        [helper.make_node("BatchNormalization", ["x", "scale", "b", "mean", "var"], ["y"],
                          name="bn")],
        [vi("x", [1, 4, 2, 2])], [vi("y", [1, 4, 2, 2])],
        [weight("scale", 3), weight("b", 4), weight("mean", 4), floats("var", [1.0] * 4)])


def sequence_input():
    seq = helper.make_tensor_sequence_value_info("seq", F, [2])
    return model([helper.make_node("SequenceLength", ["seq"], ["n"], name="len")],
                 [seq], [vi("n", [], TensorProto.INT64)])


def string_input():
    return model([helper.make_node("Identity", ["x"], ["y"], name="id")],
                 [vi("x", [2], TensorProto.STRING)], [vi("y", [2], TensorProto.STRING)])


def einsum_diagonal():
    return model([helper.make_node("Einsum", ["x"], ["y"], name="trace",
                                   equation="ii->i")],
                 [vi("x", [3, 3])], [vi("y", [3])])


def einsum_mismatch():
    return model([helper.make_node("Einsum", ["a", "b"], ["y"], name="mm",
                                   equation="ij,jk->ik")],
                 [vi("a", [2, 3]), vi("b", [4, 5])], [vi("y", [2, 5])])


def unranked_custom():
    graph = helper.make_graph(
        [helper.make_node("Mystery", ["x"], ["m"], name="mystery", domain="com.example"),
         helper.make_node("Relu", ["m"], ["y"], name="relu")],
        "test", [vi("x", [2])], [vi("y", [2])],
        value_info=[helper.make_tensor_value_info("m", F, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.example", 1)])


def dynamic_reshape():
    return model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape_by_input")],
        [vi("x", [2, 6]), vi("shape", [2], TensorProto.INT64)], [vi("y", [3, 4])])


def undefined_input():
    return model(
        [helper.make_node("Relu", ["ghost"], ["y"], name="haunted")],
        [vi("x", [2])], [vi("y", [2])])


def shape_mismatch():
    return model(
        [helper.make_node("Add", ["x", "z"], ["y"], name="bad_add")],
        [vi("x", [2, 3]), vi("z", [4])], [vi("y", [2, 3])])


def no_output():
    return model(
        [helper.make_node("Relu", ["x"], [""], name="sink"),
         helper.make_node("Relu", ["x"], ["y"], name="relu")],
        [vi("x", [2])], [vi("y", [2])])


def no_op_type():
    return model(
        [helper.make_node("", ["x"], ["y"], name="blank")],
        [vi("x", [2])], [vi("y", [2])])


def qdq():
    """A QDQ conv as onnxruntime writes it: int8 activations, per-channel
    int8 weights, int32 bias; the output QuantizeLinear has no zero point
    (uint8)."""
    w = numpy_helper.from_array(rng.integers(-127, 128, (4, 3, 3, 3)).astype(np.int8), "w_q")
    b = numpy_helper.from_array(rng.integers(-1000, 1000, (4,)).astype(np.int32), "b_q")
    return model(
        [helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zp"], ["xq"], name="x_q"),
         helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zp"], ["xd"], name="x_dq"),
         helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zp"], ["wd"], name="w_dq",
                          axis=0),
         helper.make_node("DequantizeLinear", ["b_q", "b_scale"], ["bd"], name="b_dq",
                          axis=0),
         helper.make_node("Conv", ["xd", "wd", "bd"], ["y"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("QuantizeLinear", ["y", "y_scale"], ["yq"], name="y_q"),
         helper.make_node("DequantizeLinear", ["yq", "y_scale"], ["out"], name="y_dq")],
        [vi("x", [1, 3, 6, 6])], [vi("out", [1, 4, 6, 6])],
        [floats("x_scale", 0.02),
         numpy_helper.from_array(np.array(-4, dtype=np.int8), "x_zp"),
         w, floats("w_scale", [0.01, 0.02, 0.005, 0.03]),
         numpy_helper.from_array(np.zeros(4, dtype=np.int8), "w_zp"),
         b, floats("b_scale", [2e-4, 4e-4, 1e-4, 6e-4]), floats("y_scale", 0.05)],
        opset=13)


def qdq_error(node, x_elem=F, y_elem=F):
    return model([node], [vi("x", [2, 4], x_elem)], [vi("y", [2, 4], y_elem)],
                 [floats("s", 0.1), floats("s3", [0.1, 0.2, 0.3])], opset=13)


U8 = TensorProto.UINT8


def qdq_runtime_scale():
    return qdq_error(helper.make_node("QuantizeLinear", ["x", "x"], ["y"], name="q"),
                     y_elem=U8)


def qdq_block_size():
    return qdq_error(helper.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq",
                                      block_size=2), x_elem=U8)


def qdq_axis_extent():
    return qdq_error(helper.make_node("QuantizeLinear", ["x", "s3"], ["y"], name="q", axis=1),
                     y_elem=U8)


def qdq_float_input():
    return qdq_error(helper.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq"))


CASES = {f.__name__: f for f in [qdq, qdq_runtime_scale, qdq_block_size, qdq_axis_extent,
                                 qdq_float_input, gemm, matmul, shape_ops, shape_arithmetic, shape_arithmetic_ranks, data_dependent, unique_axis, gelu_pattern,
                                 math, trigonometry, masks, extremes, activations, norm_pool,
                                 reduce_sum_opset13, bad_opset, asymmetric_pads,
                                 transposed_asymmetric_pads, transposed_same, transposed_wide_output, transposed_dynamic_pads, transposed_same_dynamic,
                                 huge_dilation, dynamic_kernel, nms_runtime_threshold,
                                 control_flow, loop_runtime_count, volume_pools, nms_every_box,
                                 training_dropout, scatter_multiply, runtime_depth, batch_norm_short_scale,
                                 sequence_input, string_input, einsum_diagonal,
                                 einsum_mismatch, unranked_custom,
                                 dynamic_reshape, undefined_input, shape_mismatch,
                                 no_output, no_op_type]}
CASES.update(RECURRENT_ERRORS)

if __name__ == "__main__":
    case, out = sys.argv[1], sys.argv[2]
    onnx.save(CASES[case](), out)
