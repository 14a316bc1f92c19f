package storage

import "golang.org/x/sys/unix"

// renameNoReplace renames oldpath to newpath unless newpath exists (renameat2 with
// RENAME_NOREPLACE), atomically. EEXIST matches fs.ErrExist.
func renameNoReplace(oldpath, newpath string) error {
	return unix.Renameat2(unix.AT_FDCWD, oldpath, unix.AT_FDCWD, newpath, unix.RENAME_NOREPLACE)
}
