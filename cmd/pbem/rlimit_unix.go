//go:build unix

package main

import "syscall"

// fileLimit is the process's limit of open files (RLIMIT_NOFILE, which Go
// raises to the hard limit at start), 1024 when it cannot be read.
func fileLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 1024
	}
	return uint64(rl.Cur)
}
