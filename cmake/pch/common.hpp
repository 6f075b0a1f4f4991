// Precompiled for every host C++ file of gpuqual's libraries and programs (cmake/pch.cmake):
// the standard and third-party headers that most of them include. Parsing nlohmann/json.hpp and
// fmt alone took about 2 of the 10-13 s that a typical file compiles in; a precompiled copy is
// read in a fraction of that. Only headers of libraries every target links belong here.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
