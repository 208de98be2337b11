//go:build !unix

package picture

// cpuTime is 0 where the CPU time used is not known: no cpu-ns/op.
func cpuTime() int64 { return 0 }
