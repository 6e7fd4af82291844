// Selective builds (ETCH_SELECT_OPERATORS): the kernel tables keep only the
// selected operators' entries, chosen at compile time, so nothing refers to
// the others and the linker drops them. Without a selection, all.
#pragma once

#include "runtime/kernels/SelectedOperatorList.h"

#include <array>
#include <cstddef>
#include <string_view>

namespace etch::runtime {

constexpr bool isSelectedOperator(std::string_view name) {
  if (!kSelectiveBuild)
    return true;
  for (std::string_view selected : kSelectedOperatorList)
    if (!selected.empty() && selected == name)
      return true;
  return false;
}

/// How many of \p all a selective build keeps.
template <typename Entry, size_t N>
constexpr size_t selectedCount(const Entry (&all)[N]) {
  size_t count = 0;
  for (const Entry &entry : all)
    count += isSelectedOperator(entry.name) ? 1 : 0;
  return count;
}

/// The entries of \p all a selective build keeps (\p M of them).
template <size_t M, typename Entry, size_t N>
constexpr std::array<Entry, M> selectEntries(const Entry (&all)[N]) {
  std::array<Entry, M> kept{};
  size_t next = 0;
  for (const Entry &entry : all)
    if (isSelectedOperator(entry.name))
      kept[next++] = entry;
  return kept;
}

} // namespace etch::runtime
