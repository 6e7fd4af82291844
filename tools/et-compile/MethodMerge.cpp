#include "MethodMerge.h"

#include "edge/ConstantData.h"
#include "edge/EdgeDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

namespace etch::tools {

static bool isIdentifier(llvm::StringRef name) {
  if (name.empty() || !(std::isalpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return std::isalnum(c) || c == '_'; });
}

bool parseMethodSpecs(const std::vector<std::string> &specs,
                      std::vector<std::pair<std::string, std::string>> &methods,
                      std::string &error) {
  llvm::StringSet<> seen;
  for (const std::string &spec : specs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (path.empty() || name.size() == spec.size()) {
      error = "--method '" + spec + "' is not NAME=MODEL";
      return false;
    }
    if (!isIdentifier(name)) {
      error = "--method '" + spec +
              "': a method name is letters, digits and '_', not starting "
              "with a digit";
      return false;
    }
    if (!seen.insert(name).second) {
      error = "--method: method '" + name.str() + "' is named twice";
      return false;
    }
    methods.emplace_back(name.str(), path.str());
  }
  return true;
}

/// \p into's `etch.metadata` with \p from's entries added.
static bool mergeMetadata(mlir::ModuleOp into, mlir::DictionaryAttr from,
                          llvm::StringRef method, std::string &error) {
  mlir::NamedAttrList entries;
  if (auto existing =
          into->getAttrOfType<mlir::DictionaryAttr>("etch.metadata"))
    entries.assign(existing.getValue());
  for (mlir::NamedAttribute entry : from) {
    mlir::Attribute present = entries.get(entry.getName());
    if (present && present != entry.getValue()) {
      error = "method '" + method.str() + "': metadata '" +
              entry.getName().str() +
              "' differs from an earlier method's; give the methods equal "
              "metadata";
      return false;
    }
    entries.set(entry.getName(), entry.getValue());
  }
  into->setAttr("etch.metadata", entries.getDictionary(into.getContext()));
  return true;
}

/// Equal bytes (splat or not, inline or a resource blob).
static bool sameContents(mlir::ElementsAttr a, mlir::ElementsAttr b) {
  if (a == b)
    return true;
  llvm::SmallVector<char> aStorage, bStorage;
  std::optional<llvm::ArrayRef<char>> aBytes =
      edge::getConstantBytes(a, aStorage);
  std::optional<llvm::ArrayRef<char>> bBytes =
      edge::getConstantBytes(b, bStorage);
  return aBytes && bBytes && *aBytes == *bBytes;
}

/// State buffers of one name are one buffer at run time: the methods must
/// declare them alike.
static bool checkSharedBuffers(mlir::ModuleOp program, mlir::func::FuncOp added,
                               std::string &error) {
  llvm::StringMap<std::pair<edge::BufferOp, llvm::StringRef>> declared;
  for (auto func : program.getOps<mlir::func::FuncOp>())
    func.walk([&](edge::BufferOp buffer) {
      declared.try_emplace(buffer.getName(), buffer, func.getSymName());
    });
  mlir::WalkResult walked = added.walk([&](edge::BufferOp buffer) {
    auto found = declared.find(buffer.getName());
    if (found == declared.end())
      return mlir::WalkResult::advance();
    auto [other, otherMethod] = found->second;
    if (other.getType() == buffer.getType() &&
        sameContents(other.getValue(), buffer.getValue()))
      return mlir::WalkResult::advance();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "state buffer '" << buffer.getName() << "' is " << buffer.getType()
       << " in method '" << added.getSymName() << "' but " << other.getType()
       << " in method '" << otherMethod
       << "' (or starts with other contents): methods share state buffers "
          "by name";
    error = text;
    return mlir::WalkResult::interrupt();
  });
  return !walked.wasInterrupted();
}

bool addMethod(mlir::ModuleOp program, mlir::ModuleOp method,
               llvm::StringRef name, std::string &error) {
  llvm::SmallVector<mlir::func::FuncOp> functions;
  for (auto func : method.getOps<mlir::func::FuncOp>())
    if (!func.isExternal())
      functions.push_back(func);
  if (functions.size() != 1) {
    error = "method '" + name.str() + "': the model compiled to " +
            std::to_string(functions.size()) + " functions; expected one";
    return false;
  }
  if (program.lookupSymbol(name)) {
    error = "method '" + name.str() + "' is defined twice";
    return false;
  }
  for (mlir::NamedAttribute attribute : method->getAttrs()) {
    if (attribute.getName() == "etch.metadata") {
      if (!mergeMetadata(program,
                         mlir::cast<mlir::DictionaryAttr>(attribute.getValue()),
                         name, error))
        return false;
      continue;
    }
    if (attribute.getName() == mlir::SymbolTable::getSymbolAttrName())
      continue;
    mlir::Attribute present = program->getAttr(attribute.getName());
    if (present && present != attribute.getValue()) {
      error = "method '" + name.str() + "': module attribute '" +
              attribute.getName().str() + "' differs from an earlier method's";
      return false;
    }
    program->setAttr(attribute.getName(), attribute.getValue());
  }
  functions.front().setSymName(name);
  if (!checkSharedBuffers(program, functions.front(), error))
    return false;
  // Anything else the model's module holds (declarations) comes along; a
  // declaration both have is kept once.
  for (mlir::Operation &op :
       llvm::make_early_inc_range(method.getBody()->getOperations())) {
    auto symbol = mlir::dyn_cast<mlir::SymbolOpInterface>(op);
    mlir::Operation *present =
        symbol ? program.lookupSymbol(symbol.getName()) : nullptr;
    if (present) {
      auto declared = mlir::dyn_cast<mlir::func::FuncOp>(op);
      auto existing = mlir::dyn_cast<mlir::func::FuncOp>(present);
      if (declared && existing && declared.isExternal() &&
          existing.isExternal() &&
          declared.getFunctionType() == existing.getFunctionType())
        continue;
      error = "method '" + name.str() + "': symbol '" + symbol.getName().str() +
              "' is defined by an earlier method too";
      return false;
    }
    op.moveBefore(program.getBody(), program.getBody()->end());
  }
  return true;
}

} // namespace etch::tools
