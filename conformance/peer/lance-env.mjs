// lance-env.mjs: import first, before @lancedb/lancedb, in every peer script that builds a
// full-text (INVERTED) index.
//
// Why: Rust Lance runs its CPU work (spawn_cpu) as tokio spawn_blocking tasks of a runtime whose
// blocking pool has LANCE_CPU_THREADS threads; the default is the core count minus 2 reserved for
// I/O (LANCE_IO_CORE_RESERVATION), at least 1, so a 2-core machine gets one thread. The FTS
// build writes a partition's posting lists with a producer on that pool that hands batches to
// the index file writer through a bounded channel (LANCE_FTS_WRITE_QUEUE_SIZE, default 1) with
// send_blocking, and the writer awaits CPU work queued behind it on the same pool. Once the
// posting file outgrows the writer's buffering (about 7,000 documents of conformance/bench's
// corpus with positions, about 100,000 without) the producer waits for the writer, the writer
// for the pool's only thread, and createIndex never returns, using no CPU (gdb, 2026-12-07: the
// one "lance-cpu" blocking thread parked in event_listener's wait under send_blocking, every
// other lance-cpu and tokio thread idle; TOKIO_WORKER_THREADS=8 and LANCE_FTS_NUM_SHARDS=2
// do not help, LANCE_CPU_THREADS=2 or more does). An explicit
// LANCE_CPU_THREADS is kept (LANCE_CPU_THREADS=1 reproduces the stall). From 4 cores up the
// value below is the reference's own default.
import * as os from "node:os";

if (!process.env.LANCE_CPU_THREADS) {
  // setenv in this process: Rust's std::env::var reads the same environment when the runtime
  // is first built, after this module ran.
  process.env.LANCE_CPU_THREADS = String(Math.max(2, os.availableParallelism() - 2));
}
