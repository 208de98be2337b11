//go:build !linux

package pgtest

import "syscall"

// sysProcAttr runs the server as cred (nil: as this process) in a process
// group of its own.
func sysProcAttr(cred *syscall.Credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: cred, Setpgid: true}
}
