package archive

import (
	"context"
	"io"
	"testing"
)

// benchGames is the size of the benchmark corpus: 2,000 random games of
// each of the five games (rpp with 4 seats), up to 300 plies each as pbem
// selfplay plays them.
const benchGames = 2000

// BenchmarkImport measures `pbem archive import` without the command:
// checking every game, formatting it canonically and storing it (with its
// index) in a new archive, in batches of ImportBatch games.
func BenchmarkImport(b *testing.B) {
	data := corpus(b, benchGames, 300)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	ctx := context.Background()
	games := 0
	for b.Loop() {
		b.StopTimer()
		s, err := Open(ctx, b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := s.ImportFile(ctx, "corpus", data, lookup, nil)
		if err != nil || st.Added != 5*benchGames {
			b.Fatalf("import: %v, %+v", err, st)
		}
		games += st.Added
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
}

// BenchmarkExport measures `pbem archive export` without the command:
// reading every game, checking it again and writing it canonically.
func BenchmarkExport(b *testing.B) {
	data := corpus(b, benchGames, 300)
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.ImportFile(ctx, "corpus", data, lookup, nil); err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{PGN, JSON} {
		b.Run(format, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			games := 0
			for b.Loop() {
				n, err := s.Export(ctx, io.Discard, lookup, Filter{}, &ExportOptions{Format: format})
				if err != nil || n != 5*benchGames {
					b.Fatalf("export: %d games, %v", n, err)
				}
				games += n
			}
			b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
		})
	}
}
