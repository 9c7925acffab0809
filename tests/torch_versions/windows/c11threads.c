/* vcruntime140_threads.dll for running torch's Windows DLLs under wine 8,
   which has none: the C11 threads functions torch_cpu.dll imports (mtx_*,
   cnd_*, thrd_create, thrd_join) on Win32 critical sections, condition
   variables and threads. Each object is a pointer to what it allocates (an
   MSVC mtx_t / cnd_t is at least that large); thrd_t is {HANDLE, id},
   passed by address. Built by check_windows.sh with mingw-w64. */
#include <stdlib.h>
#include <windows.h>
typedef int (*start_f)(void*);
struct tramp_arg {
  start_f f;
  void* a;
};
static DWORD WINAPI tramp(LPVOID p) {
  struct tramp_arg t = *(struct tramp_arg*)p;
  free(p);
  return (DWORD)t.f(t.a);
}
enum { thrd_success = 0, thrd_error = 4 };
int mtx_init(void** m, int type) {
  CRITICAL_SECTION* c = malloc(sizeof *c);
  if (!c) return thrd_error;
  InitializeCriticalSection(c);
  *m = c;
  (void)type;  /* a critical section is recursive: serves plain and recursive */
  return thrd_success;
}
void mtx_destroy(void** m) {
  if (*m) { DeleteCriticalSection(*m); free(*m); *m = 0; }
}
int mtx_lock(void** m) { EnterCriticalSection(*m); return thrd_success; }
int mtx_unlock(void** m) { LeaveCriticalSection(*m); return thrd_success; }
int cnd_init(void** c) {
  CONDITION_VARIABLE* v = malloc(sizeof *v);
  if (!v) return thrd_error;
  InitializeConditionVariable(v);
  *c = v;
  return thrd_success;
}
void cnd_destroy(void** c) { free(*c); *c = 0; }
int cnd_signal(void** c) { WakeConditionVariable(*c); return thrd_success; }
int cnd_broadcast(void** c) { WakeAllConditionVariable(*c); return thrd_success; }
int cnd_wait(void** c, void** m) { return SleepConditionVariableCS(*c, *m, INFINITE) ? thrd_success : thrd_error; }
int thrd_create(void** t, start_f f, void* a) {
  struct tramp_arg* p = malloc(sizeof *p);
  DWORD id;
  HANDLE h;
  if (!p) return thrd_error;
  p->f = f;
  p->a = a;
  h = CreateThread(0, 0, tramp, p, 0, &id);
  if (!h) { free(p); return thrd_error; }
  t[0] = h;
  ((unsigned*)t)[2] = id;
  return thrd_success;
}
int thrd_join(void** t, int* res) {
  DWORD code;
  WaitForSingleObject(t[0], INFINITE);
  GetExitCodeThread(t[0], &code);
  CloseHandle(t[0]);
  if (res) *res = (int)code;
  return thrd_success;
}
