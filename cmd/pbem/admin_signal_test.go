package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHelperServe is pbem serve in a process of its own for TestSignals
// (the test binary run again with PBEM_HELPER_SERVE set to its arguments).
func TestHelperServe(t *testing.T) {
	args := os.Getenv("PBEM_HELPER_SERVE")
	if args == "" {
		t.Skip("the process TestSignals starts")
	}
	os.Exit(runServe(&cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}, strings.Fields(args)))
}

// TestSignals sends pbem serve, a process of its own, SIGHUP (it reloads
// and goes on) and SIGTERM (it stops cleanly, exit status 0).
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
	cmd.Env = append(os.Environ(), "PBEM_HELPER_SERVE=--data "+dir+" --imap-port 0 --smtp-port 0 --http 127.0.0.1:0 --web off")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill() })

	var mu sync.Mutex
	var logs strings.Builder
	logged := make(chan struct{}, 1)
	var readers sync.WaitGroup
	readers.Go(func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			logs.WriteString(sc.Text() + "\n")
			mu.Unlock()
			select {
			case logged <- struct{}{}:
			default:
			}
		}
	})
	ready := make(chan struct{})
	readers.Go(func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "pbem serve: health") {
				close(ready)
				break
			}
		}
		io.Copy(io.Discard, stdout)
	})
	wait := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.After(time.Minute); !ok(); {
			select {
			case <-logged:
			case <-deadline:
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("pbem serve: no %s; its log:\n%s", what, logs.String())
			}
		}
	}
	select {
	case <-ready:
	case <-time.After(time.Minute):
		t.Fatal("pbem serve did not start")
	}
	has := func(s string) func() bool {
		return func() bool { mu.Lock(); defer mu.Unlock(); return strings.Contains(logs.String(), s) }
	}

	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	wait("reload on SIGHUP", has("SIGHUP"))
	require.NoError(t, cmd.Process.Signal(syscall.Signal(0)), "pbem serve lives on after SIGHUP")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	wait("stop on SIGTERM", has("pbem serve stopped"))
	readers.Wait() // both pipes at their end: the process closed them
	err = cmd.Wait()
	assert.NoError(t, err, "exit status 0")
	_, err = os.Stat(dir + "/serve.lock")
	assert.NoError(t, err)
	unlock, err := lockData(dir)
	require.NoError(t, err, "the data directory's lock was released")
	unlock()
}
