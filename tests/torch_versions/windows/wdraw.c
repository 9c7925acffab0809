/* Draws with torch's own Windows build: loads torch_cpu.dll from a torch
   win_amd64 wheel (under wine, check_windows.sh) and calls its C shim
   (aoti_torch_cpu_*, the ABI AOTInductor's generated code uses), seeding
   the default CPU generator through its exported
   at::CPUGeneratorImpl::set_current_seed (torch.manual_seed's effect on the
   CPU generator).

   Usage: wdraw OUT.bin < SPECS. Each line of SPECS is
     SEED OP DTYPE N [A B]
   SEED a decimal seed (the default generator is seeded with it first) or
   "+S" (it continues: the sequence begun with seed S); OP randn, rand, normal (normal_(A, B) of a fresh
   tensor), uniform (uniform_(A, B)), bernoulli (bernoulli_(A)), dropout
   (native_dropout(x, A, train) of x[i] = 1 + i / 1024, 16-bit types ones),
   randint (randint(A, B, (N,))) or randperm; DTYPE f32, f64, f16, bf16 or
   i64. Each result's N elements are appended to OUT.bin as raw bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

typedef int32_t Err;
typedef void* Tensor;
typedef Err (*factory_f)(const int64_t*, int64_t, int32_t*, int32_t*, int32_t*, int32_t, int32_t*, Tensor*);
typedef Err (*randint_f)(int64_t, int64_t, const int64_t*, int64_t, int32_t*, int32_t*, int32_t*, int32_t,
                         int32_t*, Tensor*);
typedef Err (*randperm_f)(int64_t, int32_t*, int32_t*, int32_t*, int32_t, int32_t*, Tensor*);
typedef Err (*data_ptr_f)(Tensor, void**);
typedef Err (*empty_f)(int64_t, const int64_t*, const int64_t*, int32_t, int32_t, int32_t, Tensor*);
typedef Err (*two_double_f)(Tensor, double, double, void*, Tensor*);
typedef Err (*bernoulli_f)(Tensor, double, void*);
typedef Err (*dropout_f)(Tensor, double, int32_t*, Tensor*, Tensor*);
typedef Err (*delete_f)(Tensor);
typedef void* (*default_generator_f)(void);
typedef void (*set_seed_f)(void*, uint64_t); /* a member function: `this` first (MSVC x64) */

static HMODULE dll;
static void* sym(const char* name) {
  void* p = (void*)GetProcAddress(dll, name);
  if (!p) {
    fprintf(stderr, "wdraw: torch_cpu.dll has no %s\n", name);
    exit(2);
  }
  return p;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: wdraw OUT.bin < SPECS\n");
    return 2;
  }
  dll = LoadLibraryA("torch_cpu.dll");
  if (!dll) {
    fprintf(stderr, "wdraw: LoadLibrary(torch_cpu.dll) failed: error %lu\n", GetLastError());
    return 2;
  }
  /* at::detail::getDefaultCPUGenerator() returns a Generator&, whose first member is the impl pointer */
  default_generator_f gen = (default_generator_f)sym("?getDefaultCPUGenerator@detail@at@@YAAEBUGenerator@2@XZ");
  set_seed_f set_seed = (set_seed_f)sym("?set_current_seed@CPUGeneratorImpl@at@@UEAAX_K@Z");
  data_ptr_f data_ptr = (data_ptr_f)sym("aoti_torch_get_data_ptr");
  empty_f empty = (empty_f)sym("aoti_torch_empty_strided");
  delete_f del = (delete_f)sym("aoti_torch_delete_tensor_object");
  void* impl = *(void**)gen();
  FILE* out = fopen(argv[1], "wb");
  if (!out) return 2;
  char line[256], seed_s[32], op[32], dt[8];
  long long n;
  double a, b;
  int lineno = 0;
  while (fgets(line, sizeof line, stdin)) {
    ++lineno;
    a = 0;
    b = 1;
    if (sscanf(line, "%31s %31s %7s %lld %lf %lf", seed_s, op, dt, &n, &a, &b) < 4) continue;
    int32_t code;
    int size;
    if (!strcmp(dt, "f32")) code = 6, size = 4;  /* c10::ScalarType */
    else if (!strcmp(dt, "f64")) code = 7, size = 8;
    else if (!strcmp(dt, "f16")) code = 5, size = 2;
    else if (!strcmp(dt, "bf16")) code = 15, size = 2;
    else if (!strcmp(dt, "i64")) code = 4, size = 8;
    else {
      fprintf(stderr, "wdraw: line %d: unknown dtype %s\n", lineno, dt);
      return 2;
    }
    if (seed_s[0] != '+') set_seed(impl, strtoull(seed_s, 0, 10));
    Tensor r = 0, mask = 0, x = 0;
    Err e = 0;
    int64_t shape[1] = {n}, stride[1] = {1};
    if (!strcmp(op, "randn")) e = ((factory_f)sym("aoti_torch_cpu_randn"))(shape, 1, &code, 0, 0, 0, 0, &r);
    else if (!strcmp(op, "rand")) e = ((factory_f)sym("aoti_torch_cpu_rand"))(shape, 1, &code, 0, 0, 0, 0, &r);
    else if (!strcmp(op, "randint"))
      e = ((randint_f)sym("aoti_torch_cpu_randint_low"))((int64_t)a, (int64_t)b, shape, 1, &code, 0, 0, 0, 0, &r);
    else if (!strcmp(op, "randperm")) e = ((randperm_f)sym("aoti_torch_cpu_randperm"))(n, &code, 0, 0, 0, 0, &r);
    else {
      e = empty(1, shape, stride, code, 0, 0, &x);
      if (e) {
        fprintf(stderr, "wdraw: line %d: empty_strided failed\n", lineno);
        return 3;
      }
      if (!strcmp(op, "normal")) e = ((two_double_f)sym("aoti_torch_cpu_normal_functional"))(x, a, b, 0, &r);
      else if (!strcmp(op, "uniform")) e = ((two_double_f)sym("aoti_torch_cpu_uniform"))(x, a, b, 0, &r);
      else if (!strcmp(op, "bernoulli")) {
        e = ((bernoulli_f)sym("aoti_torch_cpu_bernoulli__float"))(x, a, 0);
        r = x;
        x = 0;
      } else if (!strcmp(op, "dropout")) {
        void* d;
        data_ptr(x, &d);
        for (long long i = 0; i < n; ++i) {
          if (size == 4) ((float*)d)[i] = 1.0f + (float)i / 1024.0f;
          else if (size == 8) ((double*)d)[i] = 1.0 + (double)i / 1024.0;
          else ((uint16_t*)d)[i] = code == 5 ? 0x3c00 : 0x3f80;  /* 1.0 */
        }
        int32_t train = 1;
        e = ((dropout_f)sym("aoti_torch_cpu_native_dropout"))(x, a, &train, &r, &mask);
      } else {
        fprintf(stderr, "wdraw: line %d: unknown op %s\n", lineno, op);
        return 2;
      }
      if (x) del(x);
    }
    if (e) {
      fprintf(stderr, "wdraw: line %d: %s failed (torch raised)\n", lineno, op);
      return 3;
    }
    void* d;
    data_ptr(r, &d);
    fwrite(d, (size_t)size, (size_t)n, out);
    del(r);
    if (mask) del(mask);
  }
  fclose(out);
  return 0;
}
