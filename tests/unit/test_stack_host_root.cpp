// The host-root component (containers/k8s/components/host-root) mounts the node's / read-only at
// /host and sets GPUQUAL_HOST_ROOT: the `stack` check then reads the node's tree, not the
// container image's. A suite's own `root:` still wins.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "device/host/stack_tree_reader.hpp"
#include "stack_trees.hpp"
#include "suites/stack_check.hpp"

using namespace gpuqual;
using gpuqual::testing::StackTree;

namespace {

class StackHostRoot : public StackTree {
 protected:
  void SetUp() override {
    StackTree::SetUp();
    if (const char* v = std::getenv(kHostRootEnvVar)) saved_ = v;
    ::unsetenv(kHostRootEnvVar);
  }
  void TearDown() override {
    if (saved_) {
      ::setenv(kHostRootEnvVar, saved_->c_str(), 1);
    } else {
      ::unsetenv(kHostRootEnvVar);
    }
    StackTree::TearDown();
  }
  std::optional<std::string> saved_;
};

TEST_F(StackHostRoot, WithoutTheVariableTheCheckReadsSlash) {
  EXPECT_EQ(host_root_from_env(), "");
  EXPECT_EQ(read_stack_check_params(nlohmann::json::object()).root, "/");
}

TEST_F(StackHostRoot, TheMountedHostRootIsWhatTheCheckJudges) {
  compose({"engines/containerd2"});
  ::setenv(kHostRootEnvVar, root().c_str(), 1);
  const StackCheckParams p = read_stack_check_params(nlohmann::json::object());
  EXPECT_EQ(p.root, root());
  const CheckResult r = run_stack_check(p);
  EXPECT_EQ(r.attributes.at("stack.root"), root());
  EXPECT_EQ(r.status, Status::pass) << r.reason;
}

TEST_F(StackHostRoot, ASuitesOwnRootWinsOverTheVariable) {
  ::setenv(kHostRootEnvVar, "/host", 1);
  const StackCheckParams p = read_stack_check_params(nlohmann::json{{"root", root()}});
  EXPECT_EQ(p.root, root());
}

}  // namespace
