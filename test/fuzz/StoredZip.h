// Zip helpers for the .pt2 fuzz target. A fuzzer that mutates a zip mostly
// breaks its CRCs and never reaches the importer; so the target's input is
// a list of (name, bytes) entries that it packs into a valid stored zip,
// and zips nested inside entries (torch.save files) get their CRCs redone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace etch::fuzz {

using ZipEntries = std::vector<std::pair<std::string, std::string>>;

/// Parses "u16 name length, name, u32 data length, data" records; a
/// truncated tail is dropped.
ZipEntries parseEntryList(const uint8_t *data, size_t size);
/// The inverse (writes seeds from real archives).
std::string formatEntryList(const ZipEntries &entries);

/// A zip with every entry stored (uncompressed) and correct CRCs.
std::string writeStoredZip(const ZipEntries &entries);

/// The entries of a zip whose entries are stored, read from local headers
/// without checking CRCs; std::nullopt when \p bytes is not such a zip.
std::optional<ZipEntries> readStoredZipLeniently(const std::string &bytes);

/// Re-packs every entry that is itself a zip of stored entries (the
/// torch.save files inside a .pt2) with correct CRCs.
void repackNestedZips(ZipEntries &entries);

} // namespace etch::fuzz
