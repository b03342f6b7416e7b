// The connect mark's maps from user space (bpf/connect-mark.bpf.c): where the daemon listens, and
// what the mark did.
#pragma once
#include <linux/types.h>

#include "connect-mark.h"  // bpf/lib/connect-mark.h: struct mark_target, struct mark_counts
#include "program-loader.h"

namespace provd {

// Sets the listener bound processes' connects are marked for; false when the mark is not loaded.
bool setMarkTarget(const LoadResult& loaded, const mark_target& target);

// What the mark did so far, summed over CPUs; false when it is not loaded.
bool readMarkCounts(const LoadResult& loaded, mark_counts& counts);

}  // namespace provd
