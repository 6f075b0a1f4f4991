// `gpuqual plan` end to end with the real binary: the worked example of docs/plan.md run exactly
// as the page writes it (commands, output and exit codes), the JSON list Argo fans out over,
// --output, --kubectl, and exit 3 with file and line for bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli_helpers.hpp"

namespace gpuqual {
namespace {

using testing::run_cli;
using testing::shell_quote;

const std::string kSrc = GPUQUAL_SOURCE_DIR;
const std::string kEx = kSrc + "/tests/data/plan/example/";

std::string example_args(const std::string& pods = "pods.json") {
  return "plan --nodes " + shell_quote(kEx + "nodes.json") + " --pods " + shell_quote(kEx + pods) +
         " --pdbs " + shell_quote(kEx + "pdbs.json") + " --policy " + shell_quote(kEx + "policy.yaml");
}

class PlanCli : public testing::ScratchDirTest {
 protected:
  PlanCli() : ScratchDirTest("plan-cli") {}
};

struct DocCommand {
  std::string args;      // after "gpuqual "
  std::string expected;  // the lines the page shows after it
  int exit_code = -1;    // from a following "$ echo $?", -1 when the page does not say
};

// The `$ gpuqual ...` commands of the ```console blocks of docs/plan.md.
std::vector<DocCommand> doc_commands() {
  std::ifstream in(kSrc + "/docs/plan.md");
  std::vector<DocCommand> out;
  bool in_console = false, after_echo = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      in_console = !in_console && line == "```console";
      after_echo = false;
      continue;
    }
    if (!in_console) continue;
    if (line.rfind("$ gpuqual ", 0) == 0) {
      out.push_back({line.substr(10), "", -1});
      after_echo = false;
    } else if (line == "$ echo $?") {
      after_echo = true;
    } else if (after_echo && !out.empty()) {
      out.back().exit_code = std::stoi(line);
      after_echo = false;
    } else if (!out.empty()) {
      out.back().expected += line + "\n";
    }
  }
  return out;
}

TEST_F(PlanCli, WorkedExampleOfTheDocsRunsAsWritten) {
  const auto commands = doc_commands();
  ASSERT_GE(commands.size(), 3u) << "docs/plan.md lost its worked example";
  for (const DocCommand& c : commands) {
    SCOPED_TRACE(c.args);
    const std::string cmd =
        "cd " + shell_quote(kSrc) + " && " + shell_quote(GPUQUAL_BINARY) + " " + c.args + " 2>/dev/null";
    std::string out;
    FILE* p = ::popen(cmd.c_str(), "r");
    ASSERT_NE(p, nullptr);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int status = ::pclose(p);
    EXPECT_EQ(out, c.expected);
    if (c.exit_code >= 0) {
      EXPECT_EQ(WEXITSTATUS(status), c.exit_code);
    }
  }
}

TEST_F(PlanCli, JsonIsTheWaveListForArgoWithParam) {
  const auto r = run_cli(example_args("pods-checkpointed.json") + " --format json --output " +
                             shell_quote((scratch_ / "plan.json").string()),
                         scratch_);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto waves = nlohmann::json::parse(r.out);
  ASSERT_TRUE(waves.is_array());
  ASSERT_EQ(waves.size(), 4u);
  EXPECT_EQ(waves[0]["wave"], 0);
  EXPECT_EQ(waves[0]["canary"], true);
  EXPECT_EQ(waves[0]["nodes"], nlohmann::json::array({"h100-03", "h200-04"}));
  EXPECT_NE(r.err.find("gpuqual plan: OK"), std::string::npos) << r.err;  // the summary, off stdout
  const auto full = nlohmann::json::parse(testing::read_text(scratch_ / "plan.json"));
  EXPECT_EQ(full["schema"], "gpuqual.plan-result/v1");
  EXPECT_EQ(full["waves"], waves);
  EXPECT_EQ(full["nodes"].size(), 7u);
}

TEST_F(PlanCli, KubectlModeRunsKubectlGet) {
  // kubectl itself needs an API server; this stand-in prints the example files for the three
  // `get ... -o json` calls the plan makes, and records them.
  const auto fake = scratch_ / "kubectl";
  std::ofstream(fake) << "#!/bin/sh\necho \"$*\" >>" << shell_quote((scratch_ / "calls").string()) << "\n"
                      << "case \"$4\" in nodes) cat " << shell_quote(kEx + "nodes.json") << ";; pods) cat "
                      << shell_quote(kEx + "pods.json") << ";; poddisruptionbudgets) cat "
                      << shell_quote(kEx + "pdbs.json") << ";; *) exit 1;; esac\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  const auto r =
      run_cli("plan --kubectl --kubectl-command " + shell_quote(fake.string() + " --context prod") +
                  " --policy " + shell_quote(kEx + "policy.yaml") + " --format json",
              scratch_);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(testing::read_text(scratch_ / "calls"),
            "--context prod get nodes -o json\n--context prod get pods --all-namespaces -o json\n"
            "--context prod get poddisruptionbudgets --all-namespaces -o json\n");
}

TEST_F(PlanCli, BadInputIsExit3WithFileAndLine) {
  std::ofstream(scratch_ / "bad.yaml")
      << "schema: gpuqual.plan/v1\nclasses:\n  h100-sxm-80gb: {max_nodes_out: 2}\n";
  auto r = run_cli("plan --nodes " + shell_quote(kEx + "nodes.json") + " --pods " +
                       shell_quote(kEx + "pods.json") + " --pdbs " + shell_quote(kEx + "pdbs.json") +
                       " --policy " + shell_quote((scratch_ / "bad.yaml").string()),
                   scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gpuqual: error: " + (scratch_ / "bad.yaml").string() +
                       ": line 3: $.classes.h100-sxm-80gb.min_schedulable_gpus: required field is missing\n");
  std::ofstream(scratch_ / "nodes.json")
      << R"({"kind":"List","items":[{"metadata":{"name":"n"},"status":{"allocatable":{"nvidia.com/gpu":"1.5"}}}]})";
  r = run_cli("plan --nodes " + shell_quote((scratch_ / "nodes.json").string()) + " --pods " +
                  shell_quote(kEx + "pods.json") + " --pdbs " + shell_quote(kEx + "pdbs.json") +
                  " --policy " + shell_quote(kEx + "policy.yaml"),
              scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("nodes.json: $.items[0].status.allocatable[\"nvidia.com/gpu\"]: \"1.5\" is not a "
                       "whole number of GPUs"),
            std::string::npos)
      << r.err;
  r = run_cli("plan --policy " + shell_quote(kEx + "policy.yaml") + " --nodes - --pods - --pdbs x", scratch_);
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("only one of --nodes, --pods, --pdbs can read stdin"), std::string::npos) << r.err;
}

TEST_F(PlanCli, NodesFromStdinAndMarkdown) {
  const auto r = run_cli(std::regex_replace(example_args(), std::regex("--nodes '[^']*'"), "--nodes -") +
                             " --format markdown < " + shell_quote(kEx + "nodes.json"),
                         scratch_);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.out.find("| WAVE | CLASS | NODES |"), std::string::npos) << r.out;
  // Record strings are Markdown-escaped (core/base/text_escape.hpp: escape_markdown).
  EXPECT_NE(
      r.out.find(
          "| h100\\-01 | h100\\-sxm\\-80gb | deferred | training pod research\\/llama\\-ft\\-master\\-0"),
      std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace gpuqual
