// The test process's bound on tests run at once is set by a constructor in TestParallelism.c; there is
// nothing to call.
