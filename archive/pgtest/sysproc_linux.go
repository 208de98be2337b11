package pgtest

import "syscall"

// sysProcAttr runs the server as cred (nil: as this process) in a process
// group of its own, and has the kernel end it should the test binary die
// without stopping it (a timeout's panic, a kill): no server outlives its
// tests.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true, Pdeathsig: syscall.SIGQUIT}
}
