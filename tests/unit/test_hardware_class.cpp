#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/record/hardware_class.hpp"
#include "record_builders.hpp"

using namespace gpuqual;

namespace {

struct NamedGpu {
  const char* nvml_name;  // exact NVML / nvidia-smi -L string
  std::uint64_t mib;      // nvidia-smi total (= GFD nvidia.com/gpu.memory)
  const char* slug;
  const char* gfd_product;
};

// Names and MiB totals as seen on real machines (nvidia-smi and NVML
// strings quoted in public logs and issues: docs/hardware-class.md).
constexpr std::array<NamedGpu, 18> kRealGpus = {{
    {"NVIDIA H200", 143771, "h200-sxm-141gb", "NVIDIA-H200"},
    {"NVIDIA H200 NVL", 143771, "h200-nvl-141gb", "NVIDIA-H200-NVL"},
    {"NVIDIA H100 80GB HBM3", 81559, "h100-sxm-80gb", "NVIDIA-H100-80GB-HBM3"},
    {"NVIDIA H100 PCIe", 81559, "h100-pcie-80gb", "NVIDIA-H100-PCIe"},
    {"NVIDIA H100 PCIe", 81920, "h100-pcie-80gb", "NVIDIA-H100-PCIe"},  // one VM reports 81920
    {"NVIDIA H100 NVL", 95830, "h100-nvl-94gb", "NVIDIA-H100-NVL"},
    {"NVIDIA A100-SXM4-80GB", 81920, "a100-sxm-80gb", "NVIDIA-A100-SXM4-80GB"},
    {"NVIDIA A100-SXM4-40GB", 40960, "a100-sxm-40gb", "NVIDIA-A100-SXM4-40GB"},
    {"NVIDIA A100-PCIE-40GB", 40960, "a100-pcie-40gb", "NVIDIA-A100-PCIE-40GB"},
    {"NVIDIA A100 80GB PCIe", 81920, "a100-pcie-80gb", "NVIDIA-A100-80GB-PCIe"},
    {"NVIDIA L40S", 46068, "l40s-pcie-48gb", "NVIDIA-L40S"},
    {"NVIDIA L4", 23034, "l4-pcie-24gb", "NVIDIA-L4"},
    {"NVIDIA B200", 183359, "b200-sxm-180gb", "NVIDIA-B200"},
    {"NVIDIA GB200", 189471, "gb200-186gb", "NVIDIA-GB200"},
    // Blackwell Ultra: the HGX module's name carries "SXM6" and a trailing "AC"; 275040 MiB
    // (268.6 GiB) is nearest the 288 GB it is sold as. GB300 (Grace superchip): 284208 MiB.
    {"NVIDIA B300 SXM6 AC", 275040, "b300-sxm-288gb", "NVIDIA-B300-SXM6-AC"},
    {"NVIDIA GB300", 284208, "gb300-279gb", "NVIDIA-GB300"},
    {"NVIDIA RTX 6000 Ada Generation", 49140, "rtx-6000-ada-pcie-48gb", "NVIDIA-RTX-6000-Ada-Generation"},
    // Driver 450 (GPU Operator MIG docs, 2020): no "NVIDIA " prefix, 40537 MiB.
    {"A100-SXM4-40GB", 40537, "a100-sxm-40gb", "A100-SXM4-40GB"},
}};

std::map<std::string, std::string> read_labels(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::map<std::string, std::string> labels;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    EXPECT_NE(eq, std::string::npos) << path << ": " << line;
    if (eq != std::string::npos) labels[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return labels;
}

std::vector<GpuInfo> node_of(int count, const std::string& name, std::uint64_t mib) {
  std::vector<GpuInfo> gpus;
  for (int i = 0; i < count; ++i) gpus.push_back(gpuqual::testing::make_gpu(i, name, mib << 20));
  return gpus;
}

}  // namespace

TEST(HardwareClass, SlugsOfRealProductNames) {
  for (const auto& g : kRealGpus) {
    EXPECT_EQ(hardware_class_slug(g.nvml_name, g.mib), g.slug) << g.nvml_name << " " << g.mib;
  }
}

TEST(HardwareClass, SlugFromGfdProductLabelEqualsSlugFromNvmlName) {
  for (const auto& g : kRealGpus) {
    EXPECT_EQ(hardware_class_slug(g.gfd_product, g.mib), g.slug) << g.gfd_product;
  }
}

TEST(HardwareClass, CudaTotalGlobalMemGivesTheSameClassAsNvml) {
  // CUDA's totalGlobalMem is a few hundred MiB under NVML's total: deviceQuery on an
  // A100-SXM4-80GB prints 81251 MBytes where nvidia-smi prints 81920 MiB.
  EXPECT_EQ(hardware_class_slug("NVIDIA A100-SXM4-80GB", 81251), "a100-sxm-80gb");
}

TEST(HardwareClass, BlackwellUltraIsItsOwnClassNotBlackwells) {
  // "b300" and "gb300" are whole tokens: neither matches the B200/GB200 rows, nor each other.
  EXPECT_EQ(hardware_class_slug("NVIDIA B300 SXM6 AC", 275040), "b300-sxm-288gb");
  EXPECT_EQ(hardware_class_slug("NVIDIA B300", 275040), "b300-sxm-288gb");  // SXM is the module's form
  EXPECT_EQ(hardware_class_slug("NVIDIA GB300", 284208), "gb300-279gb");
  EXPECT_EQ(hardware_class_slug("NVIDIA GB300", 189471), "gb300-186gb");  // not a size it is sold in
  EXPECT_EQ(hardware_class_slug("NVIDIA B300A", 275040), "unknown");      // no prefix matching
  const HardwareClass hw = derive_hardware_class(node_of(8, "NVIDIA B300 SXM6 AC", 275040));
  EXPECT_EQ(hw.slug, "b300-sxm-288gb");
  EXPECT_EQ(hw.product, "NVIDIA-B300-SXM6-AC");
  EXPECT_EQ(hw.gpu_count, 8);
  // A GB300 compute tray has 4 GPUs; its GFD labels give the same class as NVML.
  const HardwareClass tray = hardware_class_from_gfd_labels({{"nvidia.com/gpu.product", "NVIDIA-GB300"},
                                                             {"nvidia.com/gpu.memory", "284208"},
                                                             {"nvidia.com/gpu.count", "4"}});
  EXPECT_EQ(tray.slug, "gb300-279gb");
  EXPECT_EQ(tray.gpu_count, 4);
}

TEST(HardwareClass, UnknownProducts) {
  EXPECT_EQ(hardware_class_slug("NVIDIA GH200 480GB", 97871), "unknown");  // not in the table
  EXPECT_EQ(hardware_class_slug("NVIDIA H20", 97871), "unknown");
  EXPECT_EQ(hardware_class_slug("Tesla T4", 15360), "unknown");
  EXPECT_EQ(hardware_class_slug("NVIDIA L40", 46068), "unknown");  // L40 is not L40S
  EXPECT_EQ(hardware_class_slug("NVIDIA A800-SXM4-80GB", 81920), "unknown");
  EXPECT_EQ(hardware_class_slug("NVIDIA H100X", 81559), "unknown");     // no prefix matching
  EXPECT_EQ(hardware_class_slug("Quadro RTX 6000", 24576), "unknown");  // Turing, not Ada
  EXPECT_EQ(hardware_class_slug("NVIDIA RTX A6000", 49140), "unknown");
  EXPECT_EQ(hardware_class_slug("", 81559), "unknown");
  EXPECT_EQ(hardware_class_slug("NVIDIA", 81559), "unknown");
}

TEST(HardwareClass, NoMemoryOrNoFormFactorOrMigIsUnknown) {
  EXPECT_EQ(hardware_class_slug("NVIDIA H200", 0), "unknown");  // NVML reported 0 (GFD omits the label)
  EXPECT_EQ(hardware_class_slug("NVIDIA A100 80GB", 81920), "unknown");  // A100 names always say SXM4/PCIE
  EXPECT_EQ(hardware_class_slug("NVIDIA A100-SXM4-40GB MIG 1g.5gb", 4864), "unknown");
  EXPECT_EQ(hardware_class_slug("NVIDIA-A100-SXM4-40GB-MIG-1g.5gb", 4864), "unknown");
  EXPECT_EQ(hardware_class_slug("NVIDIA H100 PCIe SXM5", 81559), "unknown");  // contradictory
}

TEST(HardwareClass, NameMatchingIgnoresCaseAndSeparators) {
  EXPECT_EQ(hardware_class_slug("nvidia h200", 143771), "h200-sxm-141gb");
  EXPECT_EQ(hardware_class_slug("NVIDIA  H100   PCIe", 81559), "h100-pcie-80gb");
  EXPECT_EQ(hardware_class_slug("NVIDIA_H100_NVL", 95830), "h100-nvl-94gb");
}

TEST(HardwareClass, MarketingMemoryRule) {
  const std::array<int, 1> h200{141};
  EXPECT_EQ(marketing_memory_gb(143771, h200), 141);  // 140.4 GiB: rounding would say 140
  const std::array<int, 2> a100{40, 80};
  EXPECT_EQ(marketing_memory_gb(81559, a100), 80);
  EXPECT_EQ(marketing_memory_gb(40960, a100), 40);
  EXPECT_EQ(marketing_memory_gb(81920, a100), 80);
  const std::array<int, 1> l40s{48};
  EXPECT_EQ(marketing_memory_gb(46068, l40s), 48);  // ECC carve-out of 1/16: 45.0 GiB
  EXPECT_EQ(marketing_memory_gb(49140, l40s), 48);  // same card with ECC off
  const std::array<int, 1> l4{24};
  EXPECT_EQ(marketing_memory_gb(23034, l4), 24);
  const std::array<int, 1> b200{180};
  EXPECT_EQ(marketing_memory_gb(183359, b200), 180);  // undoing a 1/16 carve-out would say 192
  const std::array<int, 1> gb200{186};
  EXPECT_EQ(marketing_memory_gb(189471, gb200), 186);
  const std::array<int, 3> h100{80, 94, 96};
  EXPECT_EQ(marketing_memory_gb(95830, h100), 94);  // 93.6 GiB: nearer 94 than 96
  // Band edges: GiB/C in [0.90, 1.02]; outside it, ceil(GiB).
  const std::array<int, 1> c100{100};
  EXPECT_EQ(marketing_memory_gb(92160, c100), 100);   // exactly 0.90
  EXPECT_EQ(marketing_memory_gb(92159, c100), 90);    // just under 0.90: ceil(89.999)
  EXPECT_EQ(marketing_memory_gb(104448, c100), 100);  // exactly 1.02
  EXPECT_EQ(marketing_memory_gb(104449, c100), 103);  // just over 1.02: ceil(102.0009)
  EXPECT_EQ(marketing_memory_gb(0, c100), 0);
  // A known product in an unlisted size names a class no baseline has, never a wrong one.
  EXPECT_EQ(hardware_class_slug("NVIDIA H200", 65536), "h200-sxm-64gb");
}

TEST(GfdProductLabel, RealNamesFromTheReferenceTable) {
  for (const auto& g : kRealGpus) EXPECT_EQ(gfd_product_label(g.nvml_name), g.gfd_product) << g.nvml_name;
  EXPECT_EQ(gfd_product_label("NVIDIA A800-SXM4-80GB"), "NVIDIA-A800-SXM4-80GB");
  EXPECT_EQ(gfd_product_label("NVIDIA GH200 480GB"), "NVIDIA-GH200-480GB");
  EXPECT_EQ(gfd_product_label("NVIDIA B300 SXM6 AC"), "NVIDIA-B300-SXM6-AC");
  EXPECT_EQ(gfd_product_label("Tesla T4"), "Tesla-T4");
  EXPECT_EQ(gfd_product_label("Tesla V100-SXM2-32GB"), "Tesla-V100-SXM2-32GB");
}

TEST(GfdProductLabel, SanitiseRules) {
  // Characters outside [A-Za-z0-9-_. ] are deleted (not replaced) before blanks are handled.
  EXPECT_EQ(gfd_product_label("NVIDIA(R) H100/PCIe"), "NVIDIAR-H100PCIe");
  EXPECT_EQ(gfd_product_label("NVIDIA\tH100"), "NVIDIAH100");          // a tab is deleted, not a blank
  EXPECT_EQ(gfd_product_label("NVIDIA\xC2\xAE H100"), "NVIDIA-H100");  // "®" (UTF-8) deleted
  EXPECT_EQ(gfd_product_label("NVIDIA \xFF H100"), "NVIDIA-H100");     // invalid UTF-8 deleted
  // Runs of blanks collapse; leading and trailing blanks vanish (strings.Fields).
  EXPECT_EQ(gfd_product_label("  NVIDIA   H100  PCIe  "), "NVIDIA-H100-PCIe");
  EXPECT_EQ(gfd_product_label("a - b"), "a---b");
  EXPECT_EQ(gfd_product_label("A.b_c-D"), "A.b_c-D");
  EXPECT_EQ(gfd_product_label(""), "");
  EXPECT_EQ(gfd_product_label(" @ "), "");
}

TEST(DeriveHardwareClass, HomogeneousNode) {
  const HardwareClass hw = derive_hardware_class(node_of(8, "NVIDIA H200", 143771));
  EXPECT_EQ(hw.slug, "h200-sxm-141gb");
  EXPECT_EQ(hw.gpu_count, 8);
  EXPECT_EQ(hw.product, "NVIDIA-H200");
  ASSERT_TRUE(hw.memory_mib.has_value());
  EXPECT_EQ(*hw.memory_mib, 143771u);
  EXPECT_FALSE(hw.overridden);
}

TEST(DeriveHardwareClass, NoGpusIsUnknown) {
  const HardwareClass hw = derive_hardware_class({});
  EXPECT_EQ(hw.slug, "unknown");
  EXPECT_EQ(hw.gpu_count, 0);
  EXPECT_TRUE(hw.product.empty());
  EXPECT_FALSE(hw.memory_mib.has_value());
  EXPECT_EQ(gfd_labels(hw), (std::map<std::string, std::string>{{"nvidia.com/gpu.count", "0"}}));
}

TEST(DeriveHardwareClass, MixedGpusAreMixed) {
  auto gpus = node_of(2, "NVIDIA H100 80GB HBM3", 81559);
  gpus.push_back(gpuqual::testing::make_gpu(2, "NVIDIA H200", 143771ull << 20));
  const HardwareClass hw = derive_hardware_class(gpus);
  EXPECT_EQ(hw.slug, "mixed");
  EXPECT_EQ(hw.gpu_count, 3);
  EXPECT_TRUE(hw.product.empty());
  EXPECT_FALSE(hw.memory_mib.has_value());
}

TEST(DeriveHardwareClass, TwoDifferentUnknownProductsAreMixedNotUnknown) {
  auto gpus = node_of(1, "NVIDIA H20", 97871);
  gpus.push_back(gpuqual::testing::make_gpu(1, "Tesla T4", 15360ull << 20));
  EXPECT_EQ(derive_hardware_class(gpus).slug, "mixed");
}

TEST(DeriveHardwareClass, OneUnknownProductKeepsItsGfdLabels) {
  const HardwareClass hw = derive_hardware_class(node_of(4, "NVIDIA GH200 480GB", 97871));
  EXPECT_EQ(hw.slug, "unknown");
  EXPECT_EQ(hw.product, "NVIDIA-GH200-480GB");
  EXPECT_EQ(hw.memory_mib.value_or(0), 97871u);
}

TEST(DeriveHardwareClass, SameProductSameSlugDifferentMemoryDropsTheMemoryLabel) {
  // CUDA-reported totals can differ by a few MiB between boards; the class is still one.
  auto gpus = node_of(1, "NVIDIA H100 80GB HBM3", 81559);
  gpus.push_back(gpuqual::testing::make_gpu(1, "NVIDIA H100 80GB HBM3", 81551ull << 20));
  const HardwareClass hw = derive_hardware_class(gpus);
  EXPECT_EQ(hw.slug, "h100-sxm-80gb");
  EXPECT_FALSE(hw.memory_mib.has_value());
}

// Node label dumps (tests/data/gfd/*.labels; two real, two composed, provenance in each file):
// the labels gpuqual derives from the node's GPUs must be exactly the labels GFD put there,
// and the class read back from GFD's labels must be the class derived from the GPUs.
TEST(GfdLabels, MatchRealNodeLabelDumps) {
  struct Node {
    const char* file;
    const char* nvml_name;
    std::uint64_t mib;
    int count;
    const char* slug;
  };
  const std::array<Node, 4> nodes = {{
      {"h100-sxm-80gb-x2.labels", "NVIDIA H100 80GB HBM3", 81559, 2, "h100-sxm-80gb"},
      {"a100-sxm4-40gb-x4.labels", "NVIDIA A100-SXM4-40GB", 40960, 4, "a100-sxm-40gb"},
      {"h200-sxm-141gb-x8.labels", "NVIDIA H200", 143771, 8, "h200-sxm-141gb"},
      {"a100-sxm4-80gb-x8.labels", "NVIDIA A100-SXM4-80GB", 81920, 8, "a100-sxm-80gb"},
  }};
  std::size_t files_seen = 0;
  for (const auto& n : nodes) {
    const std::string path = std::string(GPUQUAL_TEST_DATA) + "/gfd/" + n.file;
    const auto node_labels = read_labels(path);
    ASSERT_FALSE(node_labels.empty()) << path;
    ++files_seen;

    const HardwareClass derived = derive_hardware_class(node_of(n.count, n.nvml_name, n.mib));
    EXPECT_EQ(derived.slug, n.slug) << n.file;
    const auto ours = gfd_labels(derived);
    EXPECT_EQ(ours.size(), 3u) << n.file;
    for (const auto& [key, value] : ours) {
      auto it = node_labels.find(key);
      ASSERT_NE(it, node_labels.end()) << n.file << " lacks " << key;
      EXPECT_EQ(it->second, value) << n.file << " " << key;
    }

    const HardwareClass from_labels = hardware_class_from_gfd_labels(node_labels);
    EXPECT_EQ(from_labels.slug, n.slug) << n.file;
    EXPECT_EQ(from_labels.gpu_count, n.count) << n.file;
    EXPECT_EQ(from_labels.product, derived.product) << n.file;
    EXPECT_EQ(from_labels.memory_mib, derived.memory_mib) << n.file;
  }
  // Every label dump in the folder is covered by the table above.
  std::size_t on_disk = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(GPUQUAL_TEST_DATA) + "/gfd")) {
    if (e.path().extension() == ".labels") ++on_disk;
  }
  EXPECT_EQ(on_disk, files_seen);
}

TEST(GfdLabels, OldDriverLabelsWithoutNvidiaPrefix) {
  // GPU Operator MIG docs, driver 450.80.02: gpu.product=A100-SXM4-40GB, gpu.memory=40537.
  const HardwareClass hw = hardware_class_from_gfd_labels({{"nvidia.com/gpu.product", "A100-SXM4-40GB"},
                                                           {"nvidia.com/gpu.memory", "40537"},
                                                           {"nvidia.com/gpu.count", "8"}});
  EXPECT_EQ(hw.slug, "a100-sxm-40gb");
  EXPECT_EQ(hw.gpu_count, 8);
}

TEST(GfdLabels, MissingOrGarbledLabelsGiveUnknown) {
  EXPECT_EQ(hardware_class_from_gfd_labels({}).slug, "unknown");
  EXPECT_EQ(hardware_class_from_gfd_labels({{"nvidia.com/gpu.product", "NVIDIA-H200"}}).slug, "unknown");
  const HardwareClass hw = hardware_class_from_gfd_labels({{"nvidia.com/gpu.product", "NVIDIA-H200"},
                                                           {"nvidia.com/gpu.memory", "143771MiB"},
                                                           {"nvidia.com/gpu.count", "-1"}});
  EXPECT_EQ(hw.slug, "unknown");
  EXPECT_FALSE(hw.memory_mib.has_value());
  EXPECT_EQ(hw.gpu_count, 0);
  // MIG "single" strategy labels a slice, not the GPU: the node is of the slice class (docs/mig.md),
  // and unknown only when the product is.
  EXPECT_EQ(hardware_class_from_gfd_labels({{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb"},
                                            {"nvidia.com/gpu.memory", "4864"}})
                .slug,
            "a100-sxm-40gb-mig-1g.5gb");
  EXPECT_EQ(hardware_class_from_gfd_labels(
                {{"nvidia.com/gpu.product", "NVIDIA-Q9-MIG-1g.5gb"}, {"nvidia.com/gpu.memory", "4864"}})
                .slug,
            "unknown");
}

TEST(HardwareClass, ValidOverrideSlugs) {
  EXPECT_TRUE(is_valid_class_slug("h200-sxm-141gb"));
  EXPECT_TRUE(is_valid_class_slug("gb200-186gb"));
  EXPECT_TRUE(is_valid_class_slug("x"));
  EXPECT_FALSE(is_valid_class_slug(""));
  EXPECT_FALSE(is_valid_class_slug("H200-SXM-141GB"));
  EXPECT_FALSE(is_valid_class_slug("../etc/passwd"));
  EXPECT_FALSE(is_valid_class_slug("h200/sxm"));
  EXPECT_FALSE(is_valid_class_slug("h200.yaml"));
  EXPECT_FALSE(is_valid_class_slug("-h200"));
  EXPECT_FALSE(is_valid_class_slug("h200-"));
  EXPECT_FALSE(is_valid_class_slug("h200 sxm"));
  EXPECT_FALSE(is_valid_class_slug(std::string(64, 'a')));
  EXPECT_TRUE(is_valid_class_slug(std::string(63, 'a')));
  for (const auto& g : kRealGpus) EXPECT_TRUE(is_valid_class_slug(g.slug)) << g.slug;
}
