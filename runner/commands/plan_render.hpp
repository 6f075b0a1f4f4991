#pragma once
// A plan for people: the console table and Markdown (a change ticket, a merge-request comment).
// JSON is core/fleet/plan_json.hpp.
#include <string>

#include "core/fleet/plan.hpp"

namespace gpuqual {

std::string render_plan_table(const Plan& plan);
std::string render_plan_markdown(const Plan& plan);

}  // namespace gpuqual
