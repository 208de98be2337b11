package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/notation"
	castles "pbem/notation/castles"
	elevation "pbem/notation/elevation"
	rpp "pbem/notation/rpp"
	ziggurat "pbem/notation/ziggurat"
	ziggurat43 "pbem/notation/ziggurat43"
)

// lookup is the game catalog for tests (the referee's, which archive
// cannot import).
func lookup(id string) (notation.Codec, error) {
	for _, c := range codecs {
		if strings.EqualFold(c.Rules().ID(), id) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("unknown game %q", id)
}

var codecs = []notation.Codec{castles.New(), ziggurat.New(), elevation.New(), ziggurat43.New(), rpp.New()}

// randomGame plays game i of a seeded series with random legal moves, as
// pbem selfplay does, with the given tags.
func randomGame(t testing.TB, codec notation.Codec, o engine.Options, seed uint64, i, maxPlies int, tags []notation.Tag) *notation.Game {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	b, err := notation.NewBuilder(codec, o, tags)
	require.NoError(t, err)
	for ply := 0; ply < maxPlies && !b.Line().Outcome().Over; ply++ {
		s := b.Line().State()
		var m engine.Move
		if smp, ok := s.(engine.Sampler); ok {
			m = smp.RandomMove(r)
		} else {
			moves := s.Legal()
			m = moves[r.IntN(len(moves))]
		}
		require.NoError(t, b.Play(m))
	}
	b.Finish(nil, "")
	return b.Game()
}

// corpus writes n random games of every game (rpp with 4 seats) as a
// record collection in canonical form.
func corpus(t testing.TB, n, maxPlies int) []byte {
	var buf bytes.Buffer
	for _, c := range codecs {
		o := engine.Options{}
		if c.Rules().ID() == "rpp" {
			o.Players = 4
		}
		sides, _ := c.Rules().Sides(o)
		for i := range n {
			tags := []notation.Tag{
				{Name: "Event", Value: "Corpus " + c.Rules().ID()},
				{Name: "Site", Value: "test"},
				{Name: "Date", Value: fmt.Sprintf("2026.%02d.%02d", 1+i%12, 1+i%28)},
				{Name: "Round", Value: strconv.Itoa(i + 1)},
			}
			for k, s := range sides {
				tags = append(tags, notation.Tag{Name: s, Value: fmt.Sprintf("Player %d <p%d@example.org>", (i+k)%7, (i+k)%7)})
			}
			require.NoError(t, notation.Write(&buf, randomGame(t, c, o, 7, i, maxPlies, tags)))
		}
	}
	return buf.Bytes()
}

// canonical is the canonical form of every game of a record file, which
// must all be valid.
func canonical(t testing.TB, data []byte) string {
	var b strings.Builder
	notation.CheckFile("x", data, lookup, func(ch *notation.Checked) {
		require.True(t, ch.Valid(), "%v", ch.Problems)
		notation.Write(&b, ch.Game)
	})
	return b.String()
}

func export(t testing.TB, s *Store, f Filter, format string) string {
	var b bytes.Buffer
	_, err := s.Export(context.Background(), &b, lookup, f, &ExportOptions{Format: format,
		Invalid: func(id int64, ps []*notation.Problem) { t.Errorf("archived game %d does not check: %v", id, ps) }})
	require.NoError(t, err)
	return b.String()
}

func TestImportExportRoundTrip(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		data := corpus(t, 40, 60)
		st, err := s.ImportFile(ctx, "corpus", data, lookup, nil)
		require.NoError(t, err)
		assert.Equal(t, ImportStats{Games: 200, Plies: st.Plies, Added: 200}, st)
		assert.Equal(t, canonical(t, data), export(t, s, Filter{}, PGN))

		// Again: every game is known, nothing is added.
		st, err = s.ImportFile(ctx, "again", data, lookup, nil)
		require.NoError(t, err)
		assert.Equal(t, 200, st.Known)
		assert.Zero(t, st.Added)

		// JSON lines: one object per game with the same tags, plies and result.
		lines := strings.Split(strings.TrimSuffix(export(t, s, Filter{Game: "RPP"}, JSON), "\n"), "\n")
		require.Len(t, lines, 40)
		var g ExportedGame
		require.NoError(t, json.Unmarshal([]byte(lines[0]), &g))
		assert.Equal(t, "rpp", g.Game)
		assert.True(t, g.Rated)
		var first *notation.Game
		notation.CheckFile("x", data, lookup, func(ch *notation.Checked) {
			if first == nil && ch.Game.Codec.Rules().ID() == "rpp" {
				first = ch.Game
			}
		})
		require.NotNil(t, first)
		assert.Equal(t, OrderedTags(headerTags(notation.Format(first))), g.Tags)
		assert.Equal(t, "Game", g.Tags[0].Name, "tags in canonical order")
		require.Len(t, g.Plies, len(first.Record.Main.Plies))
		for i, p := range first.Record.Main.Plies {
			assert.Equal(t, p.Canon, g.Plies[i])
		}
		assert.Equal(t, first.CanonicalResult(), g.Result)
		assert.Regexp(t, `^\{"id":\d+,"game":"rpp","rated":true,"tags":\{"Game":"rpp","Event":"Corpus rpp",`, lines[0])
	})
}

const lenient = `[Round "2"] [Game "castles"] [Event "Cup"]
[First "Alice <alice@example.org>"] [Second "Bob"]
0... @C3 1. a1-b2 {a   comment} *

[Game "castles"] [Event "Cup"] [Round "2"] [First "Alice <alice@example.org>"] [Second "Bob"]
0... @c3 1. Ca1-b2 {a comment} *

[Game "castles"] 0... @c3 1. Ca1-c3 *

[Game "castles"] [Event "Cup"] [Round "2"] [First "Alice <alice@example.org>"] [Second "Bob"]
0... @c3 1. Ca1-b2 *

[Game "chess"] 1. e4 *
`

func TestImportChecksAndDeduplicates(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		var problems []string
		st, err := s.ImportFile(ctx, "f.pgn", []byte(lenient), lookup, func(ch *notation.Checked) {
			for _, p := range ch.Problems {
				problems = append(problems, p.String())
			}
		})
		require.NoError(t, err)
		// Games 1 and 2 are the same game (lenient and canonical spellings);
		// game 4 differs by its comment (too short to be a possible
		// duplicate of game 1).
		assert.Equal(t, ImportStats{Games: 5, Plies: 7, Added: 2, Known: 1, Invalid: 2, Problems: 2}, st)
		assert.Equal(t, []string{
			`f.pgn:8:30: game 3, ply 2 "Ca1-c3": illegal: the castle steps exactly one square; did you mean Ca1-a2, Ca1-b1, Ca1-b2, Ca1-a2,@a1 or Ca1-a2,@a3? (more than one legal ply fits the rest of the game; none is chosen)`,
			`f.pgn:13:1: game 5, ply 0 "chess": unknown game "chess"`,
		}, problems)

		es, err := s.Entries(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, es, 2)
		e := es[0]
		assert.Zero(t, e.GameID)
		assert.Equal(t, "castles", e.Game)
		assert.Equal(t, "*", e.Result)
		assert.True(t, e.Rated)
		assert.Equal(t, t0, e.Created)
		assert.Equal(t, "[Game \"castles\"]\n[Event \"Cup\"]\n[Round \"2\"]\n[First \"Alice <alice@example.org>\"]\n[Second \"Bob\"]\n[Result \"*\"]\n\n0... @c3 1. Ca1-b2 {a comment} *\n\n", e.Record)
		assert.Equal(t, Hash(e.Record), e.Hash)
		assert.Equal(t, []Tag{{"Game", "castles"}, {"Event", "Cup"}, {"Round", "2"}, {"First", "Alice <alice@example.org>"},
			{"Second", "Bob"}, {"Result", "*"}}, e.Tags)
	})
}

func TestImportRatedTag(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		for i, v := range []string{"no", "No", "false", "0", "yes", "anything"} {
			rec := fmt.Sprintf("[Game \"castles\"] [Round \"%d\"] [Rated %q] 0... @c3 *\n", i, v)
			_, err := s.ImportFile(ctx, "f", []byte(rec), lookup, nil)
			require.NoError(t, err)
		}
		es, err := s.Entries(ctx, 0, 10)
		require.NoError(t, err)
		var rated []bool
		for _, e := range es {
			rated = append(rated, e.Rated)
		}
		assert.Equal(t, []bool{false, false, false, false, true, true}, rated)
	})
}

func TestHeaderTags(t *testing.T) {
	g := randomGame(t, castles.New(), engine.Options{}, 1, 0, 3, []notation.Tag{
		{Name: "Event", Value: `A "quoted" \ event`}, {Name: "Zeta", Value: ""}, {Name: "Annotator", Value: "x]y"},
	})
	text := notation.Format(g)
	recs, problems := notation.Parse("x", []byte(text))
	require.Empty(t, problems)
	var want []Tag
	for _, t := range recs[0].Tags {
		want = append(want, Tag{t.Name, t.Value})
	}
	assert.Equal(t, want, headerTags(text))
	assert.Equal(t, Tag{"Event", `A "quoted" \ event`}, headerTags(text)[1])
}

func TestExportSkipsRecordsThatNoLongerCheck(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		_, err := s.ImportFile(ctx, "f", []byte(lenient), lookup, nil)
		require.NoError(t, err)
		_, err = s.DB().Exec(`UPDATE archive SET record = '[Game "castles"] 0... @c3 1. Ca1-c3 *' WHERE id = 1`)
		require.NoError(t, err)
		var bad []int64
		var out bytes.Buffer
		n, err := s.Export(ctx, &out, lookup, Filter{}, &ExportOptions{Invalid: func(id int64, ps []*notation.Problem) {
			bad = append(bad, id)
			assert.Equal(t, `archive #1:1:30: game 1, ply 2 "Ca1-c3": illegal: the castle steps exactly one square; did you mean Ca1-a2, Ca1-b1, Ca1-b2, Ca1-a2,@a1 or Ca1-a2,@a3? (more than one legal ply fits the rest of the game; none is chosen)`, ps[0].String())
		}})
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.Equal(t, []int64{1}, bad)
		assert.True(t, strings.HasPrefix(out.String(), "[Game \"castles\"]\n[Event \"Cup\"]"), out.String())

		_, err = s.Export(ctx, &out, lookup, Filter{}, &ExportOptions{Format: "xml"})
		assert.ErrorContains(t, err, `unknown export format "xml"`)
	})
}

// TestImportBatchIsAtomic fails the commit of the second batch: the first
// batch is stored, nothing of the second.
func TestImportBatchIsAtomic(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		data := corpus(t, 5, 20) // 25 games
		im := s.NewImporter(lookup, 10)
		im.failAt = func(batch int) error {
			if batch == 2 {
				return errors.New("injected failure")
			}
			return nil
		}
		err := im.File(ctx, "corpus", data, nil)
		require.ErrorContains(t, err, "injected failure")
		assert.Equal(t, 10, im.Stats().Added)
		assert.Equal(t, 25, im.Stats().Games, "the rest of the file is still checked")
		assertWholeGames(t, s, data, 10)
	})
}

// assertWholeGames checks that the archive holds exactly the first n games
// of data, each whole: record, tags, index and sides, and that it checks.
func assertWholeGames(t *testing.T, s *Store, data []byte, n int) {
	t.Helper()
	ctx := context.Background()
	var want []*Entry
	notation.CheckFile("x", data, lookup, func(ch *notation.Checked) {
		if len(want) < n {
			want = append(want, EntryOf(ch.Game, t0))
		}
	})
	var count int
	require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive`).Scan(&count))
	require.Equal(t, n, count, "games archived")
	var unindexed, sides, index int
	require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive_unindexed`).Scan(&unindexed))
	require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive_sides`).Scan(&sides))
	require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive_index`).Scan(&index))
	assert.Zero(t, unindexed, "games left unindexed")
	assert.Equal(t, n, index)
	wantSides := 0
	i := 0
	err := s.Query(ctx, lookup, Filter{}, func(fd *Found) error {
		w := want[i]
		i++
		assert.Equal(t, w.Record, fd.Record)
		assert.Equal(t, w.Hash, fd.Hash)
		assert.Equal(t, w.Tags, fd.Tags)
		assert.Equal(t, w.Result, fd.Result)
		wantSides += len(fd.Sides)
		g, ps := recheck(fd, lookup)
		assert.Empty(t, ps)
		if g != nil {
			assert.Len(t, fd.Sides, len(g.Sides))
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, n, i)
	assert.Equal(t, wantSides, sides)
}

// TestImportCrash kills importing processes: once in the middle of a
// batch's transaction (every statement executed, before COMMIT), and once
// with SIGKILL at whatever point it has reached. The archive they leave
// holds whole games only, and is usable.
func TestImportCrash(t *testing.T) {
	if where := os.Getenv("ARCHIVE_IMPORT_CRASH_DIR"); where != "" {
		s, err := OpenStore(context.Background(), where, nil)
		if err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		data, err := os.ReadFile(os.Getenv("ARCHIVE_IMPORT_CRASH_FILE"))
		if err != nil {
			fmt.Println(err)
			os.Exit(2)
		}
		im := s.NewImporter(lookup, 10)
		if os.Getenv("ARCHIVE_IMPORT_CRASH_MODE") == "exit" {
			im.failAt = func(batch int) error {
				if batch == 3 {
					os.Exit(3) // the crash: no rollback, no close
				}
				return nil
			}
		}
		im.File(context.Background(), "corpus", data, nil)
		os.Exit(4)
	}
	eachStore(t, func(t *testing.T, where string) {
		data := corpus(t, 60, 20) // 300 games
		file := t.TempDir() + "/corpus.pgn"
		require.NoError(t, os.WriteFile(file, data, 0o644))
		child := func(dir, mode string) *exec.Cmd {
			cmd := exec.Command(os.Args[0], "-test.run=^TestImportCrash$")
			cmd.Env = append(os.Environ(), "ARCHIVE_IMPORT_CRASH_DIR="+dir, "ARCHIVE_IMPORT_CRASH_FILE="+file,
				"ARCHIVE_IMPORT_CRASH_MODE="+mode)
			return cmd
		}

		t.Run("mid-transaction", func(t *testing.T) {
			dir := where
			open(t, dir).Close()
			out, err := child(dir, "exit").CombinedOutput()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee) && ee.ExitCode() == 3, "child: %v\n%s", err, out)
			s := open(t, dir)
			assertWholeGames(t, s, data, 20)
			// The import can be run again: what is there is known, the rest
			// is added.
			st, err := s.ImportFile(context.Background(), "corpus", data, lookup, nil)
			require.NoError(t, err)
			assert.Equal(t, 20, st.Known)
			assert.Equal(t, 280, st.Added)
			assertWholeGames(t, s, data, 300)
		})

		t.Run("SIGKILL", func(t *testing.T) {
			dir := fresh(t, where)
			s := open(t, dir)
			cmd := child(dir, "kill")
			require.NoError(t, cmd.Start())
			deadline := time.Now().Add(30 * time.Second)
			for {
				var n int
				require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive`).Scan(&n))
				if n >= 50 || time.Now().After(deadline) {
					break
				}
				time.Sleep(time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			err := cmd.Wait()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "child: %v", err)
			var n int
			require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive`).Scan(&n))
			t.Logf("the child was killed after archiving %d games (exit: %v)", n, err)
			assert.Zero(t, n%10, "a batch was stored in part")
			s.Close()
			assertWholeGames(t, open(t, dir), data, n)
		})
	})
}

// failingWriter fails once it has taken n bytes.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestExportOrderAndErrors: whatever the number of workers, games come out
// in archive order; a write error stops the export and is returned.
func TestExportOrderAndErrors(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		s := open(t, where)
		data := corpus(t, 30, 30)
		_, err := s.ImportFile(ctx, "c", data, lookup, nil)
		require.NoError(t, err)
		want := canonical(t, data)
		for _, workers := range []int{1, 2, 7} {
			var b bytes.Buffer
			n, err := s.Export(ctx, &b, lookup, Filter{}, &ExportOptions{Workers: workers})
			require.NoError(t, err)
			assert.Equal(t, 150, n)
			assert.True(t, want == b.String(), "%d workers: the export differs", workers)
		}
		_, err = s.Export(ctx, &failingWriter{n: 10 << 10}, lookup, Filter{}, &ExportOptions{Workers: 3})
		assert.ErrorContains(t, err, "archive: export: disk full")
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err = s.Export(cctx, io.Discard, lookup, Filter{}, nil)
		assert.ErrorIs(t, err, context.Canceled)
	})
}

// TestImportReader imports a stream read a byte at a time as ImportFile
// imports the file whole, and reports the problems notation.CheckFile
// finds, in order; a read error stops the import after the games read
// before it, which are stored.
func TestImportReader(t *testing.T) {
	eachStore(t, func(t *testing.T, where string) {
		ctx := context.Background()
		data := append(corpus(t, 4, 30), []byte(lenient)...)
		var want []string
		notation.CheckFile("f", data, lookup, func(ch *notation.Checked) {
			for _, p := range ch.Problems {
				want = append(want, p.String())
			}
		})
		require.NotEmpty(t, want)

		whole := open(t, where)
		wst, err := whole.ImportFile(ctx, "f", data, lookup, nil)
		require.NoError(t, err)
		s := open(t, fresh(t, where))
		var got []string
		st, err := s.ImportReader(ctx, "f", iotest.OneByteReader(bytes.NewReader(data)), lookup, func(ch *notation.Checked) {
			for _, p := range ch.Problems {
				got = append(got, p.String())
			}
		})
		require.NoError(t, err)
		assert.Equal(t, wst, st)
		assert.Equal(t, want, got)
		assert.Equal(t, export(t, whole, Filter{}, PGN), export(t, s, Filter{}, PGN))

		// The game the error cuts short is not read (its end is not known).
		games := corpus(t, 2, 10) // 10 games
		s = open(t, fresh(t, where))
		st, err = s.ImportReader(ctx, "f", io.MultiReader(bytes.NewReader(games), iotest.ErrReader(errors.New("disk on fire"))), lookup, nil)
		require.ErrorContains(t, err, "disk on fire")
		var re *ReadError
		require.ErrorAs(t, err, &re)
		assert.Equal(t, ImportStats{Games: 9, Plies: st.Plies, Added: 9}, st)
		var n int
		require.NoError(t, s.DB().QueryRow(`SELECT COUNT(*) FROM archive`).Scan(&n))
		assert.Equal(t, 9, n)
	})
}
