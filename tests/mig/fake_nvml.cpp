// A fake NVML: the entry points gpuqual's inventory resolves (device/nvml/nvml_library.hpp), with
// nvml.h's own signatures, answering from the JSON topology file GPUQUAL_FAKE_NVML_TOPOLOGY
// names (tests/data/mig/*.json): GPUs, their MIG modes, GPU instance profiles, GPU instances and
// compute instances. A GPU instance or compute instance the file lacks is absent, exactly as on a
// card where it was never created. Every handle points into tables built at nvmlInit_v2.
// The health check's core readings (ECC mode and counts, remapped rows, the PCIe link) read as a
// healthy card's, unless the GPU's `not_supported` list names them: then NVML_ERROR_NOT_SUPPORTED,
// as a vGPU guest is answered for what it is not given.
// Faults (docs/inventory.md, "GPUs NVML cannot read"): a GPU's `faults` object maps a call kind
// to the NVML status it answers instead ("handle", "uuid", "pci", "name", "memory", "ecc_mode",
// "ecc_counters", "remapped_rows", "pcie_link", "clock_event_reasons", "register_events"; e.g.
// {"uuid": "GPU_IS_LOST"}), and the topology's top-level `event_wait` the status every
// nvmlEventSetWait_v2 answers; without it a wait times out after its timeout, as on a quiet GPU.
// NVLink fabric (core/rules/gpu_fabric.hpp): a GPU's `fabric` is either the status
// nvmlDeviceGetGpuFabricInfoV answers ("NOT_SUPPORTED", "FUNCTION_NOT_FOUND": an older driver)
// or {state, status, clique_id, cluster_uuid (32 hex digits), health_mask}; its `nvlinks`
// {count, down: [links], version (nvmlNvlinkVersion_t), slow: [links one version lower],
// speed_mbps} answers nvmlDeviceGetNvLinkState and the per-link field values; its
// `recovery_action` NVML_FI_DEV_GET_GPU_RECOVERY_ACTION. Without them: NOT_SUPPORTED.
#include <nvml.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

struct nvmlDevice_st {
  int gpu = 0;
  int mig = -1;  // index into the GPU's MIG devices; -1: the GPU itself
};
struct nvmlGpuInstance_st {
  int gpu = 0;
  unsigned id = 0;
};

namespace {

using nlohmann::json;

struct MigDevice {
  unsigned gi_id = 0;
  unsigned ci_id = 0;
  json gi;  // the GPU instance object of the topology
  json ci;  // the compute instance object
};

struct Gpu {
  json spec;
  nvmlDevice_st handle;
  std::deque<nvmlDevice_st> mig_handles;
  std::vector<MigDevice> mig;
  std::deque<nvmlGpuInstance_st> gi_handles;
};

std::deque<Gpu> g_gpus;
int g_init_count = 0;
std::string g_event_wait_fault;  // the topology's event_wait
int g_event_set = 0;             // what nvmlEventSetCreate hands out

nvmlReturn_t status_named(const std::string& name) {
  if (name == "GPU_IS_LOST") return NVML_ERROR_GPU_IS_LOST;
  if (name == "NOT_SUPPORTED") return NVML_ERROR_NOT_SUPPORTED;
  if (name == "NO_PERMISSION") return NVML_ERROR_NO_PERMISSION;
  if (name == "TIMEOUT") return NVML_ERROR_TIMEOUT;
  if (name == "UNINITIALIZED") return NVML_ERROR_UNINITIALIZED;
  if (name == "FUNCTION_NOT_FOUND") return NVML_ERROR_FUNCTION_NOT_FOUND;
  if (name == "SUCCESS") return NVML_SUCCESS;
  return NVML_ERROR_UNKNOWN;
}

// The status the GPU's `faults` names for this call kind, else NVML_SUCCESS.
nvmlReturn_t fault(const json& spec, const char* kind) {
  const json faults = spec.value("faults", json::object());
  auto it = faults.find(kind);
  return it == faults.end() ? NVML_SUCCESS : status_named(it->get<std::string>());
}

void copy_string(const std::string& s, char* out, unsigned length) {
  if (length > 0) std::snprintf(out, length, "%s", s.c_str());
}

nvmlReturn_t load_topology() {
  const char* path = std::getenv("GPUQUAL_FAKE_NVML_TOPOLOGY");
  if (!path) return NVML_ERROR_DRIVER_NOT_LOADED;
  std::ifstream in(path);
  if (!in) return NVML_ERROR_DRIVER_NOT_LOADED;
  json top = json::parse(in, nullptr, false);
  if (top.is_discarded()) return NVML_ERROR_UNKNOWN;
  g_gpus.clear();
  g_event_wait_fault = top.value("event_wait", "");
  for (const json& spec : top.value("gpus", json::array())) {
    Gpu& g = g_gpus.emplace_back();
    g.spec = spec;
    g.handle.gpu = static_cast<int>(g_gpus.size() - 1);
    for (const json& gi : spec.value("gpu_instances", json::array())) {
      g.gi_handles.push_back({g.handle.gpu, gi.at("id").get<unsigned>()});
      for (const json& ci : gi.value("compute_instances", json::array())) {
        g.mig.push_back({gi.at("id").get<unsigned>(), ci.at("id").get<unsigned>(), gi, ci});
        g.mig_handles.push_back({g.handle.gpu, static_cast<int>(g.mig.size() - 1)});
      }
    }
  }
  return NVML_SUCCESS;
}

Gpu* gpu_of(nvmlDevice_t device) {
  if (!device || device->gpu < 0 || static_cast<std::size_t>(device->gpu) >= g_gpus.size()) return nullptr;
  return &g_gpus[static_cast<std::size_t>(device->gpu)];
}

const MigDevice* mig_of(nvmlDevice_t device) {
  Gpu* g = gpu_of(device);
  if (!g || device->mig < 0) return nullptr;
  return &g->mig[static_cast<std::size_t>(device->mig)];
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2(void) {
  if (g_init_count == 0) {
    if (nvmlReturn_t rc = load_topology(); rc != NVML_SUCCESS) return rc;
  }
  ++g_init_count;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlShutdown(void) {
  if (g_init_count == 0) return NVML_ERROR_UNINITIALIZED;
  --g_init_count;
  return NVML_SUCCESS;
}

const char* nvmlErrorString(nvmlReturn_t result) {
  return result == NVML_SUCCESS ? "Success" : "fake NVML error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) {
  copy_string("570.133.20", version, length);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = static_cast<unsigned>(g_gpus.size());
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
  if (index >= g_gpus.size()) return NVML_ERROR_INVALID_ARGUMENT;
  if (nvmlReturn_t rc = fault(g_gpus[index].spec, "handle"); rc != NVML_SUCCESS) return rc;
  *device = &g_gpus[index].handle;
  return NVML_SUCCESS;
}

// By bus id, compared without the domain (NVML writes 8 digits, CUDA and sysfs 4).
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, nvmlDevice_t* device) {
  const std::string want(bus_id);
  for (Gpu& g : g_gpus) {
    const std::string have = g.spec.value("pci_bus_id", "");
    if (have.size() < 7 || want.size() < 7 || have.substr(have.size() - 7) != want.substr(want.size() - 7))
      continue;
    if (nvmlReturn_t rc = fault(g.spec, "handle"); rc != NVML_SUCCESS) return rc;
    *device = &g.handle;
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  if (nvmlReturn_t rc = fault(g->spec, "name"); rc != NVML_SUCCESS) return rc;
  std::string n = g->spec.value("name", "");
  if (const MigDevice* m = mig_of(device)) n += " MIG " + m->ci.value("profile", m->gi.value("profile", ""));
  copy_string(n, name, length);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  if (nvmlReturn_t rc = fault(g->spec, "uuid"); rc != NVML_SUCCESS) return rc;
  const MigDevice* m = mig_of(device);
  copy_string(m ? m->ci.value("uuid", "") : g->spec.value("uuid", ""), uuid, length);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  if (nvmlReturn_t rc = fault(g->spec, "pci"); rc != NVML_SUCCESS) return rc;
  *pci = nvmlPciInfo_t{};
  copy_string(g->spec.value("pci_bus_id", ""), pci->busId, sizeof pci->busId);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  if (nvmlReturn_t rc = fault(g->spec, "memory"); rc != NVML_SUCCESS) return rc;
  const MigDevice* m = mig_of(device);
  const unsigned long long mib = m ? m->gi.value("memory_mib", 0ull) : g->spec.value("memory_mib", 0ull);
  *memory = nvmlMemory_t{};
  memory->total = mib << 20;
  memory->free = memory->total;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t device, nvmlGpuVirtualizationMode_t* mode) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  const std::string m = g->spec.value("virtualization_mode", "none");
  *mode = m == "vgpu" ? NVML_GPU_VIRTUALIZATION_MODE_VGPU : NVML_GPU_VIRTUALIZATION_MODE_NONE;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* current, unsigned int* pending) {
  Gpu* g = gpu_of(device);
  if (!g || device->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (!g->spec.contains("mig_current")) return NVML_ERROR_NOT_SUPPORTED;  // a card without MIG
  *current = g->spec.value("mig_current", false) ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
  *pending = g->spec.value("mig_pending", false) ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int* count) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  *count = g->spec.value("mig_current", false) ? 7u : 0u;
  return NVML_SUCCESS;
}

// The driver fills the MIG device slots in creation order; the fake in the file's order.
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t* mig) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  if (index >= g->mig_handles.size()) return NVML_ERROR_NOT_FOUND;
  *mig = &g->mig_handles[index];
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id) {
  const MigDevice* m = mig_of(device);
  if (!m) return NVML_ERROR_NOT_SUPPORTED;
  *id = m->gi_id;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int* id) {
  const MigDevice* m = mig_of(device);
  if (!m) return NVML_ERROR_NOT_SUPPORTED;
  *id = m->ci_id;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t* attributes) {
  const MigDevice* m = mig_of(device);
  if (!m) return NVML_ERROR_NOT_SUPPORTED;
  *attributes = nvmlDeviceAttributes_t{};
  attributes->multiprocessorCount = m->ci.value("sm_count", 0u);
  attributes->gpuInstanceSliceCount = m->gi.value("slices", 0u);
  attributes->computeInstanceSliceCount = m->ci.value("slices", 0u);
  attributes->memorySizeMB = m->gi.value("memory_mib", 0ull);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t* gi) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  for (nvmlGpuInstance_st& h : g->gi_handles) {
    if (h.id == id) {
      *gi = &h;
      return NVML_SUCCESS;
    }
  }
  return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gi, nvmlGpuInstanceInfo_t* info) {
  if (!gi || static_cast<std::size_t>(gi->gpu) >= g_gpus.size()) return NVML_ERROR_INVALID_ARGUMENT;
  Gpu& g = g_gpus[static_cast<std::size_t>(gi->gpu)];
  for (const json& spec : g.spec.value("gpu_instances", json::array())) {
    if (spec.at("id").get<unsigned>() != gi->id) continue;
    *info = nvmlGpuInstanceInfo_t{};
    info->device = &g.handle;
    info->id = gi->id;
    info->profileId = spec.at("profile_id").get<unsigned>();
    info->placement.start = spec.at("placement").at(0).get<unsigned>();
    info->placement.size = spec.at("placement").at(1).get<unsigned>();
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_FOUND;
}

// The card's GPU instance profiles, by NVML_GPU_INSTANCE_PROFILE_* value (the topology's
// `profiles`: enum, id, name, slices, as `nvidia-smi mig -lgip` lists them).
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                                  nvmlGpuInstanceProfileInfo_v2_t* info) {
  Gpu* g = gpu_of(device);
  if (!g || !info || info->version != nvmlGpuInstanceProfileInfo_v2) return NVML_ERROR_INVALID_ARGUMENT;
  for (const json& p : g->spec.value("profiles", json::array())) {
    if (p.at("enum").get<unsigned>() != profile) continue;
    const unsigned version = info->version;
    *info = nvmlGpuInstanceProfileInfo_v2_t{};
    info->version = version;
    info->id = p.at("id").get<unsigned>();
    info->sliceCount = p.value("slices", 0u);
    copy_string(p.at("name").get<std::string>(), info->name, sizeof info->name);
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_SUPPORTED;
}

// The health readings (see the top): healthy, or NOT_SUPPORTED where `not_supported` names them.
nvmlReturn_t health_reading(nvmlDevice_t device, const char* what) {
  Gpu* g = gpu_of(device);
  if (!g || device->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  if (nvmlReturn_t rc = fault(g->spec, what); rc != NVML_SUCCESS) return rc;
  for (const json& n : g->spec.value("not_supported", json::array())) {
    if (n.get<std::string>() == what) return NVML_ERROR_NOT_SUPPORTED;
  }
  return NVML_SUCCESS;
}

// The topology's `compute_capability` ("9.0"); NOT_SUPPORTED when it has none.
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) {
  Gpu* g = gpu_of(device);
  if (!g || device->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  const std::string cc = g->spec.value("compute_capability", "");
  if (cc.size() < 3 || cc[1] != '.') return NVML_ERROR_NOT_SUPPORTED;
  *major = cc[0] - '0';
  *minor = cc[2] - '0';
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t* current,
                                  nvmlEnableState_t* pending) {
  const nvmlReturn_t rc = health_reading(device, "ecc_mode");
  if (rc == NVML_SUCCESS) *current = *pending = NVML_FEATURE_ENABLED;
  return rc;
}

nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t, nvmlEccCounterType_t,
                                         unsigned long long* count) {
  const nvmlReturn_t rc = health_reading(device, "ecc_counters");
  if (rc == NVML_SUCCESS) *count = 0;
  return rc;
}

nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* correctable,
                                       unsigned int* uncorrectable, unsigned int* pending,
                                       unsigned int* failure) {
  const nvmlReturn_t rc = health_reading(device, "remapped_rows");
  if (rc == NVML_SUCCESS) *correctable = *uncorrectable = *pending = *failure = 0;
  return rc;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int* gen) {
  const nvmlReturn_t rc = health_reading(device, "pcie_link");
  if (rc == NVML_SUCCESS) *gen = 5;
  return rc;
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int* width) {
  const nvmlReturn_t rc = health_reading(device, "pcie_link");
  if (rc == NVML_SUCCESS) *width = 16;
  return rc;
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long* reasons) {
  const nvmlReturn_t rc = health_reading(device, "clock_event_reasons");
  if (rc == NVML_SUCCESS) *reasons = 0;
  return rc;
}

// Xid events: every GPU supports them; none ever comes. A wait answers the topology's
// `event_wait` at once (a lost GPU does not wait out the timeout), else times out.
nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long* types) {
  if (!gpu_of(device)) return NVML_ERROR_INVALID_ARGUMENT;
  *types = nvmlEventTypeXidCriticalError;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  *set = reinterpret_cast<nvmlEventSet_t>(&g_event_set);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long, nvmlEventSet_t) {
  Gpu* g = gpu_of(device);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  return fault(g->spec, "register_events");
}

nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t, nvmlEventData_t*, unsigned int timeoutms) {
  if (!g_event_wait_fault.empty()) return status_named(g_event_wait_fault);
  std::this_thread::sleep_for(std::chrono::milliseconds(timeoutms));
  return NVML_ERROR_TIMEOUT;
}

nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t) { return NVML_SUCCESS; }

}  // extern "C"

namespace {

// The GPU's `nvlinks` object; null when it has none (a board without NVLink).
const json* nvlinks_of(nvmlDevice_t device) {
  Gpu* g = gpu_of(device);
  if (!g || device->mig >= 0) return nullptr;
  auto it = g->spec.find("nvlinks");
  return it == g->spec.end() ? nullptr : &*it;
}

bool listed(const json& links, const char* key, unsigned link) {
  for (const json& l : links.value(key, json::array())) {
    if (l.get<unsigned>() == link) return true;
  }
  return false;
}

void answer_field(nvmlDevice_t device, nvmlFieldValue_t& v) {
  v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
  Gpu* g = gpu_of(device);
  const json* links = nvlinks_of(device);
  if (v.fieldId == NVML_FI_DEV_GET_GPU_RECOVERY_ACTION && g && g->spec.contains("recovery_action")) {
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    v.value.uiVal = g->spec.at("recovery_action").get<unsigned>();
    v.nvmlReturn = NVML_SUCCESS;
  }
  if (!links || v.scopeId >= links->value("count", 0u)) return;
  if (v.fieldId == NVML_FI_DEV_NVLINK_GET_VERSION && links->contains("version")) {
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    v.value.uiVal = links->at("version").get<unsigned>() - (listed(*links, "slow", v.scopeId) ? 1 : 0);
    v.nvmlReturn = NVML_SUCCESS;
  }
  if (v.fieldId == NVML_FI_DEV_NVLINK_GET_SPEED && links->contains("speed_mbps")) {
    v.valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
    v.value.uiVal = links->at("speed_mbps").get<unsigned>();
    v.nvmlReturn = NVML_SUCCESS;
  }
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t* active) {
  const json* links = nvlinks_of(device);
  if (!links) return NVML_ERROR_NOT_SUPPORTED;
  if (link >= links->value("count", 0u)) return NVML_ERROR_INVALID_ARGUMENT;
  *active = listed(*links, "down", link) ? NVML_FEATURE_DISABLED : NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t* values) {
  if (!gpu_of(device) || count < 0) return NVML_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < count; ++i) answer_field(device, values[i]);
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t* info) {
  Gpu* g = gpu_of(device);
  if (!g || device->mig >= 0) return NVML_ERROR_INVALID_ARGUMENT;
  auto it = g->spec.find("fabric");
  if (it == g->spec.end()) return NVML_ERROR_NOT_SUPPORTED;
  if (it->is_string()) return status_named(it->get<std::string>());
  if (info->version != nvmlGpuFabricInfo_v3) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
  const json& f = *it;
  info->state = f.value("state", 0u);
  info->status = status_named(f.value("status", "SUCCESS"));
  info->cliqueId = f.value("clique_id", 0u);
  info->healthMask = f.value("health_mask", 0u);
  const std::string hex = f.value("cluster_uuid", "");
  for (std::size_t i = 0; i < NVML_GPU_FABRIC_UUID_LEN && 2 * i + 1 < hex.size(); ++i)
    info->clusterUuid[i] = static_cast<unsigned char>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return NVML_SUCCESS;
}

}  // extern "C"
