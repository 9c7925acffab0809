// Forwarding header, kept for one merge: the golden cases and their host
// evaluation moved to golden/cases.h (namespace xrng::golden, library
// xrng_golden). Tests that still include "golden_cases.h" and name
// xrng_test::run_host, golden_file_text, ... keep compiling through
// tests/golden.h's using-directive. Update them to
//   #include "golden/cases.h"      and  xrng::golden::...
// and then delete this file.
#pragma once

#include "golden.h"
#include "golden/cases.h"
