package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestModuleIsTidy fails when `go mod tidy` would change go.mod or go.sum:
// a direct dependency marked indirect, a module no longer used, a missing
// checksum.
func TestModuleIsTidy(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the module cache or proxy")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goBin, "mod", "tidy", "-diff")
	cmd.Dir = "../.."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("go mod tidy -diff: %v; run go mod tidy and commit go.mod and go.sum:\n%s", err, out)
	}
}
