package archive

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchSizes are the sizes of the benchmark corpora: random games of each
// of the five games in turn (rpp with 4 seats), up to 300 plies each as
// pbem selfplay plays them.
var benchSizes = []int{10_000, 100_000}

// benchCorpus is the file of a benchmark corpus of n games, written under
// the temporary directory the first time (100,000 games take minutes to
// play) and read from there after.
func benchCorpus(b *testing.B, n int) string {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("pbem-archive-bench-%d.pgn", n))
	if _, err := os.Stat(path); err == nil {
		return path
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, corpus(b, n/5, 300), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchStore is an archive of the benchmark corpus of n games, imported
// into a store under the temporary directory the first time (100,000 games
// take about half an hour to import) and opened there after, for the
// benchmarks that only read. The caller closes it.
func benchStore(b *testing.B, n int) *Store {
	ctx := context.Background()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("pbem-archive-bench-%d.store", n))
	if _, err := os.Stat(filepath.Join(dir, DBFile)); err != nil {
		path := benchCorpus(b, n)
		tmp := dir + ".tmp"
		if err := os.RemoveAll(tmp); err != nil {
			b.Fatal(err)
		}
		s, err := Open(ctx, tmp, nil)
		if err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		st, err := s.ImportReader(ctx, "corpus", f, lookup, nil)
		f.Close()
		if err == nil && st.Added != n {
			err = fmt.Errorf("%d games added, want %d", st.Added, n)
		}
		if err == nil {
			err = s.Reindex(ctx, lookup)
		}
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatalf("bench store: %v", err)
		}
		if err := os.Rename(tmp, dir); err != nil {
			b.Fatal(err)
		}
	}
	s, err := Open(ctx, dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkImport measures `pbem archive import` without the command:
// reading the file as a stream, checking every game, formatting it
// canonically and storing it (with its index) in a new archive, in batches
// of ImportBatch games.
func BenchmarkImport(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("games=%d", n), func(b *testing.B) {
			path := benchCorpus(b, n)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			ctx := context.Background()
			games := 0
			for b.Loop() {
				b.StopTimer()
				s, err := Open(ctx, b.TempDir(), nil)
				if err != nil {
					b.Fatal(err)
				}
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				st, err := s.ImportReader(ctx, "corpus", f, lookup, nil)
				if err != nil || st.Added != n {
					b.Fatalf("import: %v, %+v", err, st)
				}
				games += st.Added
				b.StopTimer()
				f.Close()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
		})
	}
}

// BenchmarkExport measures `pbem archive export` without the command:
// reading every game and writing it canonically, as stored (stored) or
// checked again (recheck, what export did before it trusted the import).
func BenchmarkExport(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("games=%d", n), func(b *testing.B) {
			path := benchCorpus(b, n)
			ctx := context.Background()
			s, err := Open(ctx, b.TempDir(), nil)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			if _, err := s.ImportReader(ctx, "corpus", f, lookup, nil); err != nil {
				b.Fatal(err)
			}
			fi, _ := f.Stat()
			for _, format := range []string{PGN, JSON} {
				for _, recheck := range []bool{false, true} {
					name := format + "/stored"
					if recheck {
						name = format + "/recheck"
					}
					b.Run(name, func(b *testing.B) {
						b.SetBytes(fi.Size())
						b.ReportAllocs()
						games := 0
						for b.Loop() {
							n2, err := s.Export(ctx, io.Discard, lookup, Filter{}, &ExportOptions{Format: format, Recheck: recheck})
							if err != nil || n2 != n {
								b.Fatalf("export: %d games, %v", n2, err)
							}
							games += n2
						}
						b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
					})
				}
			}
		})
	}
}

// BenchmarkSearch measures `pbem archive search` of a rare word in an
// archive of 10,000 games: by the index.
func BenchmarkSearch(b *testing.B) {
	path := benchCorpus(b, benchSizes[0])
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := s.ImportReader(ctx, "corpus", f, lookup, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		found := 0
		err := s.Query(ctx, lookup, Filter{Text: []string{"player 3 <p3", "corpus ziggurat43"}}, func(*Found) error { found++; return nil })
		if err != nil || found == 0 {
			b.Fatalf("search: %d found, %v", found, err)
		}
	}
}
