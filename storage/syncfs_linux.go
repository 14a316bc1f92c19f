package storage

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// newFSSyncers returns the syncfs rounds of the local stores, or nil where
// syncfs cannot be trusted: kernels before 5.8 do not report writeback
// errors from it.
func newFSSyncers() *fsSyncers {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil || !kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8) {
		return nil
	}
	return &fsSyncers{
		byDev:  map[uint64]*fsSyncer{},
		syncfs: func(f *os.File) error { return unix.Syncfs(int(f.Fd())) },
		devOf: func(p string) (uint64, bool) {
			var st unix.Stat_t
			if err := unix.Stat(p, &st); err != nil {
				return 0, false
			}
			return uint64(st.Dev), true
		},
	}
}

// kernelAtLeast reports whether a kernel release ("6.1.0-13-amd64") is at
// least major.minor.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	maj, err := strconv.Atoi(parts[0])
	if err != nil {
		return false
	}
	mn := parts[1]
	if i := strings.IndexFunc(mn, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		mn = mn[:i]
	}
	mi, err := strconv.Atoi(mn)
	if err != nil {
		return false
	}
	return maj > major || maj == major && mi >= minor
}
