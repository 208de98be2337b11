package castles_test

import (
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"testing"

	"pbem/notation"
	"pbem/notation/castles"
)

// BenchmarkCheckCorpus checks the record file named by
// PBEM_CHECK_CORPUS (e.g. the castles corpus of .ci/bench-check.sh) as
// `pbem check` does, on one worker; it reports plies per second.
func BenchmarkCheckCorpus(b *testing.B) {
	file := os.Getenv("PBEM_CHECK_CORPUS")
	if file == "" {
		b.Skip("PBEM_CHECK_CORPUS names no record file")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	codec := castles.New()
	lookup := func(id string) (notation.Codec, error) {
		if id != "castles" {
			return nil, fmt.Errorf("unknown game %q", id)
		}
		return codec, nil
	}
	// `pbem check` runs with a lazy collector (cmd/pbem/check.go).
	gc := 1000
	if v, err := strconv.Atoi(os.Getenv("BENCH_GC")); err == nil {
		gc = v
	}
	defer debug.SetGCPercent(debug.SetGCPercent(gc))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	plies := 0
	for b.Loop() {
		c := &notation.Checker{Lookup: lookup, NoCanon: true, Reuse: true}
		err := c.Run(file, bytes.NewReader(data), func(ch *notation.Checked) {
			if ch.Game != nil {
				plies += ch.Game.Plies
			}
			if len(ch.Problems) > 0 {
				b.Fatalf("game %d: %v", ch.Index, ch.Problems[0])
			}
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(plies)/b.Elapsed().Seconds(), "plies/s")
}
