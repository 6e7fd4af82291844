//===- OnnxRecurrent.cpp - RNN, GRU and LSTM unrolled over time -----------===//
//
// The sequence length is static, so each recurrent node becomes its steps
// written out: per step and gate a linear of the step's input and one of the
// hidden state (weights cut by gate at import, so a step is linears and
// elementwise ops only), then the gate arithmetic. Directions run one after
// the other; sequence_lens (forward only) masks finished rows.
//
//===----------------------------------------------------------------------===//
#include "OnnxCompose.h"

#include "edge/EdgeDialect.h"

using namespace mlir;

namespace etch::onnx_import {
namespace {

/// One of the recurrent ops' activation functions with its parameters.
struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
};

/// Functions and the (alpha, beta) each reads; -1: not read.
struct ActivationInfo {
  const char *name;
  double alpha, beta;
};
constexpr ActivationInfo kActivations[] = {
    {"Relu", -1, -1},         {"Tanh", -1, -1},
    {"Sigmoid", -1, -1},      {"Affine", 1.0, 0.0},
    {"LeakyRelu", 0.01, -1},  {"ThresholdedRelu", 1.0, -1},
    {"ScaledTanh", 1.0, 1.0}, {"HardSigmoid", 0.2, 0.5},
    {"Elu", 1.0, -1},         {"Softsign", -1, -1},
    {"Softplus", -1, -1}};

Value activate(Compose &c, const Activation &f, Value x) {
  const std::string &name = f.name;
  if (name == "Relu")
    return c.op<edge::ReluOp>(x);
  if (name == "Tanh")
    return c.op<edge::TanhOp>(x);
  if (name == "Sigmoid")
    return c.op<edge::SigmoidOp>(x);
  if (name == "Affine")
    return c.affine(x, f.alpha, f.beta);
  if (name == "LeakyRelu")
    return c.op<edge::LeakyReluOp>(x, {c.attr("negative_slope", f.alpha)});
  if (name == "ThresholdedRelu")
    return c.thresholdedReluOf(x, f.alpha);
  if (name == "ScaledTanh")
    return c.op<edge::MulOp>(
        {c.op<edge::TanhOp>(c.op<edge::MulOp>({x, c.scalar(x, f.beta)})),
         c.scalar(x, f.alpha)});
  if (name == "HardSigmoid")
    return c.hardSigmoidOf(x, f.alpha, f.beta);
  if (name == "Elu")
    return c.op<edge::EluOp>(x, {c.attr("alpha", f.alpha)});
  if (name == "Softsign")
    return c.softsignOf(x);
  return c.softplusOf(x); // Softplus
}

/// What differs between RNN, GRU and LSTM.
struct Cell {
  int64_t gates;     // row blocks of W and R
  int64_t functions; // activations per direction
  const char *defaults[3];
};

const Cell kRnn{1, 1, {"Tanh"}};
const Cell kGru{3, 2, {"Sigmoid", "Tanh"}};
const Cell kLstm{4, 3, {"Sigmoid", "Tanh", "Tanh"}};

class Recurrence {
public:
  Recurrence(Compose &c, const Cell &cell) : c(c), cell(cell) {}

  LogicalResult run() {
    if (failed(readAttributes()))
      return failure();
    Value x = c.in(0), w = c.in(1), r = c.in(2);
    if (!x || !w || !r)
      return failure();
    RankedTensorType xType = c.typeOf(x);
    if (!xType.hasStaticShape() || xType.getRank() != 3)
      return error() << "X must be a 3-D tensor of static shape, got " << xType;
    if (layout)
      x = c.permute(x, {1, 0, 2});
    steps = c.typeOf(x).getDimSize(0);
    batch = c.typeOf(x).getDimSize(1);
    element = xType.getElementType();
    if (!element.isF32() && !element.isF64())
      return error() << "X must be float or double, got " << xType;
    int64_t inputSize = c.typeOf(x).getDimSize(2);
    if (failed(expectShape(w, "W",
                           {directions, cell.gates * hidden, inputSize})) ||
        failed(expectShape(r, "R", {directions, cell.gates * hidden, hidden})))
      return failure();

    SmallVector<Value> ys, lastHidden, lastCell;
    for (int64_t d = 0; d < directions; ++d) {
      bool reverse = direction == "reverse" || (d == 1);
      if (failed(runDirection(x, d, reverse, ys, lastHidden, lastCell)))
        return failure();
    }
    // Y is [steps, directions, batch, hidden]; Y_h and Y_c [directions,
    // batch, hidden]; layout 1 puts batch first in each.
    Value y = cat(ys, 1), yh = cat(lastHidden, 0);
    if (layout) {
      y = c.permute(y, {2, 0, 1, 3});
      yh = c.permute(yh, {1, 0, 2});
    }
    if (failed(c.bind(y, 0)) || failed(c.bind(yh, 1)))
      return failure();
    if (cell.gates != 4)
      return success();
    Value yc = cat(lastCell, 0);
    return c.bind(layout ? c.permute(yc, {1, 0, 2}) : yc, 2);
  }

private:
  InFlightDiagnostic error() { return c.importer.nodeError(c.node); }

  bool has(size_t index) const {
    return index < c.node.inputs.size() && !c.node.inputs[index].empty();
  }

  LogicalResult expectShape(Value value, const char *what,
                            ArrayRef<int64_t> shape) {
    return value ? expectShape(c.typeOf(value), what, shape) : failure();
  }
  LogicalResult expectShape(RankedTensorType type, const char *what,
                            ArrayRef<int64_t> shape) {
    if (!type)
      return failure();
    if (type.getShape() == shape)
      return success();
    auto diagnostic = error()
                      << what << " has shape " << type << ", expected [";
    llvm::interleave(shape, diagnostic, ", ");
    return diagnostic << "]";
  }

  LogicalResult readAttributes() {
    hidden = c.importer.intAttr(c.node, "hidden_size", 0);
    if (hidden <= 0)
      return error() << "needs a positive hidden_size";
    layout = c.importer.intAttr(c.node, "layout", 0);
    direction = c.importer.stringAttr(c.node, "direction", "forward");
    if (direction != "forward" && direction != "reverse" &&
        direction != "bidirectional")
      return error() << "unknown direction '" << direction
                     << "' (forward, reverse, bidirectional)";
    directions = direction == "bidirectional" ? 2 : 1;
    if (c.importer.intAttr(c.node, "input_forget", 0))
      return error() << "input_forget=1 is not supported";
    linearBeforeReset = c.importer.intAttr(c.node, "linear_before_reset", 0);
    auto clipAttr = c.node.attributes.find("clip");
    clip = clipAttr == c.node.attributes.end() ? 0.0 : clipAttr->second.f;

    std::vector<std::string> names;
    auto listed = c.node.attributes.find("activations");
    if (listed != c.node.attributes.end())
      names = listed->second.strings;
    else
      for (int64_t d = 0; d < directions; ++d)
        for (int64_t i = 0; i < cell.functions; ++i)
          names.push_back(cell.defaults[i]);
    if (static_cast<int64_t>(names.size()) != cell.functions * directions)
      return error() << "has " << names.size() << " activations, expected "
                     << cell.functions * directions;
    std::vector<float> alphas, betas;
    if (auto it = c.node.attributes.find("activation_alpha");
        it != c.node.attributes.end())
      alphas = it->second.floats;
    if (auto it = c.node.attributes.find("activation_beta");
        it != c.node.attributes.end())
      betas = it->second.floats;
    // The lists hold values only for the functions that read them, in order.
    size_t nextAlpha = 0, nextBeta = 0;
    for (const std::string &name : names) {
      const ActivationInfo *info = nullptr;
      for (const ActivationInfo &known : kActivations)
        if (name == known.name)
          info = &known;
      if (!info) {
        auto diagnostic = error()
                          << "activation '" << name << "' is not supported (";
        llvm::interleave(
            kActivations, diagnostic,
            [&](const ActivationInfo &known) { diagnostic << known.name; },
            ", ");
        return diagnostic << ")";
      }
      Activation f{name, info->alpha, info->beta};
      if (info->alpha >= 0 && nextAlpha < alphas.size())
        f.alpha = alphas[nextAlpha++];
      if (info->beta >= 0 && nextBeta < betas.size())
        f.beta = betas[nextBeta++];
      activations.push_back(f);
    }
    return success();
  }

  Value slice(Value value, int64_t dim, int64_t start, int64_t end) {
    return c.op<edge::SliceOp>(
        value,
        {c.attr("dim", dim), c.attr("start", start), c.attr("end", end)});
  }

  /// value[index] along dim 0 as a slice and a view: both fold when value
  /// is a constant (weights), and a step's input is then a plain copy.
  Value take(Value value, int64_t index) {
    if (!value)
      return {};
    SmallVector<int64_t> shape(c.typeOf(value).getShape().drop_front());
    return c.view(slice(value, 0, index, index + 1), shape);
  }

  /// Rows [first, first + count) * hidden of direction d's block of input
  /// \p index, a [directions, rows(, columns)] weight. Constant weights are
  /// cut here: delegates take constant weights only.
  Value rows(size_t index, int64_t d, int64_t first, int64_t count = 1) {
    const OnnxTensor *known = c.importer.constantInput(c.node, index);
    size_t width = element.getIntOrFloatBitWidth() / 8;
    bool sameType =
        known &&
        ((element.isF32() && known->elementType == OnnxDataType::Float) ||
         (element.isF64() && known->elementType == OnnxDataType::Double));
    if (sameType && known->dims.size() >= 2 &&
        known->numElements() * width == known->bytes.size()) {
      SmallVector<int64_t> shape(known->dims.begin() + 1, known->dims.end());
      shape[0] = count * hidden;
      int64_t inner = 1;
      for (int64_t extent : ArrayRef<int64_t>(shape).drop_front())
        inner *= extent;
      size_t offset = (d * known->dims[1] + first * hidden) * inner * width;
      return c.importer.edge.constantFromBytes(
          c.loc, RankedTensorType::get(shape, element),
          ArrayRef<char>(known->bytes.data() + offset,
                         count * hidden * inner * width),
          "");
    }
    return slice(take(c.in(index), d), 0, first * hidden,
                 (first + count) * hidden);
  }

  /// W's and R's biases of gate g together, summed here when constant.
  Value biasSum(int64_t d, int64_t g) {
    const OnnxTensor *known = c.importer.constantInput(c.node, 3);
    std::optional<std::vector<double>> values =
        known ? c.importer.constantDoubles(*known) : std::nullopt;
    if (!values ||
        values->size() != size_t(directions * 2 * cell.gates * hidden))
      return c.op<edge::AddOp>({rows(3, d, g), rows(3, d, cell.gates + g)});
    std::vector<double> sum(hidden);
    const double *block = values->data() + d * 2 * cell.gates * hidden;
    for (int64_t i = 0; i < hidden; ++i)
      sum[i] = block[g * hidden + i] + block[(cell.gates + g) * hidden + i];
    return floats(sum);
  }

  Value floats(ArrayRef<double> values) {
    std::vector<char> bytes;
    for (double value : values) {
      if (element.isF64()) {
        bytes.insert(bytes.end(), reinterpret_cast<const char *>(&value),
                     reinterpret_cast<const char *>(&value) + 8);
      } else {
        float narrow = static_cast<float>(value);
        bytes.insert(bytes.end(), reinterpret_cast<const char *>(&narrow),
                     reinterpret_cast<const char *>(&narrow) + 4);
      }
    }
    auto type = RankedTensorType::get({int64_t(values.size())}, element);
    return c.importer.edge.constantFromBytes(c.loc, type, bytes, "");
  }

  Value cat(ArrayRef<Value> values, int64_t dim) {
    if (values.size() == 1)
      return values.front();
    return c.op<edge::CatOp>(values, {c.attr("dim", dim)});
  }

  Value zeros(ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, element);
    std::vector<char> bytes(type.getNumElements() *
                            (element.getIntOrFloatBitWidth() / 8));
    return c.importer.edge.constantFromBytes(c.loc, type, bytes, "");
  }

  /// Optional state input \p index for direction \p d as [batch, hidden].
  Value initialState(size_t index, int64_t d) {
    if (!has(index))
      return zeros({batch, hidden});
    Value state = c.in(index);
    SmallVector<int64_t> shape = {directions, batch, hidden};
    if (layout)
      std::swap(shape[0], shape[1]);
    if (!state || failed(expectShape(
                      state, index == 5 ? "initial_h" : "initial_c", shape)))
      return {};
    return layout ? take(c.permute(state, {1, 0, 2}), d) : take(state, d);
  }

  Value clipped(Value v) {
    if (clip <= 0)
      return v;
    return c.op<edge::ClampOp>(v, {c.attr("min", -clip), c.attr("max", clip)});
  }

  Value linear(Value input, Value weight, Value bias = {}) {
    if (bias)
      return c.op<edge::LinearOp>({input, weight, bias});
    return c.op<edge::LinearOp>({input, weight});
  }

  /// One direction's weights split by gate, so that a step is linears and
  /// elementwise ops only (no slicing of results between them).
  struct Weights {
    SmallVector<Value, 4> input, recurrent, bias;
    Value resetBias; // GRU with linear_before_reset: R's bias of the h gate
    SmallVector<Value, 3> peephole;
  };

  FailureOr<Weights> weightsOf(int64_t d) {
    Weights weights;
    if (has(3) && failed(expectShape(c.in(3), "B",
                                     {directions, 2 * cell.gates * hidden})))
      return failure();
    for (int64_t g = 0; g < cell.gates; ++g) {
      weights.input.push_back(rows(1, d, g));
      weights.recurrent.push_back(rows(2, d, g));
      if (!has(3)) {
        weights.bias.push_back({});
        continue;
      }
      Value inputBias = rows(3, d, g);
      Value recurrentBias = rows(3, d, cell.gates + g);
      if (cell.gates == 3 && g == 2 && linearBeforeReset) {
        weights.bias.push_back(inputBias);
        weights.resetBias = recurrentBias;
      } else {
        weights.bias.push_back(biasSum(d, g));
      }
    }
    if (cell.gates == 4 && has(7)) {
      if (failed(expectShape(c.in(7), "P", {directions, 3 * hidden})))
        return failure();
      for (int64_t g = 0; g < 3; ++g)
        weights.peephole.push_back(rows(7, d, g));
    }
    return weights;
  }

  LogicalResult runDirection(Value x, int64_t d, bool reverse,
                             SmallVector<Value> &ys,
                             SmallVector<Value> &lastHidden,
                             SmallVector<Value> &lastCell) {
    FailureOr<Weights> weights = weightsOf(d);
    if (failed(weights))
      return failure();
    const Activation *f = &activations[d * cell.functions];
    Value lengths;
    if (has(4)) {
      if (reverse)
        return error() << "sequence_lens with a reverse direction is not "
                          "supported";
      lengths = c.in(4);
      if (!lengths || failed(expectShape(lengths, "sequence_lens", {batch})))
        return failure();
    }

    // Every step's input first: the recurrence after them is one chain.
    SmallVector<Value> inputs;
    for (int64_t t = 0; t < steps; ++t)
      inputs.push_back(take(x, t));
    Value h = initialState(5, d);
    Value cellState = cell.gates == 4 ? initialState(6, d) : Value();
    SmallVector<Value> outputs(steps);
    for (int64_t i = 0; i < steps; ++i) {
      int64_t t = reverse ? steps - 1 - i : i;
      auto pre = [&](int64_t g) {
        return c.op<edge::AddOp>(
            {linear(inputs[t], weights->input[g], weights->bias[g]),
             linear(h, weights->recurrent[g])});
      };
      Value nextC, nextH;
      if (cell.gates == 1)
        nextH = activate(c, f[0], clipped(pre(0)));
      else if (cell.gates == 3)
        nextH = gruStep(inputs[t], h, *weights, f, pre);
      else
        std::tie(nextH, nextC) = lstmStep(cellState, *weights, f, pre);
      Value output = nextH;
      if (lengths) {
        // Rows whose sequence ended keep their state and output zeros.
        Value live = c.view(c.op<edge::LtOp>({c.scalar(lengths, t), lengths}),
                            {batch, 1});
        nextH = c.op<edge::WhereOp>({live, nextH, h});
        if (nextC)
          nextC = c.op<edge::WhereOp>({live, nextC, cellState});
        output = c.op<edge::WhereOp>({live, output, c.scalar(output, 0)});
      }
      h = nextH;
      cellState = nextC;
      outputs[t] = c.view(output, {1, 1, batch, hidden});
    }
    ys.push_back(cat(outputs, 0));
    lastHidden.push_back(c.view(h, {1, batch, hidden}));
    if (cellState)
      lastCell.push_back(c.view(cellState, {1, batch, hidden}));
    return success();
  }

  template <typename Pre>
  Value gruStep(Value xt, Value h, const Weights &weights, const Activation *f,
                Pre pre) {
    // Gate blocks in W and R: update (z), reset (r), hidden (h).
    Value z = activate(c, f[0], clipped(pre(0)));
    Value reset = activate(c, f[0], clipped(pre(1)));
    Value recurrent =
        linearBeforeReset
            ? c.op<edge::MulOp>(
                  {reset, linear(h, weights.recurrent[2], weights.resetBias)})
            : linear(c.op<edge::MulOp>({reset, h}), weights.recurrent[2]);
    Value candidate = activate(
        c, f[1],
        clipped(c.op<edge::AddOp>(
            {linear(xt, weights.input[2], weights.bias[2]), recurrent})));
    // (1 - z) * candidate + z * h == candidate + z * (h - candidate)
    return c.op<edge::AddOp>(
        {candidate, c.op<edge::MulOp>({z, c.op<edge::SubOp>({h, candidate})})});
  }

  template <typename Pre>
  std::pair<Value, Value> lstmStep(Value cPrev, const Weights &weights,
                                   const Activation *f, Pre pre) {
    // Gate blocks in W and R: input, output, forget, cell; in P: input,
    // output, forget.
    Value in = pre(0), out = pre(1), forget = pre(2);
    auto peep = [&](Value gate, int64_t index, Value state) {
      if (weights.peephole.empty())
        return gate;
      return c.op<edge::AddOp>(
          {gate, c.op<edge::MulOp>({weights.peephole[index], state})});
    };
    in = activate(c, f[0], clipped(peep(in, 0, cPrev)));
    forget = activate(c, f[0], clipped(peep(forget, 2, cPrev)));
    Value candidate = activate(c, f[1], clipped(pre(3)));
    Value next = c.op<edge::AddOp>({c.op<edge::MulOp>({forget, cPrev}),
                                    c.op<edge::MulOp>({in, candidate})});
    out = activate(c, f[0], clipped(peep(out, 1, next)));
    return {c.op<edge::MulOp>({out, activate(c, f[2], next)}), next};
  }

  Compose &c;
  const Cell &cell;
  int64_t hidden = 0, layout = 0, directions = 1, linearBeforeReset = 0;
  int64_t steps = 0, batch = 0;
  double clip = 0;
  std::string direction;
  Type element;
  std::vector<Activation> activations;
};

} // namespace

LogicalResult composeRecurrent(Compose &c) {
  const Cell &cell = c.node.opType == "RNN"   ? kRnn
                     : c.node.opType == "GRU" ? kGru
                                              : kLstm;
  return Recurrence(c, cell).run();
}

} // namespace etch::onnx_import
