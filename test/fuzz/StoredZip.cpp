#include "StoredZip.h"

#include <zlib.h>

#include <cstring>

namespace etch::fuzz {
namespace {

template <typename T> void put(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T)); // little-endian hosts only
  out.append(bytes, sizeof(T));
}

template <typename T>
bool get(const std::string &in, size_t &offset, T &value) {
  if (offset > in.size() || in.size() - offset < sizeof(T))
    return false;
  std::memcpy(&value, in.data() + offset, sizeof(T));
  offset += sizeof(T);
  return true;
}

constexpr uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50,
                   kEndOfDirectory = 0x06054b50;

} // namespace

ZipEntries parseEntryList(const uint8_t *data, size_t size) {
  std::string in(reinterpret_cast<const char *>(data), size);
  ZipEntries entries;
  size_t offset = 0;
  uint16_t nameLength;
  uint32_t dataLength;
  while (get(in, offset, nameLength) && nameLength <= in.size() - offset) {
    std::string name = in.substr(offset, nameLength);
    offset += nameLength;
    if (!get(in, offset, dataLength) || dataLength > in.size() - offset)
      break;
    entries.emplace_back(std::move(name), in.substr(offset, dataLength));
    offset += dataLength;
  }
  return entries;
}

std::string formatEntryList(const ZipEntries &entries) {
  std::string out;
  for (const auto &[name, bytes] : entries) {
    put<uint16_t>(out, static_cast<uint16_t>(name.size()));
    out += name;
    put<uint32_t>(out, static_cast<uint32_t>(bytes.size()));
    out += bytes;
  }
  return out;
}

std::string writeStoredZip(const ZipEntries &entries) {
  std::string out, directory;
  for (const auto &[name, bytes] : entries) {
    uint32_t crc = crc32(0, reinterpret_cast<const Bytef *>(bytes.data()),
                         static_cast<uInt>(bytes.size()));
    uint32_t offset = static_cast<uint32_t>(out.size());
    auto header = [&](std::string &to, bool central) {
      put<uint32_t>(to, central ? kCentralHeader : kLocalHeader);
      if (central)
        put<uint16_t>(to, 20); // version made by
      put<uint16_t>(to, 20);   // version needed
      put<uint16_t>(to, 0);    // flags
      put<uint16_t>(to, 0);    // stored
      put<uint32_t>(to, 0);    // time, date
      put<uint32_t>(to, crc);
      put<uint32_t>(to, static_cast<uint32_t>(bytes.size()));
      put<uint32_t>(to, static_cast<uint32_t>(bytes.size()));
      put<uint16_t>(to, static_cast<uint16_t>(name.size()));
      put<uint16_t>(to, 0); // extra length
      if (central) {
        put<uint16_t>(to, 0); // comment length
        put<uint16_t>(to, 0); // disk
        put<uint16_t>(to, 0); // internal attributes
        put<uint32_t>(to, 0); // external attributes
        put<uint32_t>(to, offset);
      }
      to += name;
    };
    header(out, false);
    out += bytes;
    header(directory, true);
  }
  uint32_t directoryOffset = static_cast<uint32_t>(out.size());
  out += directory;
  put<uint32_t>(out, kEndOfDirectory);
  put<uint32_t>(out, 0); // disk numbers
  put<uint16_t>(out, static_cast<uint16_t>(entries.size()));
  put<uint16_t>(out, static_cast<uint16_t>(entries.size()));
  put<uint32_t>(out, static_cast<uint32_t>(directory.size()));
  put<uint32_t>(out, directoryOffset);
  put<uint16_t>(out, 0); // comment length
  return out;
}

std::optional<ZipEntries> readStoredZipLeniently(const std::string &bytes) {
  // The central directory has the sizes (torch.save writes data descriptors,
  // so local headers hold zeros there).
  size_t end = bytes.size() < 22 ? std::string::npos : bytes.size() - 22;
  uint32_t signature = 0;
  for (; end != std::string::npos; --end) {
    size_t at = end;
    if (get(bytes, at, signature) && signature == kEndOfDirectory)
      break;
    if (end == 0)
      return std::nullopt;
  }
  if (end == std::string::npos)
    return std::nullopt;
  size_t at = end + 10;
  uint16_t count;
  uint32_t directorySize, directoryOffset;
  if (!get(bytes, at, count) || !get(bytes, at, directorySize) ||
      !get(bytes, at, directoryOffset))
    return std::nullopt;
  size_t offset = directoryOffset;
  ZipEntries entries;
  for (uint16_t i = 0; i < count; ++i) {
    uint16_t method, nameLength, extraLength, commentLength;
    uint32_t compressed, localOffset;
    size_t field = offset;
    if (!get(bytes, field, signature) || signature != kCentralHeader)
      return std::nullopt;
    field = offset + 10;
    if (!get(bytes, field, method) || method != 0)
      return std::nullopt;
    field = offset + 20;
    if (!get(bytes, field, compressed))
      return std::nullopt;
    field = offset + 28;
    if (!get(bytes, field, nameLength) || !get(bytes, field, extraLength) ||
        !get(bytes, field, commentLength))
      return std::nullopt;
    field = offset + 42;
    if (!get(bytes, field, localOffset) ||
        nameLength > bytes.size() - field)
      return std::nullopt;
    std::string name = bytes.substr(field, nameLength);
    offset = field + nameLength + extraLength + commentLength;
    size_t local = size_t(localOffset) + 26;
    uint16_t localName, localExtra;
    if (!get(bytes, local, localName) || !get(bytes, local, localExtra))
      return std::nullopt;
    local += localName + localExtra;
    if (local > bytes.size() || compressed > bytes.size() - local)
      return std::nullopt;
    entries.emplace_back(std::move(name), bytes.substr(local, compressed));
  }
  return entries;
}

void repackNestedZips(ZipEntries &entries) {
  for (auto &[name, bytes] : entries)
    if (bytes.compare(0, 4, "PK\x03\x04") == 0)
      if (std::optional<ZipEntries> nested = readStoredZipLeniently(bytes))
        bytes = writeStoredZip(*nested);
}

} // namespace etch::fuzz
