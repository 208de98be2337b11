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

// benchBase is the largest corpus a benchmark store is imported from; a
// larger store copies it (benchStore).
const benchBase = 10_000

// benchStore is an archive of n games for the benchmarks that only read,
// built once under the temporary directory and opened there after; the
// caller closes it. Up to benchBase games it is the benchmark corpus of n
// games, imported. A larger one (a multiple of benchBase) is the store of
// benchBase games copied n/benchBase times row by row, with every index
// (each game n/benchBase times under new ids): importing 100,000 games
// takes most of an hour, a copy minutes. Its searches find each game as
// often as it is copied, which the benchmarks that use it say.
func benchStore(b *testing.B, n int) *Store {
	ctx := context.Background()
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("pbem-archive-bench-%d.store", n))
	if _, err := os.Stat(filepath.Join(dir, DBFile)); err != nil {
		tmp, err := os.MkdirTemp(os.TempDir(), filepath.Base(dir)+".tmp")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		if n <= benchBase {
			err = importStore(ctx, tmp, benchCorpus(b, n), n)
		} else {
			base := benchStore(b, benchBase)
			if err := base.Close(); err != nil {
				b.Fatal(err)
			}
			err = copyStore(ctx, filepath.Join(os.TempDir(), fmt.Sprintf("pbem-archive-bench-%d.store", benchBase)), tmp, n/benchBase)
		}
		if err != nil {
			b.Fatalf("bench store of %d games: %v", n, err)
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

// importStore imports the corpus file path of n games into a new store
// in dir.
func importStore(ctx context.Context, dir, path string, n int) error {
	s, err := Open(ctx, dir, nil)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		s.Close()
		return err
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
	return err
}

// copyStore makes in dir a store of the archive of the store in from,
// copied times times: every archived game and its index rows again under
// new ids (its hash marked with the copy's number, for hashes are unique).
func copyStore(ctx context.Context, from, dir string, times int) error {
	data, err := os.ReadFile(filepath.Join(from, DBFile))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, DBFile), data, 0o600); err != nil {
		return err
	}
	s, err := Open(ctx, dir, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	var last int64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(id) FROM archive`).Scan(&last); err != nil {
		return err
	}
	for k := int64(1); k < int64(times); k++ {
		off := k * last
		for _, q := range []string{
			`INSERT INTO archive (id, game_id, game, result, tags, record, hash, rated, created, canonical)
SELECT id + ?, game_id, game, result, tags, record, hash || '/' || ?, rated, created, canonical FROM archive WHERE id <= ?`,
			`INSERT INTO archive_index (entry_id, event, event_key, date, day, round)
SELECT entry_id + ?, event, event_key, date, day, round FROM archive_index WHERE ? > 0 AND entry_id <= ?`,
			`INSERT INTO archive_sides (entry_id, seat, side, player, player_key, rank)
SELECT entry_id + ?, seat, side, player, player_key, rank FROM archive_sides WHERE ? > 0 AND entry_id <= ?`,
			`INSERT INTO archive_search (rowid, tags, players) SELECT rowid + ?, tags, players FROM archive_search WHERE ? > 0 AND rowid <= ?`,
			`INSERT INTO archive_positions (pos_key, entry_id, ply, next)
SELECT pos_key, entry_id + ?, ply, next FROM archive_positions WHERE ? > 0 AND entry_id <= ?`,
			`INSERT INTO archive_lines (entry_id, line_key) SELECT entry_id + ?, line_key FROM archive_lines WHERE ? > 0 AND entry_id <= ?`,
			`DELETE FROM archive_unindexed WHERE ? > 0 AND ? > 0 AND entry_id > ?`,
		} {
			if _, err := s.db.ExecContext(ctx, q, off, k, last); err != nil {
				return fmt.Errorf("copy %d: %w", k, err)
			}
		}
	}
	return nil
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
