#pragma once
// How people write the noise model's parameters on a command line: an allowed drop in percent
// ("2", "2%", "2.5 %") and a confidence as a fraction or a percent ("0.95", "95%").
#include <optional>
#include <string>

namespace gpuqual {

// Percent in [0, 100) → fraction (2 → 0.02); empty when the text is not such a number.
std::optional<double> parse_drop_percent(const std::string& text);
// "0.95" or "95%" → 0.95; must end up strictly between 0 and 1.
std::optional<double> parse_confidence(const std::string& text);

}  // namespace gpuqual
