#include "ZipArchive.h"

#include <sys/stat.h>
#include <zip.h>

#include <algorithm>

namespace etch::torch_import {

static std::string zipErrorText(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

std::unique_ptr<ZipArchive> ZipArchive::openFile(const std::string &path,
                                                 std::string &error) {
  int code = 0;
  zip *archive = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!archive) {
    error = code == ZIP_ER_NOENT
                ? "cannot open file"
                : "not a readable zip archive (" + zipErrorText(code) + ")";
    return nullptr;
  }
  std::unique_ptr<ZipArchive> result(new ZipArchive());
  result->archive = archive;
  struct stat info;
  result->archiveBytes =
      ::stat(path.c_str(), &info) == 0 ? static_cast<uint64_t>(info.st_size) : 0;
  if (!result->indexEntries(error))
    return nullptr;
  return result;
}

std::unique_ptr<ZipArchive> ZipArchive::openBytes(std::string bytes,
                                                  std::string &error) {
  std::unique_ptr<ZipArchive> result(new ZipArchive());
  result->ownedBytes = std::move(bytes);
  result->archiveBytes = result->ownedBytes.size();
  zip_error_t zipError;
  zip_error_init(&zipError);
  zip_source_t *source = zip_source_buffer_create(
      result->ownedBytes.data(), result->ownedBytes.size(), 0, &zipError);
  if (source)
    result->archive = zip_open_from_source(source, ZIP_RDONLY, &zipError);
  if (!result->archive) {
    error = std::string("not a readable zip archive (") +
            zip_error_strerror(&zipError) + ")";
    if (source)
      zip_source_free(source);
    zip_error_fini(&zipError);
    return nullptr;
  }
  zip_error_fini(&zipError);
  if (!result->indexEntries(error))
    return nullptr;
  return result;
}

ZipArchive::~ZipArchive() {
  if (archive)
    zip_discard(archive);
}

bool ZipArchive::indexEntries(std::string &error) {
  zip_int64_t count = zip_get_num_entries(archive, 0);
  if (count < 0) {
    error = "cannot list the zip archive's entries";
    return false;
  }
  for (zip_int64_t i = 0; i < count; ++i)
    if (const char *name = zip_get_name(archive, i, 0))
      names.emplace_back(name);
  return true;
}

bool ZipArchive::contains(const std::string &name) const {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::optional<std::string> ZipArchive::read(const std::string &name,
                                            std::string &error) const {
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_stat(archive, name.c_str(), 0, &stat) != 0 ||
      !(stat.valid & ZIP_STAT_SIZE) || !(stat.valid & ZIP_STAT_COMP_SIZE)) {
    error = "archive has no entry '" + name + "'";
    return std::nullopt;
  }
  // The declared size is allocated up front: it must be one the stored bytes
  // can produce (deflate expands at most 1032:1), or a damaged header could
  // ask for any amount of memory.
  constexpr zip_uint64_t kMaxDeflateRatio = 1032;
  zip_uint64_t producible =
      stat.comp_size > UINT64_MAX / kMaxDeflateRatio
          ? UINT64_MAX
          : stat.comp_size * kMaxDeflateRatio + 1024;
  if (stat.comp_size > archiveBytes || stat.size > producible ||
      (stat.valid & ZIP_STAT_COMP_METHOD &&
       stat.comp_method == ZIP_CM_STORE && stat.size != stat.comp_size)) {
    error = "archive entry '" + name + "' declares " +
            std::to_string(stat.size) + " bytes but stores " +
            std::to_string(stat.comp_size) + " (corrupt zip)";
    return std::nullopt;
  }
  zip_file_t *file = zip_fopen(archive, name.c_str(), 0);
  if (!file) {
    error = "cannot open archive entry '" + name + "'";
    return std::nullopt;
  }
  std::string bytes(stat.size, '\0');
  zip_int64_t read = zip_fread(file, bytes.data(), stat.size);
  zip_fclose(file);
  if (read < 0 || static_cast<zip_uint64_t>(read) != stat.size) {
    error = "archive entry '" + name + "' is truncated or corrupt";
    return std::nullopt;
  }
  return bytes;
}

} // namespace etch::torch_import
