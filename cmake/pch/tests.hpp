// Precompiled for the GoogleTest programs (cmake/pch.cmake): the common set and gtest.
#include "cmake/pch/common.hpp"

#include <gtest/gtest.h>
