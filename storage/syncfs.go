package storage

import (
	"os"
	"path/filepath"
	"sync"
)

// syncfsMinPaths is the size of a round of syncs (files and directories)
// from which the local store makes the round durable with one syncfs(2) of
// the file system instead of one fsync per path. Measured on ext4 here: a
// round of 5,001 paths (a transaction of 1,000 CREATE TABLE) took 750-790 ms
// of parallel fsyncs and 92-104 ms as one syncfs; a round of 51 paths took
// 12-21 ms of fsyncs and 15-176 ms as a syncfs, whose cost is every dirty
// page of the file system, other programs' included. So small rounds keep
// fsync and large ones, where fsync costs hundreds of milliseconds, use
// syncfs.
const syncfsMinPaths = 512

// fsSyncers hands out one fsSyncer per file system (device) for the whole
// process.
//
// Why one syncfs is as safe as fsyncing each file and directory of a round
// (Linux):
//   - syncfs(fd) runs sync_filesystem on fd's file system: it writes back
//     every dirty inode and page of it and waits for that writeback, then
//     has the file system commit its journal with a cache flush (ext4
//     jbd2 commit, xfs log force). Everything written before the call,
//     file contents and directory entries alike, is durable when it
//     returns: a superset of what the per-path fsyncs guarantee.
//   - It covers only that file system: every path of the round is stat'ed
//     and the ones on another device (a mount point below the root, a
//     symbolic link leading elsewhere) are fsynced one by one as before.
//   - Errors: since Linux 5.8 syncfs reports a writeback error of the file
//     system that happened since the descriptor it is called on was opened
//     or last checked (errseq on the superblock); older kernels return
//     success regardless, so it is used only on 5.8 and later. The
//     descriptor of a file system is opened once per process, before any
//     local store of the process writes a deferred file on it, so no error
//     of a file the process wrote for a round can predate it, and a syncfs
//     by another program (another descriptor) does not consume it.
//   - Calls on one file system are serialized, and after the first error
//     syncfs is never used on it again: that round, and every later one,
//     fsyncs each path, which reports the error of the file it belongs to
//     (a file's own error is tracked apart from the superblock's). Without
//     that, a round whose file failed could pass because an earlier call
//     had already reported (and advanced past) the error.
type fsSyncers struct {
	mu    sync.Mutex
	byDev map[uint64]*fsSyncer
	// syncfs and devOf are the system calls (seams for tests).
	syncfs func(*os.File) error
	devOf  func(path string) (uint64, bool)
}

// processSyncers serves every local store of the process (nil where
// syncfs cannot be used).
var processSyncers = newFSSyncers()

// fsSyncer is the syncfs of one file system.
type fsSyncer struct {
	all      *fsSyncers
	mu       sync.Mutex
	fd       *os.File // a directory on the file system, opened once
	dev      uint64
	disabled bool // after an error: fsync every path
}

// forRoot returns the syncer of the file system holding root (or, when
// root does not exist yet, its nearest existing ancestor), opening its
// descriptor on first use. Call it before writing a file a round will sync.
func (a *fsSyncers) forRoot(root string) *fsSyncer {
	if a == nil {
		return nil
	}
	for d := root; ; d = filepath.Dir(d) {
		if dev, ok := a.devOf(d); ok {
			a.mu.Lock()
			defer a.mu.Unlock()
			if sy := a.byDev[dev]; sy != nil {
				return sy
			}
			fd, err := os.Open(d)
			if err != nil {
				return nil
			}
			sy := &fsSyncer{all: a, fd: fd, dev: dev}
			a.byDev[dev] = sy
			return sy
		}
		if p := filepath.Dir(d); p == d {
			return nil
		}
	}
}

// syncRound makes the paths durable with one syncfs when the round is large
// enough. It returns which paths it covered (nil: none, fsync them all):
// those on the syncer's file system, after a successful syncfs.
func (sy *fsSyncer) syncRound(paths []string) []bool {
	if sy == nil || len(paths) < syncfsMinPaths {
		return nil
	}
	covered := make([]bool, len(paths))
	n := 0
	for i, p := range paths {
		if d, ok := sy.all.devOf(p); ok && d == sy.dev {
			covered[i] = true
			n++
		}
	}
	if n == 0 {
		return nil
	}
	sy.mu.Lock()
	defer sy.mu.Unlock()
	if sy.disabled {
		return nil
	}
	if err := sy.all.syncfs(sy.fd); err != nil {
		sy.disabled = true
		return nil
	}
	return covered
}
