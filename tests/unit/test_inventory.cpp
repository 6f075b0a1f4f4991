// Inventory pieces with fixtures (os-release, cpuinfo, labels files, version strings) and the
// `gpuqual inventory` command end to end on this machine.
#include <gtest/gtest.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/base/input_error.hpp"
#include "device/cuda/cuda_gpus.hpp"
#include "device/host/container_runtimes.hpp"
#include "device/host/host_facts.hpp"
#include "device/host/k8s_node.hpp"
#include "device/node/inventory.hpp"
#include "device/node/library_versions.hpp"
#include "device/nvml/nvml_devices.hpp"

using namespace gpuqual;

namespace {

struct Ran {
  int exit_code;
  std::string out;
};

Ran run_gpuqual(const std::string& args) {
  std::string cmd = std::string(GPUQUAL_BINARY) + " " + args + " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool cuda_has_gpu() { return scan_cuda_gpus().error.empty(); }

}  // namespace

TEST(HostFacts, OsReleasePrefersPrettyName) {
  EXPECT_EQ(
      parse_os_release(
          "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"),
      "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(parse_os_release("NAME='Ubuntu'\nVERSION_ID=22.04\n"), "Ubuntu 22.04");
  EXPECT_EQ(parse_os_release(""), "");
}

TEST(HostFacts, CpuModelFromX86AndArmCpuinfo) {
  EXPECT_EQ(parse_cpu_model(
                "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9654 96-Core Processor\n"),
            "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(parse_cpu_model("processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n"),
            "CPU part 0xd4f");
}

TEST(HostFacts, NumaNodesCountedFromSysfsLayout) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("gpuqual-numa-" + std::to_string(::getpid()));
  fs::create_directories(dir / "node0");
  fs::create_directories(dir / "node1");
  fs::create_directories(dir / "power");
  std::ofstream(dir / "online") << "0-1\n";
  EXPECT_EQ(count_numa_nodes(dir.string()), 2);
  fs::remove_all(dir);
  EXPECT_EQ(count_numa_nodes(dir.string()), std::nullopt);
}

TEST(HostFacts, ThisMachineHasAHostnameKernelAndOs) {
  EXPECT_FALSE(read_hostname().empty());
  EXPECT_FALSE(read_kernel().empty());
  EXPECT_FALSE(read_os_name().empty());
}

// node.kernel is `uname -r` as the kubelet reports it in nodeInfo.kernelVersion (the release,
// never "<release> (<machine>)"); the machine is node.arch.
TEST(HostFacts, TheKernelIsTheReleaseAloneAndTheArchIsItsOwnFact) {
  struct utsname u {};
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(read_kernel(), std::string(u.release));
  EXPECT_EQ(read_arch(), std::string(u.machine));
  EXPECT_EQ(read_kernel().find(' '), std::string::npos) << read_kernel();
}

TEST(ContainerRuntimes, VersionFromRealVersionLines) {
  EXPECT_EQ(parse_tool_version("Docker version 28.2.2, build e6534b4"), "28.2.2");
  EXPECT_EQ(parse_tool_version("podman version 4.3.1\n"), "4.3.1");
  EXPECT_EQ(parse_tool_version("containerd github.com/containerd/containerd 1.6.20~ds1 1.6.20~ds1-1+deb12u3"),
            "1.6.20~ds1");
  EXPECT_EQ(parse_tool_version("runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\nspec: 1.0.2-dev"),
            "1.1.5+ds1");
  EXPECT_EQ(parse_tool_version("NVIDIA Container Toolkit CLI version 1.17.8\ncommit: f202b80"), "1.17.8");
  EXPECT_EQ(parse_tool_version("no digits here"), "");
}

TEST(ContainerRuntimes, FindsInstalledDockerAndPodman) {
  // docker.io and podman are installed on this machine (scripts/install-deps.sh).
  auto runtimes = detect_container_runtimes();
  bool docker = false, podman = false;
  for (const auto& r : runtimes) {
    docker |= r.starts_with("docker ") && r != "docker unknown";
    podman |= r.starts_with("podman ") && r != "podman unknown";
  }
  if (find_on_path("docker", std::getenv("PATH"))) {
    EXPECT_TRUE(docker);
  }
  if (find_on_path("podman", std::getenv("PATH"))) {
    EXPECT_TRUE(podman);
  }
  EXPECT_EQ(find_on_path("no-such-program-gpuqual", "/usr/bin:/bin"), std::nullopt);
}

TEST(K8sLabels, DownwardApiFileWithGfdLabels) {
  auto labels = read_k8s_labels_file(std::string(GPUQUAL_TEST_DATA) + "/inventory/node-labels.downward");
  EXPECT_EQ(labels.at("nvidia.com/gpu.product"), "NVIDIA-H200");
  EXPECT_EQ(labels.at("nvidia.com/gpu.count"), "8");
  EXPECT_EQ(labels.at("kubernetes.io/hostname"), "gpu-node-17");
  EXPECT_EQ(labels.at("note"), "say \"hi\"\\there");
  EXPECT_EQ(labels.size(), 8u);
}

TEST(K8sLabels, PlainKeyValueAndComments) {
  auto labels = parse_k8s_labels("# written by an init container\n\nzone=us-east-1a\nempty=\n", "inline");
  EXPECT_EQ(labels.at("zone"), "us-east-1a");
  EXPECT_EQ(labels.at("empty"), "");
}

TEST(K8sLabels, MalformedLineNamesFileAndLine) {
  const std::string path = std::string(GPUQUAL_TEST_DATA) + "/inventory/bad-labels.downward";
  try {
    read_k8s_labels_file(path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.where(), "line 2");
  }
  EXPECT_THROW(parse_k8s_labels("a=\"unterminated\n", "x"), InputError);
  EXPECT_THROW(parse_k8s_labels("a=1\na=2\n", "x"), InputError);
  EXPECT_THROW(parse_k8s_labels("a=\"bad \\q escape\"\n", "x"), InputError);
  EXPECT_THROW(read_k8s_labels_file("/nonexistent/labels"), InputError);
}

TEST(StackVersions, EncodedCudaVersionsAndProcDriverLine) {
  EXPECT_EQ(cuda_version_string(13000), "13.0");
  EXPECT_EQ(cuda_version_string(12080), "12.8");
  EXPECT_EQ(cuda_version_string(0), "");
  EXPECT_EQ(parse_proc_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Mar "
                                      "14 04:48:35 UTC 2025\nGCC version: gcc"),
            "570.133.20");
  EXPECT_EQ(parse_proc_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  "
                                      "Release Build  (dvs-builder@U22)"),
            "580.95.05");
  EXPECT_EQ(parse_proc_driver_version(""), "");
}

TEST(GpuIds, UuidFormMatchesNvml) {
  const unsigned char b[16] = {0x2a, 0x5e, 0x11, 0x93, 0x0c, 0x34, 0x44, 0x1f,
                               0x9d, 0x0e, 0xab, 0xcd, 0xef, 0x01, 0x23, 0x45};
  EXPECT_EQ(format_gpu_uuid(b), "GPU-2a5e1193-0c34-441f-9d0e-abcdef012345");
}

TEST(Inventory, CollectsNodeFactsAndExplainsMissingGpus) {
  Inventory inv = collect_inventory({});
  EXPECT_FALSE(inv.node.hostname.empty());
  EXPECT_FALSE(inv.node.cuda_runtime_version.empty());
  EXPECT_FALSE(inv.node.cublas_version.empty());
  EXPECT_FALSE(inv.node.nccl_version.empty());
  if (cuda_has_gpu()) {
    EXPECT_FALSE(inv.gpus.empty());
    EXPECT_NE(inv.hardware_class.gpu_count, 0);
  } else {
    EXPECT_NE(inv.gpu_unavailable_reason.find("cudaGetDeviceCount"), std::string::npos)
        << inv.gpu_unavailable_reason;
    EXPECT_EQ(inv.hardware_class.slug, "unknown");
  }
}

TEST(Inventory, ClassOverrideIsValidated) {
  InventoryOptions o;
  o.class_override = "h200-sxm-141gb";
  Inventory inv = collect_inventory(o);
  EXPECT_EQ(inv.hardware_class.slug, "h200-sxm-141gb");
  EXPECT_TRUE(inv.hardware_class.overridden);
  o.class_override = "../etc/passwd";
  EXPECT_THROW(collect_inventory(o), InputError);
}

TEST(InventoryCommand, JsonOnThisNode) {
  Ran r = run_gpuqual("inventory --format json --labels-file " + std::string(GPUQUAL_TEST_DATA) +
                      "/inventory/node-labels.downward");
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("schema"), "gpuqual.inventory/v1");
  EXPECT_EQ(j.at("node").at("k8s_labels").at("nvidia.com/gpu.product"), "NVIDIA-H200");
  EXPECT_FALSE(j.at("node").at("hostname").get<std::string>().empty());
  if (cuda_has_gpu()) {
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_FALSE(j.at("gpus").empty());
  } else {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(j.at("gpu_unavailable_reason").get<std::string>().find("CUDA driver version is insufficient"),
              std::string::npos);
  }
}

TEST(InventoryCommand, TableEndsWithTheSummaryLine) {
  Ran r = run_gpuqual("inventory");
  ASSERT_FALSE(r.out.empty());
  std::string last = r.out.substr(r.out.rfind("\ngpuqual inventory:") + 1);
  EXPECT_TRUE(last.starts_with("gpuqual inventory: ")) << r.out;
  EXPECT_NE(r.out.find("cuda (runtime)"), std::string::npos);
  EXPECT_EQ(r.exit_code, cuda_has_gpu() ? 0 : 2);
}

TEST(InventoryCommand, BadInputIsExit3) {
  EXPECT_EQ(run_gpuqual("inventory --labels-file " + std::string(GPUQUAL_TEST_DATA) +
                        "/inventory/bad-labels.downward")
                .exit_code,
            3);
  EXPECT_EQ(run_gpuqual("inventory --class 'Not A Slug'").exit_code, 3);
  EXPECT_EQ(run_gpuqual("inventory --format yaml").exit_code, 3);
}

// The stack inventory through the real binary: the Node file and --platform reach the JSON, bad
// ones are usage errors (exit 3) naming the flag or file.
TEST(InventoryCommand, StackFromNodeFileAndPlatformFlags) {
  const std::string node = std::string(GPUQUAL_TEST_DATA) + "/k8s/node-h200.json";
  Ran r = run_gpuqual("inventory --format json --node-file " + node +
                      " --platform gpu-operator=v25.10.0 --platform dcgm-exporter=4.2.3-4.1.1");
  auto j = nlohmann::json::parse(r.out);
  const auto& stack = j.at("node").at("stack");
  EXPECT_EQ(stack.at("k8s_kubelet_version"), "v1.31.4");
  EXPECT_EQ(stack.at("k8s_gpu_allocatable"), "7");
  EXPECT_EQ(stack.at("platform").at("gpu-operator"), "v25.10.0");
  EXPECT_EQ(stack.at("platform").at("dcgm-exporter"), "4.2.3-4.1.1");
  // Every fact of this node is a string or null with its reason: nothing silently empty.
  for (const char* key : {"bios_vendor", "bios_version", "kernel_module_build", "fabric_manager",
                          "nvidia_peermem", "container_toolkit", "cdi_specs"}) {
    const auto& v = stack.at(key);
    EXPECT_TRUE(v.is_string() || (v.is_null() && !stack.at("unread").at(key).get<std::string>().empty()))
        << key;
  }
}

TEST(InventoryCommand, BadStackFlagsAreUsageErrors) {
  EXPECT_EQ(run_gpuqual("inventory --platform gpu-operator").exit_code, 3);
  EXPECT_EQ(run_gpuqual("inventory --platform gpu-operator=v1 --platform gpu-operator=v2").exit_code, 3);
  EXPECT_EQ(run_gpuqual("inventory --node-file " + std::string(GPUQUAL_TEST_DATA) +
                        "/inventory/node-labels.downward")
                .exit_code,
            3);
}
