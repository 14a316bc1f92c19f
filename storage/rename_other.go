//go:build !linux

package storage

import "syscall"

// renameNoReplace has no portable implementation outside Linux; hard links are the only
// atomic create-if-absent there.
func renameNoReplace(oldpath, newpath string) error {
	return syscall.ENOTSUP
}
