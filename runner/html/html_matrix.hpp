#pragma once
// The compatibility matrix in HTML: a section (one table, a row per class and stack, colored by
// state) and the self-contained page `gpuqual matrix build --html FILE` writes around it.
#include <string>

#include "core/fleet/matrix.hpp"

namespace gpuqual::html {

std::string matrix_section(const Matrix& m);
std::string render_matrix_page(const Matrix& m);

}  // namespace gpuqual::html
