// gpuqual-container-probe: gpuqual's own small program, run INSIDE a probed container (mounted
// read-only; `self_probe: true` / `--self-probe`). It prints one JSON object on stdout:
//
//   {"schema": "gpuqual.container-probe/v1",
//    "env": {"NVIDIA_VISIBLE_DEVICES": "all", "CUDA_VERSION": "12.4.1"},
//    "dev_nodes": 8,                       // /dev/nvidia<N> device nodes in the container
//    "libcuda": "loaded" | "<dlopen error>",
//    "cuda_driver_version": "12.8",        // cuDriverGetVersion
//    "cudart_version": "12.4" | null,      // the image's libcudart (cudaRuntimeGetVersion)
//    "init_error": null | "CUDA_ERROR_...",
//    "devices": [{"index": 0, "name": "NVIDIA H200", "uuid": "GPU-…", "cc": "9.0",
//                 "memory_bytes": 150…, "kernel": "ok" | "<error or wrong result>"}]}
//
// It judges nothing: gpuqual reads the JSON and decides (probes/container/self_probe.cpp). Built to need
// nothing but the image's C library: no libstdc++ (no STL, -static-libgcc), the CUDA driver
// loaded with dlopen (the NVIDIA runtime injects libcuda.so.1), the kernel as PTX text that the
// driver compiles for whatever GPU it finds.
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef void* CUmodule;
typedef void* CUfunction;
typedef unsigned long long CUdeviceptr;
struct CUuuid {
  unsigned char bytes[16];
};
constexpr int kAttrCcMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrCcMinor = 76;

// value[i] = i * 2654435761 + 12345 (mod 2^32): no two neighbours alike, checkable on the host.
const char kPtx[] =
    ".version 6.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    ".visible .entry gpuqual_fill(.param .u64 out, .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p<2>;\n"
    "  .reg .b32 %r<8>;\n"
    "  .reg .b64 %rd<5>;\n"
    "  ld.param.u64 %rd1, [out];\n"
    "  ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %ctaid.x;\n"
    "  mov.u32 %r3, %ntid.x;\n"
    "  mov.u32 %r4, %tid.x;\n"
    "  mad.lo.u32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.u32 %p1, %r5, %r1;\n"
    "  @%p1 bra DONE;\n"
    "  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mul.wide.u32 %rd3, %r5, 4;\n"
    "  add.s64 %rd4, %rd2, %rd3;\n"
    "  mad.lo.u32 %r6, %r5, 2654435761, 12345;\n"
    "  st.global.u32 [%rd4], %r6;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

struct Cuda {
  CUresult (*Init)(unsigned);
  CUresult (*DriverGetVersion)(int*);
  CUresult (*DeviceGetCount)(int*);
  CUresult (*DeviceGet)(CUdevice*, int);
  CUresult (*DeviceGetName)(char*, int, CUdevice);
  CUresult (*DeviceGetUuid)(CUuuid*, CUdevice);
  CUresult (*DeviceGetAttribute)(int*, int, CUdevice);
  CUresult (*DeviceTotalMem)(size_t*, CUdevice);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice);
  CUresult (*CtxSetCurrent)(CUcontext);
  CUresult (*CtxSynchronize)();
  CUresult (*ModuleLoadData)(CUmodule*, const void*);
  CUresult (*ModuleUnload)(CUmodule);
  CUresult (*ModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*MemAlloc)(CUdeviceptr*, size_t);
  CUresult (*MemFree)(CUdeviceptr);
  CUresult (*MemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           void*, void**, void**);
  CUresult (*GetErrorName)(CUresult, const char**);
};

template <class F>
bool load(void* lib, F& fn, const char* name, const char* fallback = nullptr) {
  void* p = dlsym(lib, name);
  if (!p && fallback) p = dlsym(lib, fallback);
  fn = reinterpret_cast<F>(p);
  return p != nullptr;
}

const char* err_name(const Cuda& cu, CUresult r) {
  const char* s = nullptr;
  if (cu.GetErrorName && cu.GetErrorName(r, &s) == 0 && s) return s;
  static char buf[32];
  snprintf(buf, sizeof buf, "CUresult %d", r);
  return buf;
}

// JSON string: the values here are device names, env values and error names; escape anyway.
void put_string(const char* s) {
  if (!s) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  for (const unsigned char* p = reinterpret_cast<const unsigned char*>(s); *p; ++p) {
    if (*p == '"' || *p == '\\') {
      putchar('\\');
      putchar(*p);
    } else if (*p < 0x20) {
      printf("\\u%04x", *p);
    } else {
      putchar(*p);
    }
  }
  putchar('"');
}

int count_dev_nodes() {
  DIR* d = opendir("/dev");
  if (!d) return 0;
  int n = 0;
  while (dirent* e = readdir(d)) {
    if (strncmp(e->d_name, "nvidia", 6) == 0 && e->d_name[6] >= '0' && e->d_name[6] <= '9') ++n;
  }
  closedir(d);
  return n;
}

// The tiny kernel on one device; writes "ok" or what went wrong into `out`.
void run_kernel(const Cuda& cu, CUdevice dev, char* out, size_t out_size) {
  CUcontext ctx = nullptr;
  CUresult r = cu.DevicePrimaryCtxRetain(&ctx, dev);
  if (r != 0) {
    snprintf(out, out_size, "cuDevicePrimaryCtxRetain: %s", err_name(cu, r));
    return;
  }
  cu.CtxSetCurrent(ctx);
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  CUdeviceptr buf = 0;
  const unsigned n = 1u << 16;
  unsigned* host = static_cast<unsigned*>(malloc(n * sizeof(unsigned)));
  do {
    if ((r = cu.ModuleLoadData(&mod, kPtx)) != 0) {
      snprintf(out, out_size, "cuModuleLoadData (PTX JIT): %s", err_name(cu, r));
      break;
    }
    if ((r = cu.ModuleGetFunction(&fn, mod, "gpuqual_fill")) != 0) {
      snprintf(out, out_size, "cuModuleGetFunction: %s", err_name(cu, r));
      break;
    }
    if ((r = cu.MemAlloc(&buf, n * sizeof(unsigned))) != 0) {
      snprintf(out, out_size, "cuMemAlloc: %s", err_name(cu, r));
      break;
    }
    unsigned count = n;
    void* args[] = {&buf, &count};
    if ((r = cu.LaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr)) != 0) {
      snprintf(out, out_size, "cuLaunchKernel: %s", err_name(cu, r));
      break;
    }
    if ((r = cu.CtxSynchronize()) != 0) {
      snprintf(out, out_size, "cuCtxSynchronize: %s", err_name(cu, r));
      break;
    }
    if ((r = cu.MemcpyDtoH(host, buf, n * sizeof(unsigned))) != 0) {
      snprintf(out, out_size, "cuMemcpyDtoH: %s", err_name(cu, r));
      break;
    }
    unsigned bad = 0, first_bad = 0;
    for (unsigned i = 0; i < n; ++i) {
      if (host[i] != i * 2654435761u + 12345u) {
        if (!bad) first_bad = i;
        ++bad;
      }
    }
    if (bad) {
      snprintf(out, out_size, "wrong result: %u of %u values differ, first at %u", bad, n, first_bad);
    } else {
      snprintf(out, out_size, "ok");
    }
  } while (false);
  free(host);
  if (buf) cu.MemFree(buf);
  if (mod) cu.ModuleUnload(mod);
  cu.DevicePrimaryCtxRelease(dev);
}

void print_cudart_version() {
  const char* names[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", nullptr};
  for (const char** n = names; *n; ++n) {
    void* lib = dlopen(*n, RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    int (*get)(int*) = reinterpret_cast<int (*)(int*)>(dlsym(lib, "cudaRuntimeGetVersion"));
    int v = 0;
    if (get && get(&v) == 0 && v > 0) {
      printf("\"%d.%d\"", v / 1000, (v % 1000) / 10);
      return;
    }
  }
  fputs("null", stdout);
}

// Every driver API entry point the probe calls; false when libcuda lacks one (cuGetErrorName is
// optional: err_name falls back to the number).
bool load_driver_api(void* lib, Cuda& cu) {
  bool ok =
      load(lib, cu.Init, "cuInit") && load(lib, cu.DriverGetVersion, "cuDriverGetVersion") &&
      load(lib, cu.DeviceGetCount, "cuDeviceGetCount") && load(lib, cu.DeviceGet, "cuDeviceGet") &&
      load(lib, cu.DeviceGetName, "cuDeviceGetName") &&
      load(lib, cu.DeviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid") &&
      load(lib, cu.DeviceGetAttribute, "cuDeviceGetAttribute") &&
      load(lib, cu.DeviceTotalMem, "cuDeviceTotalMem_v2") &&
      load(lib, cu.DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
      load(lib, cu.DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease") &&
      load(lib, cu.CtxSetCurrent, "cuCtxSetCurrent") && load(lib, cu.CtxSynchronize, "cuCtxSynchronize") &&
      load(lib, cu.ModuleLoadData, "cuModuleLoadData") && load(lib, cu.ModuleUnload, "cuModuleUnload") &&
      load(lib, cu.ModuleGetFunction, "cuModuleGetFunction") && load(lib, cu.MemAlloc, "cuMemAlloc_v2") &&
      load(lib, cu.MemFree, "cuMemFree_v2") && load(lib, cu.MemcpyDtoH, "cuMemcpyDtoH_v2") &&
      load(lib, cu.LaunchKernel, "cuLaunchKernel");
  load(lib, cu.GetErrorName, "cuGetErrorName");
  return ok;
}

void print_driver_version(const Cuda& cu) {
  int drv = 0;
  printf(", \"cuda_driver_version\": ");
  if (cu.DriverGetVersion(&drv) == 0 && drv > 0) {
    printf("\"%d.%d\"", drv / 1000, (drv % 1000) / 10);
  } else {
    fputs("null", stdout);
  }
}

// One element of "devices": what the driver says of device `i`, and the tiny kernel's result.
void print_device(const Cuda& cu, int i) {
  CUdevice dev = 0;
  char name[256] = {0};
  CUuuid uuid{};
  int major = 0, minor = 0;
  size_t mem = 0;
  cu.DeviceGet(&dev, i);
  cu.DeviceGetName(name, sizeof name - 1, dev);
  cu.DeviceGetUuid(&uuid, dev);
  cu.DeviceGetAttribute(&major, kAttrCcMajor, dev);
  cu.DeviceGetAttribute(&minor, kAttrCcMinor, dev);
  cu.DeviceTotalMem(&mem, dev);
  char uuid_text[64];
  const unsigned char* b = uuid.bytes;
  snprintf(uuid_text, sizeof uuid_text,
           "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
           b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  char kernel[256];
  run_kernel(cu, dev, kernel, sizeof kernel);
  printf("%s{\"index\": %d, \"name\": ", i ? ", " : "", i);
  put_string(name);
  printf(", \"uuid\": ");
  put_string(uuid_text);
  printf(", \"cc\": \"%d.%d\", \"memory_bytes\": %zu, \"kernel\": ", major, minor, mem);
  put_string(kernel);
  putchar('}');
}

}  // namespace

int main() {
  printf("{\"schema\": \"gpuqual.container-probe/v1\", \"env\": {\"NVIDIA_VISIBLE_DEVICES\": ");
  put_string(getenv("NVIDIA_VISIBLE_DEVICES"));
  printf(", \"CUDA_VERSION\": ");
  put_string(getenv("CUDA_VERSION"));
  printf("}, \"dev_nodes\": %d, \"cudart_version\": ", count_dev_nodes());
  print_cudart_version();

  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  printf(", \"libcuda\": ");
  if (!lib) {
    put_string(dlerror());
    printf(", \"cuda_driver_version\": null, \"init_error\": null, \"devices\": []}\n");
    return 0;
  }
  put_string("loaded");
  Cuda cu{};
  if (!load_driver_api(lib, cu)) {
    printf(
        ", \"cuda_driver_version\": null, "
        "\"init_error\": \"libcuda.so.1 lacks a CUDA driver API entry point\", \"devices\": []}\n");
    return 0;
  }
  print_driver_version(cu);
  const CUresult init = cu.Init(0);
  printf(", \"init_error\": ");
  if (init != 0) {
    put_string(err_name(cu, init));
    printf(", \"devices\": []}\n");
    return 0;
  }
  fputs("null", stdout);
  int count = 0;
  cu.DeviceGetCount(&count);
  printf(", \"devices\": [");
  for (int i = 0; i < count; ++i) print_device(cu, i);
  printf("]}\n");
  return 0;
}
