package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"
)

var defaultSize = flag.Bool("default-size", false, "run TestDefaultMemory, the memory and restart time of pbem serve without a configuration after many replies")

// TestDefaultMemory runs pbem serve as it runs without a configuration (in
// this process, on its embedded mail servers, keeping the mail durably),
// plays castles games between PBEM_DEFAULT_GAMES (2) pairs of players,
// starting new ones as they end, and at each count of replies sent in
// PBEM_DEFAULT_REPLIES (10000,100000) prints the process's RSS, the Go
// heap in use, the size of the mail journal, then restarts the server on
// the same directory and prints how long it took to serve again (the
// journal compacted and replayed) and the heap in use after it. It asserts
// nothing about time or size: the figures are for reading (the README's
// memory figures come from it). PBEM_DEFAULT_HEAPPROFILE=FILE writes a
// heap profile at each count, FILE.COUNT;
// PBEM_DEFAULT_RESTARTPROFILE=FILE a CPU profile of each restart.
func TestDefaultMemory(t *testing.T) {
	if !*defaultSize {
		t.Skip("the memory benchmark of pbem serve's default; run with -default-size")
	}
	t.Setenv("PBEM_LOAD_PROCESS", "0")
	games := loadInt("PBEM_DEFAULT_GAMES", 2)
	var targets []int64
	for _, f := range strings.Split(os.Getenv("PBEM_DEFAULT_REPLIES"), ",") {
		if n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64); err == nil && n > 0 {
			targets = append(targets, n)
		}
	}
	if len(targets) == 0 {
		targets = []int64{10_000, 100_000}
	}
	d := startLoad(t, games)
	defer func() { d.stop() }()
	players := make([]string, 2*games)
	for i := range players {
		players[i] = "p" + strconv.Itoa(i)
	}
	start := time.Now()
	var base int64 // replies sent before the last restart
	for _, target := range targets {
		for base+d.s.metrics.Sent.Load() < target {
			moves, _, _ := d.sustained(5 * time.Second)
			if moves == 0 {
				d.setUp(games) // every game is over: new ones
			}
		}
		sent := base + d.s.metrics.Sent.Load()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		journal, _ := os.Stat(filepath.Join(d.cfg.DataDir, "mail", "journal"))
		var jsize int64
		if journal != nil {
			jsize = journal.Size()
		}
		fmt.Printf("%d replies sent in %v: RSS %s (peak %s), Go heap in use %d MB, mail journal %d MB\n",
			sent, time.Since(start).Round(time.Second), procStatus("self", "VmRSS"), procStatus("self", "VmHWM"),
			ms.HeapInuse>>20, jsize>>20)

		if f := os.Getenv("PBEM_DEFAULT_HEAPPROFILE"); f != "" {
			runtime.GC()
			out, err := os.Create(fmt.Sprintf("%s.%d", f, target))
			if err != nil {
				t.Fatal(err)
			}
			pprof.WriteHeapProfile(out)
			out.Close()
		}
		t0 := time.Now()
		d.stop() // the mail journal is compacted as the servers close
		stopped := time.Since(t0)
		runtime.GC()
		var prof *os.File
		if f := os.Getenv("PBEM_DEFAULT_RESTARTPROFILE"); f != "" {
			var err error
			if prof, err = os.Create(fmt.Sprintf("%s.%d", f, target)); err != nil {
				t.Fatal(err)
			}
			pprof.StartCPUProfile(prof)
		}
		t0 = time.Now()
		d.startInProcess(players)
		took := time.Since(t0)
		if prof != nil {
			pprof.StopCPUProfile()
			prof.Close()
		}
		base = sent
		runtime.GC()
		runtime.ReadMemStats(&ms)
		journal, _ = os.Stat(filepath.Join(d.cfg.DataDir, "mail", "journal"))
		if journal != nil {
			jsize = journal.Size()
		}
		fmt.Printf("restart after %d replies: stopped in %v, serving again in %v; Go heap in use after it %d MB; mail journal %d MB\n",
			sent, stopped.Round(time.Millisecond), took.Round(time.Millisecond), ms.HeapInuse>>20, jsize>>20)
	}
}
