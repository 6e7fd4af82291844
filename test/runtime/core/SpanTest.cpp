#include "runtime/core/Span.h"

#include <gtest/gtest.h>

using etch::runtime::Span;

TEST(Span, ViewsArray) {
  int values[] = {1, 2, 3, 4};
  Span<int> span(values);
  ASSERT_EQ(span.size(), 4u);
  int sum = 0;
  for (int v : span)
    sum += v;
  EXPECT_EQ(sum, 10);
  Span<int> tail = span.subspan(2, 2);
  EXPECT_EQ(tail[0], 3);
  EXPECT_EQ(tail.size(), 2u);
  tail[1] = 9;
  EXPECT_EQ(values[3], 9);
}

TEST(Span, DefaultIsEmpty) {
  Span<const float> span;
  EXPECT_TRUE(span.empty());
  EXPECT_EQ(span.data(), nullptr);
}
