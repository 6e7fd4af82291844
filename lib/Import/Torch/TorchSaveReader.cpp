#include "TorchSaveReader.h"

#include "ZipArchive.h"

#include <cstring>
#include <functional>
#include <memory>
#include <unordered_map>

namespace etch::torch_import {
namespace {

struct PickleValue;
/// Values are owned by the Unpickler's arena: a pickle can build cycles (a
/// dict that holds itself) and deep nesting, which owning pointers would leak
/// or tear down recursively.
using ValuePtr = PickleValue *;

/// The values the torch.save subset produces.
struct PickleValue {
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    String,
    Tuple,
    List,
    Dict,
    Global,
    Storage,
    Tensor,
    Mark,
    Object
  };
  Kind kind = Kind::None;
  int64_t integer = 0;
  double real = 0;
  std::string text;            // String; Global "module.name"
  std::vector<ValuePtr> items; // Tuple, List
  std::vector<std::pair<ValuePtr, ValuePtr>> entries; // Dict
  // Storage: dtype + key; Tensor: its view.
  int dtype = 0;
  std::string storageKey;
  std::vector<int64_t> sizes, strides;
  int64_t storageOffset = 0;
};

using Kind = PickleValue::Kind;

/// Storage classes in torch.save's persistent ids, by their schema dtype.
int storageDtype(const std::string &global) {
  static const std::unordered_map<std::string, ScalarType> types = {
      {"torch.FloatStorage", ScalarType::Float},
      {"torch.DoubleStorage", ScalarType::Double},
      {"torch.HalfStorage", ScalarType::Half},
      {"torch.BFloat16Storage", ScalarType::BFloat16},
      {"torch.LongStorage", ScalarType::Long},
      {"torch.IntStorage", ScalarType::Int},
      {"torch.ShortStorage", ScalarType::Short},
      {"torch.CharStorage", ScalarType::Char},
      {"torch.ByteStorage", ScalarType::Byte},
      {"torch.BoolStorage", ScalarType::Bool},
  };
  auto it = types.find(global);
  return it == types.end() ? 0 : static_cast<int>(it->second);
}

class Unpickler {
public:
  Unpickler(const std::string &data, std::string &error)
      : data(data), error(error) {}

  ValuePtr run() {
    while (position < data.size()) {
      uint8_t opcode = static_cast<uint8_t>(data[position++]);
      if (opcode == '.') // STOP
        return stack.empty() ? fail("empty stack at STOP") : pop();
      if (!step(opcode))
        return nullptr;
    }
    return fail("pickle ends without STOP");
  }

private:
  ValuePtr fail(const std::string &message) {
    if (error.empty())
      error = "data.pkl: " + message;
    return nullptr;
  }
  ValuePtr make(Kind kind) {
    arena.push_back(std::make_unique<PickleValue>());
    arena.back()->kind = kind;
    return arena.back().get();
  }
  bool need(size_t count) {
    if (count > data.size() - position) {
      fail("truncated at byte " + std::to_string(position));
      return false;
    }
    return true;
  }
  template <typename T> bool readLittle(T &value) {
    if (!need(sizeof(T)))
      return false;
    std::memcpy(&value, data.data() + position, sizeof(T));
    position += sizeof(T);
    return true;
  }
  bool readBytes(size_t count, std::string &out) {
    if (!need(count))
      return false;
    out.assign(data, position, count);
    position += count;
    return true;
  }
  bool readLine(std::string &out) {
    size_t end = data.find('\n', position);
    if (end == std::string::npos)
      return fail("unterminated line") != nullptr;
    out.assign(data, position, end - position);
    position = end + 1;
    return true;
  }
  ValuePtr pop() {
    ValuePtr value = stack.back();
    stack.pop_back();
    return value;
  }
  bool popMark(std::vector<ValuePtr> &items) {
    size_t mark = stack.size();
    while (mark > 0 && stack[mark - 1]->kind != Kind::Mark)
      --mark;
    if (mark == 0)
      return fail("MARK missing") != nullptr;
    items.assign(stack.begin() + mark, stack.end());
    stack.resize(mark - 1);
    return true;
  }
  bool push(ValuePtr value) {
    if (!value)
      return false;
    stack.push_back(std::move(value));
    return true;
  }
  bool requireStack(size_t count) {
    if (stack.size() < count)
      return fail("stack underflow") != nullptr;
    return true;
  }
  ValuePtr makeString(std::string text) {
    ValuePtr value = make(Kind::String);
    value->text = std::move(text);
    return value;
  }
  ValuePtr makeInt(int64_t integer) {
    ValuePtr value = make(Kind::Int);
    value->integer = integer;
    return value;
  }
  ValuePtr makeSequence(Kind kind, std::vector<ValuePtr> items) {
    ValuePtr value = make(kind);
    value->items = std::move(items);
    return value;
  }
  ValuePtr makeGlobal(const std::string &module, const std::string &name) {
    ValuePtr value = make(Kind::Global);
    value->text = module + "." + name;
    return value;
  }

  /// ('storage', StorageClass, key, location, numel) -> Storage.
  ValuePtr persistentLoad(const ValuePtr &pid) {
    if (pid->kind != Kind::Tuple || pid->items.size() < 3 ||
        pid->items[0]->text != "storage" || pid->items[1]->kind != Kind::Global)
      return fail("unsupported persistent id (expected a storage tuple)");
    int dtype = storageDtype(pid->items[1]->text);
    if (dtype == 0)
      return fail("unsupported storage type " + pid->items[1]->text);
    ValuePtr storage = make(Kind::Storage);
    storage->dtype = dtype;
    storage->storageKey = pid->items[2]->text;
    return storage;
  }

  static bool intList(const ValuePtr &value, std::vector<int64_t> &out) {
    if (value->kind != Kind::Tuple && value->kind != Kind::List)
      return false;
    out.clear();
    for (const ValuePtr &item : value->items) {
      if (item->kind != Kind::Int)
        return false;
      out.push_back(item->integer);
    }
    return true;
  }

  /// Applies the callables torch.save uses; anything else is refused.
  ValuePtr reduce(const ValuePtr &callable, const ValuePtr &args) {
    const std::string &name = callable->text;
    const std::vector<ValuePtr> &a = args->items;
    if (name == "collections.OrderedDict" || name == "builtins.dict")
      return make(Kind::Dict);
    if (name == "torch._utils._rebuild_tensor_v2" ||
        name == "torch._utils._rebuild_tensor") {
      if (a.size() < 4 || a[0]->kind != Kind::Storage ||
          a[1]->kind != Kind::Int)
        return fail("malformed _rebuild_tensor_v2 arguments");
      ValuePtr tensor = make(Kind::Tensor);
      tensor->dtype = a[0]->dtype;
      tensor->storageKey = a[0]->storageKey;
      tensor->storageOffset = a[1]->integer;
      if (!intList(a[2], tensor->sizes) || !intList(a[3], tensor->strides))
        return fail("malformed tensor sizes or strides");
      return tensor;
    }
    if (name == "torch._utils._rebuild_parameter" ||
        name == "torch._utils._rebuild_parameter_with_state") {
      if (a.empty() || a[0]->kind != Kind::Tensor)
        return fail("malformed _rebuild_parameter arguments");
      return a[0];
    }
    return fail("unsupported callable " + name +
                " (only tensors and dicts of tensors can be read)");
  }

  bool step(uint8_t opcode) {
    switch (opcode) {
    case 0x80: { // PROTO
      uint8_t version;
      return readLittle(version);
    }
    case 0x95: { // FRAME
      uint64_t size;
      return readLittle(size);
    }
    case '(': // MARK
      return push(make(Kind::Mark));
    case '}': // EMPTY_DICT
      return push(make(Kind::Dict));
    case ']': // EMPTY_LIST
      return push(make(Kind::List));
    case ')': // EMPTY_TUPLE
      return push(make(Kind::Tuple));
    case 'N':
      return push(make(Kind::None));
    case 0x88:
    case 0x89: { // NEWTRUE, NEWFALSE
      ValuePtr value = make(Kind::Bool);
      value->integer = opcode == 0x88;
      return push(value);
    }
    case 'K': {
      uint8_t value;
      return readLittle(value) && push(makeInt(value));
    }
    case 'M': {
      uint16_t value;
      return readLittle(value) && push(makeInt(value));
    }
    case 'J': {
      int32_t value;
      return readLittle(value) && push(makeInt(value));
    }
    case 0x8a: { // LONG1
      uint8_t length;
      std::string bytes;
      if (!readLittle(length) || !readBytes(length, bytes))
        return false;
      if (length > 8)
        return fail("integer too large") != nullptr;
      int64_t value = 0;
      for (size_t i = 0; i < bytes.size(); ++i)
        value |= static_cast<int64_t>(static_cast<uint8_t>(bytes[i]))
                 << (8 * i);
      if (length > 0 && length < 8 && (bytes.back() & 0x80))
        value -= int64_t(1) << (8 * length); // sign-extend
      return push(makeInt(value));
    }
    case 'G': { // BINFLOAT, big-endian
      if (!need(8))
        return false;
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i)
        bits = (bits << 8) | static_cast<uint8_t>(data[position++]);
      ValuePtr value = make(Kind::Float);
      std::memcpy(&value->real, &bits, 8);
      return push(value);
    }
    case 'X':   // BINUNICODE
    case 'T':   // BINSTRING
    case 'B': { // BINBYTES
      uint32_t length;
      std::string text;
      return readLittle(length) && readBytes(length, text) &&
             push(makeString(std::move(text)));
    }
    case 0x8c:  // SHORT_BINUNICODE
    case 'U':   // SHORT_BINSTRING
    case 'C': { // SHORT_BINBYTES
      uint8_t length;
      std::string text;
      return readLittle(length) && readBytes(length, text) &&
             push(makeString(std::move(text)));
    }
    case 0x8d: { // BINUNICODE8
      uint64_t length;
      std::string text;
      return readLittle(length) && readBytes(length, text) &&
             push(makeString(std::move(text)));
    }
    case 'c': { // GLOBAL
      std::string module, name;
      return readLine(module) && readLine(name) &&
             push(makeGlobal(module, name));
    }
    case 0x93: { // STACK_GLOBAL
      if (!requireStack(2))
        return false;
      ValuePtr name = pop(), module = pop();
      return push(makeGlobal(module->text, name->text));
    }
    case 'q': {
      uint8_t index;
      return readLittle(index) && memoize(index);
    }
    case 'r': {
      uint32_t index;
      return readLittle(index) && memoize(index);
    }
    case 0x94: // MEMOIZE
      return memoize(memo.size());
    case 'h': {
      uint8_t index;
      return readLittle(index) && recall(index);
    }
    case 'j': {
      uint32_t index;
      return readLittle(index) && recall(index);
    }
    case 't': { // TUPLE
      std::vector<ValuePtr> items;
      return popMark(items) &&
             push(makeSequence(Kind::Tuple, std::move(items)));
    }
    case 0x85:
    case 0x86:
    case 0x87: { // TUPLE1..3
      size_t count = opcode - 0x84;
      if (!requireStack(count))
        return false;
      std::vector<ValuePtr> items(stack.end() - count, stack.end());
      stack.resize(stack.size() - count);
      return push(makeSequence(Kind::Tuple, std::move(items)));
    }
    case 'Q': { // BINPERSID
      if (!requireStack(1))
        return false;
      return push(persistentLoad(pop()));
    }
    case 'R': { // REDUCE
      if (!requireStack(2))
        return false;
      ValuePtr args = pop(), callable = pop();
      if (callable->kind != Kind::Global || args->kind != Kind::Tuple)
        return fail("REDUCE needs a global and an argument tuple") != nullptr;
      return push(reduce(callable, args));
    }
    case 0x81: { // NEWOBJ: only dict subclasses are accepted
      if (!requireStack(2))
        return false;
      ValuePtr args = pop(), cls = pop();
      return push(reduce(cls, args));
    }
    case 'b': // BUILD: object state (parameter flags, dict metadata) ignored
      if (!requireStack(2))
        return false;
      pop();
      return true;
    case 's': { // SETITEM
      if (!requireStack(3))
        return false;
      ValuePtr value = pop(), key = pop();
      return setItems(stack.back(), {key, value});
    }
    case 'u': { // SETITEMS
      std::vector<ValuePtr> items;
      if (!popMark(items) || !requireStack(1))
        return false;
      return setItems(stack.back(), items);
    }
    case 'a': { // APPEND
      if (!requireStack(2))
        return false;
      ValuePtr value = pop();
      stack.back()->items.push_back(value);
      return true;
    }
    case 'e': { // APPENDS
      std::vector<ValuePtr> items;
      if (!popMark(items) || !requireStack(1))
        return false;
      for (ValuePtr &item : items)
        stack.back()->items.push_back(item);
      return true;
    }
    case '0': // POP
      return requireStack(1) && (pop(), true);
    case '2': // DUP
      return requireStack(1) && push(stack.back());
    default: {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02x", opcode);
      return fail(std::string("unsupported pickle opcode ") + hex +
                  " at byte " + std::to_string(position - 1)) != nullptr;
    }
    }
  }

  // Memo indices come from the file: a map, so a huge index costs nothing.
  bool memoize(size_t index) {
    if (!requireStack(1))
      return false;
    memo[index] = stack.back();
    return true;
  }
  bool recall(size_t index) {
    auto it = memo.find(index);
    if (it == memo.end())
      return fail("memo entry " + std::to_string(index) + " is not set") !=
             nullptr;
    return push(it->second);
  }
  bool setItems(const ValuePtr &target, const std::vector<ValuePtr> &items) {
    if (target->kind != Kind::Dict || items.size() % 2)
      return fail("SETITEMS on a non-dict") != nullptr;
    for (size_t i = 0; i < items.size(); i += 2)
      target->entries.emplace_back(items[i], items[i + 1]);
    return true;
  }

  const std::string &data;
  std::string &error;
  size_t position = 0;
  std::vector<std::unique_ptr<PickleValue>> arena;
  std::vector<ValuePtr> stack;
  std::unordered_map<size_t, ValuePtr> memo;
};

/// torch.save writes a dict of tensors, possibly nested one or two levels
/// (module state); deeper nesting is refused rather than recursed into.
constexpr int kMaxDictDepth = 32;

} // namespace

std::optional<std::map<std::string, TensorData>>
readTorchSave(std::string zipBytes, std::string &error) {
  std::unique_ptr<ZipArchive> archive =
      ZipArchive::openBytes(std::move(zipBytes), error);
  if (!archive)
    return std::nullopt;
  std::string pickleName;
  for (const std::string &name : archive->entries())
    if (name == "data.pkl" ||
        (name.size() > 9 && name.compare(name.size() - 9, 9, "/data.pkl") == 0))
      pickleName = name;
  if (pickleName.empty()) {
    error = "torch.save archive has no data.pkl";
    return std::nullopt;
  }
  std::string root = pickleName.substr(0, pickleName.size() - 8);
  std::optional<std::string> pickle = archive->read(pickleName, error);
  if (!pickle)
    return std::nullopt;
  Unpickler unpickler(*pickle, error);
  ValuePtr value = unpickler.run();
  if (!value)
    return std::nullopt;

  std::map<std::string, TensorData> tensors;
  std::map<std::string, std::string> storages;
  std::function<bool(const std::string &, ValuePtr, int)> collect =
      [&](const std::string &key, ValuePtr item, int depth) -> bool {
    if (item->kind == Kind::Dict) {
      if (depth >= kMaxDictDepth) {
        error = "data.pkl: dicts nested deeper than " +
                std::to_string(kMaxDictDepth) + " levels (or a cycle)";
        return false;
      }
      for (const auto &[name, entry] : item->entries) {
        if (name->kind != Kind::String) {
          error = "data.pkl: dict keys must be strings";
          return false;
        }
        if (!collect(key.empty() ? name->text : key + "." + name->text, entry,
                     depth + 1))
          return false;
      }
      return true;
    }
    if (item->kind != Kind::Tensor)
      return true; // non-tensor metadata entries carry no weights
    auto it = storages.find(item->storageKey);
    if (it == storages.end()) {
      std::optional<std::string> bytes =
          archive->read(root + "data/" + item->storageKey, error);
      if (!bytes)
        return false;
      it = storages.emplace(item->storageKey, std::move(*bytes)).first;
    }
    TensorData tensor;
    std::string viewError;
    if (!gatherStrided(it->second, item->dtype, item->sizes, item->strides,
                       item->storageOffset, tensor, viewError)) {
      error = "tensor '" + key + "': " + viewError;
      return false;
    }
    tensors[key] = std::move(tensor);
    return true;
  };
  if (!collect("", value, 0))
    return std::nullopt;
  return tensors;
}

} // namespace etch::torch_import
