//===- MemoryPlanSvg.cpp - et-compile --memory-plan-svg -------------------===//
#include "MemoryPlanSvg.h"

#include "edge/EdgeDialect.h"
#include "etch/Serialize/OpOrigin.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

using namespace mlir;
namespace edge = etch::edge;

namespace etch::tools {
namespace {

struct Box {
  int64_t first, last; // instructions (inclusive)
  uint64_t offset, bytes;
  std::string label;
};

constexpr double kWidth = 960, kHeight = 420, kLeft = 90, kTop = 40, kGap = 70;

/// A coordinate as SVG takes it (raw_ostream writes doubles in exponent
/// form).
std::string num(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return text;
}

std::string escaped(StringRef text) {
  std::string out;
  for (char c : text)
    out += c == '<'   ? "&lt;"
           : c == '>' ? "&gt;"
           : c == '&' ? "&amp;"
           : c == '"' ? "&quot;"
                      : std::string(1, c);
  return out;
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The top-level instruction that holds \p op (a delegate body's op: the
/// delegate).
Operation *topLevel(Operation *op, Block &body) {
  while (op && op->getBlock() != &body)
    op = op->getParentOp();
  return op;
}

std::vector<Box> boxesOf(func::FuncOp func, int64_t &instructions) {
  Block &body = func.getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  instructions = 0;
  // Constants and state buffers are data, not instructions.
  for (Operation &op : body)
    if (!isa<func::ReturnOp, edge::ConstantOp, edge::BufferOp>(op))
      position[&op] = instructions++;
  auto lastRead = [&](Value value) {
    int64_t last = -1;
    for (Operation *user : value.getUsers()) {
      Operation *top = topLevel(user, body);
      last = std::max(last, isa<func::ReturnOp>(top) ? instructions - 1
                                                     : position.lookup(top));
    }
    return last;
  };
  std::vector<Box> boxes;
  for (BlockArgument argument : body.getArguments()) {
    auto offset = func.getArgAttrOfType<IntegerAttr>(argument.getArgNumber(),
                                                     "etch.arena_offset");
    auto planned = func.getArgAttrOfType<TypeAttr>(argument.getArgNumber(),
                                                   "etch.planned_type");
    Type type = planned ? planned.getValue() : argument.getType();
    if (offset)
      boxes.push_back({0, std::max<int64_t>(instructions - 1, 0),
                       static_cast<uint64_t>(offset.getInt()),
                       edge::tensorBytes(type).value_or(0),
                       "input " + std::to_string(argument.getArgNumber()) +
                           ": " + typeText(type)});
  }
  for (Operation &op : body) {
    auto offsets = op.getAttrOfType<DenseI64ArrayAttr>("etch.arena_offsets");
    if (!offsets)
      continue;
    auto planned = op.getAttrOfType<ArrayAttr>("etch.planned_types");
    std::string node = opOrigin(op.getLoc()).node;
    if (!node.empty())
      node = " (" + node + ")";
    for (auto [index, offset] : llvm::enumerate(offsets.asArrayRef())) {
      if (offset < 0)
        continue;
      Value result = op.getResult(index);
      Type type = planned ? cast<TypeAttr>(planned[index]).getValue()
                          : result.getType();
      int64_t first = position.lookup(&op);
      boxes.push_back({first, std::max(first, lastRead(result)),
                       static_cast<uint64_t>(offset),
                       edge::tensorBytes(type).value_or(0),
                       op.getName().getStringRef().str() + node + " #" +
                           std::to_string(index) + ": " + typeText(type)});
    }
  }
  return boxes;
}

/// A fill per op name, stable across runs.
std::string colourOf(StringRef label) {
  StringRef op = label.split(' ').first;
  unsigned hash = 2166136261u;
  for (char c : op)
    hash = (hash ^ static_cast<unsigned char>(c)) * 16777619u;
  return "hsl(" + std::to_string(hash % 360) + ",60%,62%)";
}

void drawMethod(func::FuncOp func, double top, llvm::raw_ostream &os) {
  int64_t instructions = 0;
  std::vector<Box> boxes = boxesOf(func, instructions);
  auto arena = func->getAttrOfType<IntegerAttr>("etch.arena_size");
  double bytes = std::max<double>(arena ? arena.getInt() : 1, 1);
  double column = kWidth / std::max<int64_t>(instructions, 1);
  os << "<text x=\"" << num(kLeft) << "\" y=\"" << num(top - 12)
     << "\" font-weight=\"bold\">" << escaped(func.getSymName()) << ": "
     << (arena ? arena.getInt() : 0) << " bytes of arena, " << instructions
     << " instructions, " << boxes.size() << " values</text>\n";
  os << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(top) << "\" width=\""
     << num(kWidth) << "\" height=\"" << num(kHeight)
     << "\" fill=\"#f6f6f6\" stroke=\"#999\"/>\n";
  for (const Box &box : boxes) {
    double y = top + box.offset / bytes * kHeight;
    double height = std::max(box.bytes / bytes * kHeight, 0.8);
    os << "<rect x=\"" << num(kLeft + box.first * column) << "\" y=\"" << num(y)
       << "\" width=\"" << num((box.last - box.first + 1) * column)
       << "\" height=\"" << num(height) << "\" fill=\"" << colourOf(box.label)
       << "\" stroke=\"#333\" stroke-width=\"0.3\"><title>"
       << escaped(box.label) << "\noffset " << box.offset << ", " << box.bytes
       << " bytes, instructions " << box.first << ".." << box.last
       << "</title></rect>\n";
  }
  // Axes: bytes down the left, instructions along the bottom.
  for (int tick = 0; tick <= 4; ++tick)
    os << "<text x=\"" << num(kLeft - 6) << "\" y=\""
       << num(top + tick * kHeight / 4 + 4) << "\" text-anchor=\"end\">"
       << static_cast<uint64_t>(bytes * tick / 4) << "</text>\n";
  for (int tick = 0; tick <= 4; ++tick)
    os << "<text x=\"" << num(kLeft + tick * kWidth / 4) << "\" y=\""
       << num(top + kHeight + 16) << "\" text-anchor=\"middle\">"
       << instructions * tick / 4 << "</text>\n";
  os << "<text x=\"" << num(kLeft + kWidth / 2) << "\" y=\""
     << num(top + kHeight + 34)
     << "\" text-anchor=\"middle\">instruction</text>\n"
     << "<text x=\"16\" y=\"" << num(top + kHeight / 2)
     << "\" transform=\"rotate(-90 16 " << num(top + kHeight / 2)
     << ")\" text-anchor=\"middle\">arena byte offset</text>\n";
}

} // namespace

void writeMemoryPlanSvg(ModuleOp module, llvm::raw_ostream &os) {
  std::vector<func::FuncOp> methods;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && func->hasAttr("etch.arena_size"))
      methods.push_back(func);
  double height = kTop + methods.size() * (kHeight + kTop + kGap);
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\""
     << num(kLeft + kWidth + 20) << "\" height=\"" << num(height)
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  double top = kTop;
  for (func::FuncOp func : methods) {
    drawMethod(func, top, os);
    top += kHeight + kTop + kGap;
  }
  os << "</svg>\n";
}

} // namespace etch::tools
