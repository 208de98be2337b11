package main

import "syscall"

// freeSpace is the space left to an unprivileged user on dir's file system.
func freeSpace(dir string) (uint64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return st.Bavail * uint64(st.Bsize), true
}

// staUnsync is the kernel's "clock not synchronised" status bit (STA_UNSYNC).
const staUnsync = 0x0040

// clockSynced asks the kernel whether an NTP client keeps the clock.
func clockSynced() (synced, known bool) {
	var tx syscall.Timex
	state, err := syscall.Adjtimex(&tx)
	if err != nil {
		return false, false
	}
	const timeError = 5 // TIME_ERROR: the clock is not synchronised
	return state != timeError && tx.Status&staUnsync == 0, true
}
