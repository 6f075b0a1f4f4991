// The registry digest recorded for a probe's image, from inspect objects as Docker and podman
// print them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "probes/container/image_digest.hpp"

using namespace gpuqual::probes;

TEST(ImageDigest, ReadsRepoDigestsOfAnInspectObject) {
  const auto j =
      nlohmann::json::parse(R"({"Id": "sha256:1f", "RepoDigests": ["nvcr.io/nvidia/cuda@sha256:aa", 7]})");
  EXPECT_EQ(repo_digests_of(j), (std::vector<std::string>{"nvcr.io/nvidia/cuda@sha256:aa"}));
  EXPECT_TRUE(repo_digests_of(nlohmann::json::parse(R"({"Id": "sha256:1f", "RepoDigests": null})")).empty());
}

TEST(ImageDigest, PicksTheDigestOfTheReferencesRepository) {
  const std::vector<std::string> digests{"ghcr.io/acme/cuda@sha256:bb", "nvcr.io/nvidia/cuda@sha256:aa"};
  EXPECT_EQ(pick_repo_digest("nvcr.io/nvidia/cuda:13.0.0-base-ubuntu24.04", digests),
            "nvcr.io/nvidia/cuda@sha256:aa");
  // Docker shortens Docker Hub names, podman spells them out: either matches.
  EXPECT_EQ(pick_repo_digest("ubuntu:24.04", {"docker.io/library/ubuntu@sha256:cc"}),
            "docker.io/library/ubuntu@sha256:cc");
  EXPECT_EQ(pick_repo_digest("docker.io/library/ubuntu:24.04", {"ubuntu@sha256:cc"}), "ubuntu@sha256:cc");
  // A registry port is not a tag.
  EXPECT_EQ(pick_repo_digest("localhost:5000/probe", {"localhost:5000/probe@sha256:dd"}),
            "localhost:5000/probe@sha256:dd");
  EXPECT_EQ(pick_repo_digest("other/image:1", digests), "ghcr.io/acme/cuda@sha256:bb");
  EXPECT_EQ(pick_repo_digest("local-build:dev", {}), "");
  EXPECT_EQ(pick_repo_digest("nvcr.io/nvidia/cuda@sha256:ee", digests), "nvcr.io/nvidia/cuda@sha256:ee");
}
