// Bounds how many tests the test process runs at once: three per core, at least 4 and at most 64.
//
// Swift Testing otherwise starts every test at once. On a machine of two cores, hundreds of tests
// then share the two threads of Swift's cooperative pool with the runners, watchers and
// subprocesses they start, and a test that waits 100 ms can wait minutes: leases lapse, time limits
// pass, and the suite tests the machine's load instead of rederive. The bound is Swift Testing's own
// (SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH), set before the test process starts reading its
// configuration, and only where the caller has not set it.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void rederive_bound_test_parallelism(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    long width = (cores < 1 ? 1 : cores) * 3;
    if (width < 4) width = 4;
    if (width > 64) width = 64;
    char text[24];
    snprintf(text, sizeof text, "%ld", width);
    setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", text, 0);
}
