// A loaded, verified program file. Loading checks the header, verifies the
// flatbuffer, and bounds-checks every index, offset and size against the
// file and the arenas, so the executor can trust them.
#pragma once

#include "runtime/core/Result.h"
#include "runtime/core/Span.h"
#include "runtime/program/WeightsFile.h"
#include "runtime/schema/program_generated.h"

#include <cstddef>
#include <cstdint>

namespace etch::runtime {

class Program {
public:
  /// Verifies \p data (which must outlive the Program). Errors are logged
  /// with what is wrong and where. A program compiled with external weights
  /// needs its \p weights file (which must outlive it too): each external
  /// segment must be there, with its checksum and size.
  static Result<Program> load(const void *data, size_t size,
                              const WeightsFile *weights = nullptr);
  /// Where a program's external weights come from: resolve(context, name)
  /// is called once while the program loads, when it keeps weights in an
  /// external file, with that file's name as et-compile was given it; it
  /// returns the file (which must outlive the Program) or an error it has
  /// logged. Module finds the file beside the program this way, in the
  /// same pass that verifies it.
  struct WeightsResolver {
    Result<const WeightsFile *> (*resolve)(void *context, const char *name);
    void *context;
  };
  static Result<Program> load(const void *data, size_t size,
                              const WeightsResolver &resolver);

  const schema::Program &flatbuffer() const { return *program_; }
  /// The named method, or null.
  const schema::Method *method(const char *name) const;
  /// The compile-time metadata entry \p key ("max_context", ...), or null.
  const char *metadata(const char *key) const;
  /// The bytes of the named data \p name ("tokenizer", "chat_template"), or
  /// an empty span with a null data() when the program has none.
  Span<const uint8_t> namedData(const char *name) const;
  /// Bytes of segment \p index (bounds-checked at load), in the file or in
  /// the external weights.
  Span<const uint8_t> segment(uint32_t index) const;
  /// The external weights file the program was compiled with ("" when it
  /// has none), as et-compile was given it.
  const char *weightsFileName() const;

private:
  static Result<Program> verify(const void *data, size_t size,
                                const WeightsResolver &resolver);
  Program(const uint8_t *data, size_t size, const schema::Program *program,
          uint64_t segmentBase, const WeightsFile *weights)
      : data_(data), size_(size), program_(program), segmentBase_(segmentBase),
        weights_(weights) {}

  const uint8_t *data_;
  size_t size_;
  const schema::Program *program_;
  uint64_t segmentBase_;
  const WeightsFile *weights_;
};

} // namespace etch::runtime
