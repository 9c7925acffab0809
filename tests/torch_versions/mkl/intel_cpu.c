/* Preloaded by check_mkl.sh: tells Intel MKL its CPU is Intel's, so that MKL
   runs the kernels it runs on an Intel CPU (l9 with AVX2, z0 with AVX-512)
   on whatever x86-64 CPU this is. Their float code is exactly specified
   instructions (IEEE operations, FMA, integer and table steps), so it gives
   what an Intel CPU gives; the float64 logarithm's approximate reciprocal
   (rcpps) is the CPU's own, so mkl_check only counts float64 there. */
int mkl_serv_intel_cpu_true(void) { return 1; }
