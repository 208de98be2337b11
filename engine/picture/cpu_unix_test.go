//go:build unix

package picture

import "syscall"

// cpuTime is the CPU time the process has used, user and system, in
// nanoseconds: what a benchmark costs on a machine shared with other
// work, which wall time does not tell.
func cpuTime() int64 {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return u.Utime.Nano() + u.Stime.Nano()
}
