#pragma once
// The matrix on disk (`gpuqual.matrix/v1`): YAML and JSON carry the same fields in the same
// order (one ordered JSON value is the source of both), Markdown is the table a person reads in
// a merge request. The loader is strict like every gpuqual input (exit 3 with file:line).
#include <string>

#include "core/fleet/matrix.hpp"

namespace gpuqual {

std::string matrix_to_json(const Matrix& m);
std::string matrix_to_yaml(const Matrix& m);
std::string matrix_to_markdown(const Matrix& m);

// YAML (a .json file is read as JSON). Throws InputError "file: line N: $.rows[2].state: problem".
Matrix parse_matrix(const std::string& text, const std::string& origin);
Matrix load_matrix(const std::string& path);

}  // namespace gpuqual
