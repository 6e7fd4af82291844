#include "Npy.h"

#include <cstring>
#include <fstream>
#include <sstream>

namespace etch::tools {
namespace {

struct Descr {
  const char *text;
  runtime::ScalarType type;
};
const Descr kDescrs[] = {
    {"<f4", runtime::ScalarType::Float32},
    {"<f2", runtime::ScalarType::Float16},
    {"<f8", runtime::ScalarType::Float64},
    {"|i1", runtime::ScalarType::Int8},
    {"|u1", runtime::ScalarType::UInt8},
    {"<u2", runtime::ScalarType::UInt16},
    {"<u4", runtime::ScalarType::UInt32},
    {"<u8", runtime::ScalarType::UInt64},
    {"<i2", runtime::ScalarType::Int16},
    {"<i4", runtime::ScalarType::Int32},
    {"<i8", runtime::ScalarType::Int64},
    {"|b1", runtime::ScalarType::Bool},
};

/// The quoted value after 'key': in the header dict.
std::string field(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return "";
  size_t colon = header.find(':', at);
  size_t begin = header.find_first_not_of(" ", colon + 1);
  if (begin == std::string::npos)
    return "";
  if (header[begin] == '\'') {
    size_t end = header.find('\'', begin + 1);
    return header.substr(begin + 1, end - begin - 1);
  }
  if (header[begin] == '(') {
    size_t end = header.find(')', begin);
    return header.substr(begin + 1, end - begin - 1);
  }
  size_t end = header.find_first_of(",}", begin);
  return header.substr(begin, end - begin);
}

} // namespace

bool readNpy(const std::string &path, NpyArray &array, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot open file";
    return false;
  }
  std::stringstream contents;
  contents << file.rdbuf();
  std::string bytes = contents.str();
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
    error = path + ": not a .npy file";
    return false;
  }
  uint8_t major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength =
        static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    headerStart = 10;
  } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
    uint32_t length;
    std::memcpy(&length, bytes.data() + 8, 4);
    headerLength = length;
    headerStart = 12;
  } else {
    error = path + ": unsupported .npy version " + std::to_string(major);
    return false;
  }
  if (headerStart + headerLength > bytes.size()) {
    error = path + ": truncated header";
    return false;
  }
  std::string header = bytes.substr(headerStart, headerLength);
  std::string descr = field(header, "descr");
  bool found = false;
  for (const Descr &candidate : kDescrs)
    if (descr == candidate.text) {
      array.type = candidate.type;
      found = true;
    }
  if (!found) {
    error = path + ": unsupported dtype '" + descr + "'";
    return false;
  }
  if (field(header, "fortran_order") != "False") {
    error = path + ": Fortran-order arrays are not supported";
    return false;
  }
  array.shape.clear();
  std::stringstream shape(field(header, "shape"));
  std::string item;
  int64_t count = 1;
  while (std::getline(shape, item, ',')) {
    if (item.find_first_not_of(" ") == std::string::npos)
      continue;
    array.shape.push_back(std::stoll(item));
    count *= array.shape.back();
  }
  size_t nbytes = count * runtime::elementSize(array.type);
  size_t dataStart = headerStart + headerLength;
  if (bytes.size() - dataStart != nbytes) {
    error = path + ": holds " + std::to_string(bytes.size() - dataStart) +
            " data bytes, its shape needs " + std::to_string(nbytes);
    return false;
  }
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  return true;
}

bool writeNpy(const std::string &path, runtime::ScalarType type,
              const int64_t *shape, int rank, const void *data, size_t nbytes,
              std::string &error) {
  const char *descr = nullptr;
  for (const Descr &candidate : kDescrs)
    if (candidate.type == type)
      descr = candidate.text;
  // NumPy has no bfloat16: its bits are written as uint16.
  if (type == runtime::ScalarType::BFloat16)
    descr = "<u2";
  if (!descr) {
    error = path + ": cannot write this dtype";
    return false;
  }
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (";
  for (int d = 0; d < rank; ++d)
    header +=
        std::to_string(shape[d]) + (rank == 1 || d + 1 < rank ? ", " : "");
  header += "), }";
  // Pad so the data starts on a 64-byte boundary, newline-terminated.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream file(path, std::ios::binary);
  if (!file) {
    error = path + ": cannot create file";
    return false;
  }
  uint16_t length = static_cast<uint16_t>(header.size());
  file.write("\x93NUMPY\x01\x00", 8);
  file.write(reinterpret_cast<const char *>(&length), 2);
  file << header;
  file.write(static_cast<const char *>(data), nbytes);
  return static_cast<bool>(file);
}

} // namespace etch::tools
