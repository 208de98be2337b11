//go:build !unix

package main

// fileLimit is the process's limit of open files: not read on this
// system, taken as 1024.
func fileLimit() uint64 { return 1024 }
