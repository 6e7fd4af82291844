#include "Pt2Archive.h"

#include "TorchSaveReader.h"
#include "ZipArchive.h"

#include "llvm/Support/JSON.h"

#include <cstring>

namespace etch::torch_import {

static bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Reads an optional torch.save entry of the flat layout.
static bool readSavedTensors(const ZipArchive &archive, const std::string &name,
                             std::map<std::string, TensorData> &out,
                             std::string &error) {
  if (!archive.contains(name))
    return true;
  std::optional<std::string> bytes = archive.read(name, error);
  if (!bytes)
    return false;
  std::optional<std::map<std::string, TensorData>> tensors =
      readTorchSave(std::move(*bytes), error);
  if (!tensors) {
    error = name + ": " + error;
    return false;
  }
  out = std::move(*tensors);
  return true;
}

static std::optional<int64_t> symInt(const llvm::json::Value *value) {
  const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
  return object ? object->getInteger("as_int") : std::nullopt;
}

/// Reads `<dir><name>_..._config.json` (a PayloadConfig) and every payload it
/// lists: raw storage bytes viewed through tensor_meta, or torch.save files.
static bool readPayloads(const ZipArchive &archive, const std::string &dir,
                         const std::string &configName,
                         std::map<std::string, TensorData> &out,
                         std::string &error) {
  if (!archive.contains(configName))
    return true;
  std::optional<std::string> text = archive.read(configName, error);
  if (!text)
    return false;
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(*text);
  if (!json) {
    error = configName + ": invalid JSON (" + llvm::toString(json.takeError()) +
            ")";
    return false;
  }
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *config = root ? root->getObject("config") : nullptr;
  if (!config) {
    error = configName + ": missing \"config\" object";
    return false;
  }
  std::map<std::string, std::string> files;
  for (const auto &[fqn, entryValue] : *config) {
    std::string where = configName + ", entry '" + fqn.str() + "'";
    const llvm::json::Object *entry = entryValue.getAsObject();
    std::optional<llvm::StringRef> pathName =
        entry ? entry->getString("path_name") : std::nullopt;
    if (!pathName) {
      error = where + ": missing path_name";
      return false;
    }
    std::string file = dir + pathName->str();
    if (!files.count(file)) {
      std::optional<std::string> bytes = archive.read(file, error);
      if (!bytes) {
        error = where + ": " + error;
        return false;
      }
      files[file] = std::move(*bytes);
    }
    if (entry->getBoolean("use_pickle").value_or(false)) {
      std::optional<std::map<std::string, TensorData>> saved =
          readTorchSave(files[file], error);
      if (!saved || !saved->count("")) {
        error =
            where + ": " + (saved ? "pickled payload is not a tensor" : error);
        return false;
      }
      out[fqn.str()] = std::move((*saved)[""]);
      continue;
    }
    const llvm::json::Object *meta = entry->getObject("tensor_meta");
    const llvm::json::Array *sizes = meta ? meta->getArray("sizes") : nullptr;
    const llvm::json::Array *strides =
        meta ? meta->getArray("strides") : nullptr;
    std::optional<int64_t> dtype =
        meta ? meta->getInteger("dtype") : std::nullopt;
    if (!sizes || !strides || !dtype) {
      error = where + ": tensor_meta needs dtype, sizes and strides";
      return false;
    }
    std::vector<int64_t> sizeValues, strideValues;
    for (const llvm::json::Value &size : *sizes) {
      std::optional<int64_t> extent = symInt(&size);
      if (!extent) {
        error = where + ": weights must have static sizes";
        return false;
      }
      sizeValues.push_back(*extent);
    }
    for (const llvm::json::Value &stride : *strides) {
      std::optional<int64_t> step = symInt(&stride);
      if (!step) {
        error = where + ": weights must have static strides";
        return false;
      }
      strideValues.push_back(*step);
    }
    int64_t offset = symInt(meta->get("storage_offset")).value_or(0);
    if (scalarTypeSize(*dtype) == 0) {
      error = where + ": unknown dtype " + scalarTypeName(*dtype);
      return false;
    }
    TensorData tensor;
    std::string viewError;
    if (!gatherStrided(files[file], *dtype, sizeValues, strideValues, offset,
                       tensor, viewError)) {
      error = where + ": weight file '" + file + "' is too short: " + viewError;
      return false;
    }
    out[fqn.str()] = std::move(tensor);
  }
  return true;
}

/// etch's metadata among the extra files under \p folder, when present.
static bool readMetadata(const ZipArchive &archive, const std::string &folder,
                         Pt2Contents &contents, std::string &error) {
  std::string name = folder + kMetadataFile;
  if (!archive.contains(name))
    return true;
  contents.metadataJson = archive.read(name, error);
  return contents.metadataJson.has_value();
}

static std::optional<Pt2Contents> readPt2(std::unique_ptr<ZipArchive> archive,
                                          std::string &error) {
  if (!archive)
    return std::nullopt;
  Pt2Contents contents;

  // PT2 archive (torch >= 2.8): find <root>/archive_format.
  for (const std::string &name : archive->entries()) {
    if (name != "archive_format" && !endsWith(name, "/archive_format"))
      continue;
    std::string root = name.substr(0, name.size() - strlen("archive_format"));
    std::optional<std::string> format = archive->read(name, error);
    if (!format)
      return std::nullopt;
    if (*format != "pt2") {
      error = "archive_format is '" + *format + "', expected 'pt2'";
      return std::nullopt;
    }
    contents.layout = "PT2 archive";
    std::string modelJson, modelName;
    for (const std::string &entry : archive->entries()) {
      if (entry.rfind(root + "models/", 0) == 0 && endsWith(entry, ".json")) {
        std::string candidate =
            entry.substr(root.size() + 7, entry.size() - root.size() - 12);
        // Prefer the default model name when a package holds several.
        if (modelJson.empty() || candidate == "model") {
          modelJson = entry;
          modelName = candidate;
        }
      }
    }
    if (modelJson.empty()) {
      error = "PT2 archive has no model JSON under " + root + "models/";
      return std::nullopt;
    }
    std::optional<std::string> program = archive->read(modelJson, error);
    if (!program)
      return std::nullopt;
    contents.programJson = std::move(*program);
    if (!readPayloads(*archive, root + "data/weights/",
                      root + "data/weights/" + modelName +
                          "_weights_config.json",
                      contents.weights, error) ||
        !readPayloads(*archive, root + "data/constants/",
                      root + "data/constants/" + modelName +
                          "_constants_config.json",
                      contents.constants, error) ||
        !readMetadata(*archive, root + "extra/", contents, error))
      return std::nullopt;
    return contents;
  }

  // Flat layout (torch <= 2.7).
  std::string programName;
  for (const std::string &name : archive->entries())
    if (endsWith(name, "serialized_exported_program.json"))
      programName = name;
  if (programName.empty()) {
    error = "no model JSON: neither serialized_exported_program.json "
            "(torch <= 2.7) nor <root>/archive_format + models/*.json (torch "
            ">= 2.8) is in the archive";
    return std::nullopt;
  }
  std::string root = programName.substr(
      0, programName.size() - strlen("serialized_exported_program.json"));
  contents.layout = "torch <= 2.7 flat zip";
  std::optional<std::string> program = archive->read(programName, error);
  if (!program)
    return std::nullopt;
  contents.programJson = std::move(*program);
  if (!readSavedTensors(*archive, root + "serialized_state_dict.pt",
                        contents.weights, error) ||
      !readSavedTensors(*archive, root + "serialized_constants.pt",
                        contents.constants, error) ||
      !readMetadata(*archive, root + "extra_files/", contents, error))
    return std::nullopt;
  return contents;
}

std::optional<Pt2Contents> readPt2(const std::string &path,
                                   std::string &error) {
  return readPt2(ZipArchive::openFile(path, error), error);
}

std::optional<Pt2Contents> readPt2FromBytes(std::string bytes,
                                            std::string &error) {
  return readPt2(ZipArchive::openBytes(std::move(bytes), error), error);
}

} // namespace etch::torch_import
