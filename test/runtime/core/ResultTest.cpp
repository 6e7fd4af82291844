#include "runtime/core/Result.h"

#include <gtest/gtest.h>

#include <memory>

using etch::runtime::Error;
using etch::runtime::Result;

namespace {

Result<int> parsePositive(int value) {
  if (value <= 0)
    return Error::InvalidArgument;
  return value;
}

Error chain(int value, int &out) {
  Result<int> parsed = parsePositive(value);
  if (!parsed.ok())
    return parsed.error();
  out = *parsed;
  return Error::Ok;
}

Error forward(int value) {
  int out = 0;
  ET_CHECK_OK(chain(value, out));
  return out == value ? Error::Ok : Error::Internal;
}

TEST(Result, HoldsValue) {
  Result<int> result = parsePositive(7);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result.error(), Error::Ok);
  EXPECT_EQ(*result, 7);
}

TEST(Result, HoldsError) {
  Result<int> result = parsePositive(-1);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::InvalidArgument);
}

TEST(Result, OkErrorWithoutValueIsInternal) {
  Result<int> result(Error::Ok);
  EXPECT_FALSE(result.ok());
  EXPECT_EQ(result.error(), Error::Internal);
}

TEST(Result, MovesOwningValues) {
  Result<std::unique_ptr<int>> result(std::make_unique<int>(5));
  Result<std::unique_ptr<int>> moved(std::move(result));
  ASSERT_TRUE(moved.ok());
  EXPECT_EQ(**moved, 5);
}

TEST(Result, CheckOkPropagates) {
  EXPECT_EQ(forward(3), Error::Ok);
  EXPECT_EQ(forward(0), Error::InvalidArgument);
}

TEST(Error, NamesAreStable) {
  EXPECT_STREQ(etch::runtime::errorName(Error::InvalidProgram),
               "InvalidProgram");
  EXPECT_STREQ(etch::runtime::errorName(Error::DelegateInvalidBlob),
               "DelegateInvalidBlob");
}

} // namespace
