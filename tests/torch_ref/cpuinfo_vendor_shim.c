/* An LD_PRELOAD shim that makes torch see another CPU vendor (tests only).
 *
 * torch's libtorch_cpu.so imports cpuinfo (cpuinfo_initialize,
 * cpuinfo_get_processors, ...) dynamically; older torch chose its scalar-p
 * bernoulli_ path from cpuinfo_get_processor(0)->core->vendor (Intel: MKL's
 * VSL, every other vendor: the CPU generator's own kernel). Preloaded, this
 * library defines those entry points itself. On the first call it finds
 * every loaded copy of cpuinfo (torch 2.15's wheel has two, in libc10.so and
 * libtorch.so), initialises each and rewrites in its tables (heap memory,
 * once) every core's vendor to XRNG_CPUINFO_VENDOR ("intel" or "amd") and
 * every package's name to "<vendor> (xrng cpuinfo shim)"; every call is then
 * answered by the first copy. The tables are patched in place, so every
 * reader that comes after torch's first cpuinfo call (torch's own code, the
 * libraries' internal calls, ctypes) sees the same vendor, and the package
 * name shows through torch.cpu.get_capabilities()["cpu_name"]: proof that
 * torch's cpuinfo calls reach the shim.
 *
 * Build: cc -shared -fPIC -O1 -I<torch>/include cpuinfo_vendor_shim.c -o shim.so -ldl -lpthread
 * (tests/python/test_torch_cpu.py builds and uses it). cpuinfo.h is torch's
 * own copy, so the struct layouts are those of the cpuinfo torch links. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cpuinfo.h>

/* The loaded copies of cpuinfo: torch 2.15's wheel links two, in libc10.so
 * and in libtorch.so, and libtorch_cpu.so's imports bind to whichever comes
 * first in the scope Python's RTLD_LOCAL dlopen gives it (libtorch.so's).
 * Every object that defines cpuinfo_initialize itself is one copy; all are
 * patched, and the shim's entry points answer with the first. */
#define MAX_COPIES 8
static void* copies[MAX_COPIES];
static int ncopies;

static int find_copy(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0' || ncopies == MAX_COPIES) return 0;
  void* lib = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (lib == NULL) return 0;
  void* f = dlsym(lib, "cpuinfo_initialize");
  Dl_info where;
  if (f != NULL && f != (void*)&cpuinfo_initialize && dladdr(f, &where) != 0 &&
      where.dli_fbase == (void*)info->dlpi_addr)
    copies[ncopies++] = lib;
  return 0;
}

static void* in_copy(void* lib, const char* name) {
  void* f = dlsym(lib, name);
  if (f == NULL) {
    fprintf(stderr, "cpuinfo_vendor_shim: %s not found\n", name);
    abort();
  }
  return f;
}

static int patched;

static void patch_copy(void* lib, enum cpuinfo_vendor vendor, const char* label) {
  if (!((bool (*)(void))in_copy(lib, "cpuinfo_initialize"))()) return;
  const struct cpuinfo_core* cores = ((const struct cpuinfo_core* (*)(void))in_copy(lib, "cpuinfo_get_cores"))();
  const uint32_t ncores = ((uint32_t (*)(void))in_copy(lib, "cpuinfo_get_cores_count"))();
  for (uint32_t i = 0; i < ncores; ++i) ((struct cpuinfo_core*)&cores[i])->vendor = vendor;
  const struct cpuinfo_package* packages =
      ((const struct cpuinfo_package* (*)(void))in_copy(lib, "cpuinfo_get_packages"))();
  const uint32_t npackages = ((uint32_t (*)(void))in_copy(lib, "cpuinfo_get_packages_count"))();
  for (uint32_t i = 0; i < npackages; ++i) {
    char* name = ((struct cpuinfo_package*)&packages[i])->name;
    memset(name, 0, CPUINFO_PACKAGE_NAME_MAX);
    strncpy(name, label, CPUINFO_PACKAGE_NAME_MAX - 1);
  }
}

/* Finds and patches the copies (once); returns `name` in the first. */
static void* real(const char* name) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  if (!__atomic_load_n(&patched, __ATOMIC_ACQUIRE)) {
    pthread_mutex_lock(&lock);
    if (!patched) {
      const char* want = getenv("XRNG_CPUINFO_VENDOR");
      enum cpuinfo_vendor vendor;
      const char* label;
      if (want != NULL && strcmp(want, "intel") == 0) {
        vendor = cpuinfo_vendor_intel;
        label = "GenuineIntel (xrng cpuinfo shim)";
      } else if (want != NULL && strcmp(want, "amd") == 0) {
        vendor = cpuinfo_vendor_amd;
        label = "AuthenticAMD (xrng cpuinfo shim)";
      } else {
        fprintf(stderr, "cpuinfo_vendor_shim: set XRNG_CPUINFO_VENDOR to intel or amd\n");
        abort();
      }
      dl_iterate_phdr(find_copy, NULL);
      if (ncopies == 0) {
        fprintf(stderr, "cpuinfo_vendor_shim: no cpuinfo loaded (is torch loaded?)\n");
        abort();
      }
      for (int i = 0; i < ncopies; ++i) patch_copy(copies[i], vendor, label);
      __atomic_store_n(&patched, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
  }
  return in_copy(copies[0], name);
}

bool cpuinfo_initialize(void) {
  return ((bool (*)(void))real("cpuinfo_initialize"))();
}

const struct cpuinfo_processor* cpuinfo_get_processors(void) {
  return ((const struct cpuinfo_processor* (*)(void))real("cpuinfo_get_processors"))();
}

const struct cpuinfo_processor* cpuinfo_get_processor(uint32_t index) {
  return ((const struct cpuinfo_processor* (*)(uint32_t))real("cpuinfo_get_processor"))(index);
}

const struct cpuinfo_core* cpuinfo_get_cores(void) {
  return ((const struct cpuinfo_core* (*)(void))real("cpuinfo_get_cores"))();
}

const struct cpuinfo_core* cpuinfo_get_core(uint32_t index) {
  return ((const struct cpuinfo_core* (*)(uint32_t))real("cpuinfo_get_core"))(index);
}

const struct cpuinfo_package* cpuinfo_get_packages(void) {
  return ((const struct cpuinfo_package* (*)(void))real("cpuinfo_get_packages"))();
}

const struct cpuinfo_package* cpuinfo_get_package(uint32_t index) {
  return ((const struct cpuinfo_package* (*)(uint32_t))real("cpuinfo_get_package"))(index);
}
