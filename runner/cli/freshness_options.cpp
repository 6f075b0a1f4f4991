#include "runner/cli/freshness_options.hpp"

#include <memory>

#include "suites/suite_duration.hpp"

namespace gpuqual {

CLI::Option* add_max_age_option(CLI::App* cmd, std::string& max_age) {
  return cmd
      ->add_option(
          "--max-age", max_age,
          "A record whose run ended longer ago than this does not qualify its node: inconclusive, \"last "
          "qualified 31 d ago\" (e.g. 7d, 36h; default: off; now is $GPUQUAL_NOW when set)")
      ->type_name("DURATION")
      ->check(CLI::Validator(
          [](std::string& s) {
            auto d = parse_duration_s(s);
            return d && *d > 0 ? std::string() : "expected a duration such as 7d, 36h or 90m";
          },
          "DURATION"));
}

CLI::Option* add_node_file_option(CLI::App* cmd, std::string& node_file) {
  return cmd
      ->add_option(
          "--node-file", node_file,
          "The Kubernetes Node (kubectl get node NAME -o json) or NodeList (kubectl get nodes -o json) as it "
          "is now: a record taken before the node's current boot (status.nodeInfo.bootID), kubelet, kernel "
          "or "
          "driver (GFD's nvidia.com/cuda.driver-version labels) does not qualify it")
      ->type_name("FILE");
}

Freshness freshness_from(const FreshnessFlags& flags) {
  Freshness f;
  if (!flags.max_age.empty()) {
    f.max_age_s = parse_duration_s(flags.max_age);
    f.now_ms = now_ms();
  }
  if (!flags.node_file.empty())
    f.nodes = std::make_shared<const CurrentNodes>(read_current_nodes(flags.node_file));
  return f;
}

}  // namespace gpuqual
