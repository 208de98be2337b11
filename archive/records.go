package archive

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"pbem/notation"
)

// ImportBatch is how many games an import commits together by default. A
// game is stored whole or not at all whatever the batch: a crash loses at
// most the batch being written, never part of a game.
const ImportBatch = 500

// ImportStats counts what an import did.
type ImportStats struct {
	Games    int // games read
	Plies    int // plies checked, variations included
	Added    int // valid games archived
	Known    int // valid games that were archived already
	Invalid  int // games with problems, not archived
	Problems int // problems found
	// Duplicates are the games archived whose moves equal those of a game
	// archived before them under other tags (possible duplicates), in
	// import order.
	Duplicates []Duplicate
}

// Importer archives checked games, in batches of one transaction each.
// Games are archived in their canonical form (notation.Format), once: a
// game whose canonical text is archived already (same tags, moves,
// comments and result) is counted as known and not stored again.
type Importer struct {
	s      *Store
	lookup notation.Lookup
	batch  int
	stats  ImportStats
	todo   []*Entry
	// failAt, when set (tests), is called before each batch's commit.
	failAt func(batch int) error
	n      int
	// indexed: the games archived before the import (the referee's, since
	// the last query) are indexed, so that duplicates of them are found.
	indexed bool
}

// NewImporter starts an import; batch is how many games a transaction
// holds (ImportBatch when 0). Call Flush when done.
func (s *Store) NewImporter(lookup notation.Lookup, batch int) *Importer {
	if batch <= 0 {
		batch = ImportBatch
	}
	return &Importer{s: s, lookup: lookup, batch: batch}
}

// Stats returns the counts so far: games read, plies and problems as they
// are checked; Added and Known once their batch is committed.
func (im *Importer) Stats() ImportStats { return im.stats }

// Check counts a checked game and, when it is valid, adds it to the batch,
// committing the batch when it is full.
func (im *Importer) Check(ctx context.Context, ch *notation.Checked) error {
	if !im.count(ch) {
		return nil
	}
	return im.Add(ctx, ch.Game)
}

// count counts a checked game and reports whether it is valid.
func (im *Importer) count(ch *notation.Checked) bool {
	im.stats.Games++
	if ch.Game != nil {
		im.stats.Plies += ch.Game.Plies
	}
	if !ch.Valid() {
		im.stats.Invalid++
		im.stats.Problems += len(ch.Problems)
		return false
	}
	return true
}

// Add adds a valid game to the batch, committing the batch when it is
// full.
func (im *Importer) Add(ctx context.Context, g *notation.Game) error {
	im.todo = append(im.todo, EntryOf(g, im.s.now()))
	if len(im.todo) >= im.batch {
		return im.Flush(ctx)
	}
	return nil
}

// EntryOf is the archive entry of a checked, valid game: its canonical
// record, the tags in canonical order, and Rated unless a [Rated] tag says
// no.
func EntryOf(g *notation.Game, now time.Time) *Entry {
	text := notation.Format(g)
	tags := headerTags(text)
	rated := true
	if v, ok := tagValue(tags, "Rated"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "no", "false", "0", "unrated":
			rated = false
		}
	}
	return &Entry{
		Game:      g.Codec.Rules().ID(),
		Result:    g.CanonicalResult(),
		Tags:      tags,
		Record:    text,
		Hash:      Hash(text),
		Rated:     rated,
		Created:   now,
		positions: positionRows(g),
		file:      g.Record.File,
		index:     g.Record.Index,
	}
}

// headerTags reads the tag pairs of a canonical record text: lines
// [Name "value"] (value with \" and \\ escapes) up to the blank line.
func headerTags(text string) []Tag {
	var tags []Tag
	for len(text) > 0 && text[0] == '[' {
		sp := strings.IndexByte(text, ' ')
		if sp < 0 || sp+1 >= len(text) || text[sp+1] != '"' {
			break
		}
		name := text[1:sp]
		var v strings.Builder
		i := sp + 2
		for i < len(text) && text[i] != '"' {
			if text[i] == '\\' && i+1 < len(text) {
				i++
			}
			v.WriteByte(text[i])
			i++
		}
		tags = append(tags, Tag{Name: name, Value: v.String()})
		// skip `"]\n`
		text = text[min(i+3, len(text)):]
	}
	return tags
}

// Flush commits the games waiting in the batch, in one transaction.
func (im *Importer) Flush(ctx context.Context) error {
	if len(im.todo) == 0 {
		return nil
	}
	added, err := im.commit(ctx, im.todo)
	if err != nil {
		return fmt.Errorf("archive: import: %w", err)
	}
	im.stats.Added += added
	im.stats.Known += len(im.todo) - added
	clear(im.todo)
	im.todo = im.todo[:0]
	return nil
}

func (im *Importer) commit(ctx context.Context, es []*Entry) (added int, err error) {
	if !im.indexed {
		if err := im.s.Reindex(ctx, im.lookup); err != nil {
			return 0, err
		}
		im.indexed = true
	}
	var dups []Duplicate
	tx, err := im.s.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	// canonical: the record is the canonical form of a game checked on the
	// way in, which export writes as stored.
	ins, err := tx.PrepareContext(ctx, `INSERT INTO archive (game_id, game, result, tags, record, hash, rated, created, canonical)
VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, 1) ON CONFLICT (hash) DO NOTHING RETURNING id`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	st, err := im.s.prepareIndex(ctx, tx)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	ids := make([]int64, len(es))
	for i, e := range es {
		tags, err := json.Marshal(e.Tags)
		if err != nil {
			return 0, err
		}
		err = ins.QueryRowContext(ctx, e.Game, e.Result, string(tags), e.Record, e.Hash, e.Rated, unix(e.Created)).Scan(&ids[i])
		if errors.Is(err, sql.ErrNoRows) {
			continue // archived already (or earlier in this batch)
		}
		if err != nil {
			return 0, err
		}
		line, hasLine, err := putIndex(ctx, st, ids[i], e.Game, e.Result, e.Tags, e.Record, e.positions, im.lookup)
		if err != nil {
			return 0, err
		}
		if hasLine {
			of, err := earlierLine(ctx, st, ids[i], line)
			if err != nil {
				return 0, err
			}
			if of != 0 {
				dups = append(dups, Duplicate{ID: ids[i], Of: of, File: e.file, Index: e.index})
			}
		}
		added++
	}
	im.n++
	if im.failAt != nil {
		if err := im.failAt(im.n); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, err
	}
	for i, e := range es {
		e.ID = ids[i]
	}
	im.stats.Duplicates = append(im.stats.Duplicates, dups...)
	return added, nil
}

// File checks every game of a record file held in memory; see Read.
func (im *Importer) File(ctx context.Context, file string, data []byte, each func(*notation.Checked)) error {
	return im.Read(ctx, file, bytes.NewReader(data), each)
}

// Read checks every game of a record stream as `pbem check` does
// (notation.Checker, on all cores) and adds the valid ones; each (if not
// nil) sees every game as it is checked, in order, before it is stored, to
// report problems and progress. It holds a window of the stream and a few
// batches of games, never the whole stream. After a storage error the rest of the stream is still
// checked (shown to each and counted in Stats) but nothing more is stored,
// and the error is returned; a read error is returned after the games read
// before it. Games may wait in the batch: call Flush at the end.
func (im *Importer) Read(ctx context.Context, file string, r io.Reader, each func(*notation.Checked)) error {
	var err error
	checker := &notation.Checker{Lookup: im.lookup}
	rerr := checker.Run(file, r, func(ch *notation.Checked) {
		if each != nil {
			each(ch)
		}
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			err = im.Check(ctx, ch)
		} else {
			im.count(ch)
		}
	})
	if err == nil && rerr != nil {
		err = &ReadError{File: file, Err: rerr}
	}
	return err
}

// ReadError is an import's error reading its input (not storing it): the
// games read before it were checked and may be stored.
type ReadError struct {
	File string
	Err  error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("archive: import: reading %s: %v", e.File, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// ImportFile imports one record file (Importer.File) and commits it.
func (s *Store) ImportFile(ctx context.Context, file string, data []byte, lookup notation.Lookup, each func(*notation.Checked)) (ImportStats, error) {
	return s.ImportReader(ctx, file, bytes.NewReader(data), lookup, each)
}

// ImportReader imports one record stream (Importer.Read) and commits it.
func (s *Store) ImportReader(ctx context.Context, file string, r io.Reader, lookup notation.Lookup, each func(*notation.Checked)) (ImportStats, error) {
	im := s.NewImporter(lookup, 0)
	err := im.Read(ctx, file, r, each)
	var re *ReadError
	if err == nil || errors.As(err, &re) {
		if ferr := im.Flush(ctx); ferr != nil {
			err = ferr
		}
	}
	return im.Stats(), err
}

// Export formats.
const (
	PGN  = "pgn"  // a record collection in canonical form
	JSON = "json" // JSON lines: one object per game
)

// ExportOptions configure Export.
type ExportOptions struct {
	// Format is PGN (the default) or JSON.
	Format string
	// Invalid, if set, is told of an archived record that no longer checks
	// (the catalog changed, or the database was edited); it is not
	// exported. It is called in export order, from one goroutine at a time.
	Invalid func(id int64, problems []*notation.Problem)
	// Workers is how many goroutines check records (default GOMAXPROCS).
	Workers int
	// Recheck checks every record again, even those an import checked and
	// stored in canonical form (which are otherwise written as stored,
	// unless the record no longer has its hash: edited in the database).
	Recheck bool
}

// ExportedGame is the JSON form of one exported game.
type ExportedGame struct {
	ID     int64       `json:"id"`
	Game   string      `json:"game"`
	Rated  bool        `json:"rated"`
	Tags   OrderedTags `json:"tags"`
	Plies  []string    `json:"plies"`
	Result string      `json:"result"`
}

// OrderedTags is a JSON object of tag pairs that keeps the tags' order.
type OrderedTags []Tag

// MarshalJSON writes {"Name":"value",...} in order (without escaping <, >
// and &, which addresses are full of).
func (ts OrderedTags) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, t := range ts {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(t.Name); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(t.Value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object of tag pairs in order.
func (ts *OrderedTags) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("archive: tags: expected an object")
	}
	*ts = nil
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return err
		}
		*ts = append(*ts, Tag{Name: k.(string), Value: v})
	}
	_, err := dec.Token()
	return err
}

// Export writes the archived games the filter selects, by archive id, as a
// canonical record collection or as JSON lines. A record an import checked
// and stored in canonical form is written as stored, if it still has its
// hash; every other record (the referee's, or one edited in the database)
// is checked again, so that what leaves the archive is what `pbem check`
// accepts. The work is spread over Workers goroutines and the games are
// written in order as they come. It returns the number of games written.
func (s *Store) Export(ctx context.Context, w io.Writer, lookup notation.Lookup, f Filter, o *ExportOptions) (int, error) {
	var opts ExportOptions
	if o != nil {
		opts = *o
	}
	switch opts.Format {
	case "":
		opts.Format = PGN
	case PGN, JSON:
	default:
		return 0, fmt.Errorf("archive: unknown export format %q; expected pgn or json", opts.Format)
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// The query (this goroutine) hands every game to the workers and, in
	// the same order, to the writer, which waits for each to be done.
	type job struct {
		fd       *Found
		out      []byte
		problems []*notation.Problem
		done     chan struct{}
	}
	jobs := make(chan *job, 4*opts.Workers)
	order := make(chan *job, 8*opts.Workers)
	var workers sync.WaitGroup
	for range opts.Workers {
		workers.Go(func() {
			for j := range jobs {
				j.out, j.problems = nil, nil
				if !opts.Recheck && j.fd.canonical && Hash(j.fd.Record) == j.fd.Hash {
					j.out = exportStored(j.fd, opts.Format)
				}
				if j.out == nil {
					j.out, j.problems = exportGame(j.fd, lookup, opts.Format)
				}
				close(j.done)
			}
		})
	}
	n := 0
	var werr error
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		bw := bufio.NewWriterSize(w, 64<<10)
		for j := range order {
			<-j.done
			if werr != nil {
				continue
			}
			if j.out == nil {
				if opts.Invalid != nil {
					opts.Invalid(j.fd.ID, j.problems)
				}
				continue
			}
			if _, err := bw.Write(j.out); err != nil {
				werr = err
				cancel()
				continue
			}
			n++
		}
		if werr == nil {
			werr = bw.Flush()
		}
	}()
	err := s.Query(ctx, lookup, f, func(fd *Found) error {
		j := &job{fd: fd, done: make(chan struct{})}
		select {
		case order <- j:
		case <-ctx.Done():
			return ctx.Err()
		}
		jobs <- j // the workers never stop before jobs is closed
		return nil
	})
	close(jobs)
	close(order)
	workers.Wait()
	<-writer
	if werr != nil {
		return n, fmt.Errorf("archive: export: %w", werr)
	}
	if err != nil {
		return n, err
	}
	return n, nil
}

// exportGame checks an archived game again and writes it in the format;
// nil and the problems when it no longer checks.
func exportGame(fd *Found, lookup notation.Lookup, format string) ([]byte, []*notation.Problem) {
	g, problems := recheck(fd, lookup)
	if g == nil {
		return nil, problems
	}
	var b bytes.Buffer
	if format == PGN {
		notation.Write(&b, g)
		return b.Bytes(), nil
	}
	text := notation.Format(g)
	plies := make([]string, len(g.Record.Main.Plies))
	for i, p := range g.Record.Main.Plies {
		plies[i] = p.Canon
	}
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&ExportedGame{ID: fd.ID, Game: fd.Game, Rated: fd.Rated, Tags: OrderedTags(headerTags(text)),
		Plies: plies, Result: g.CanonicalResult()}); err != nil {
		// Only strings and numbers: this cannot fail.
		panic(fmt.Sprintf("archive: export game %d: %v", fd.ID, err))
	}
	return b.Bytes(), nil
}

// exportStored writes an archived record that was checked on the way in,
// without checking it again: as stored, or as JSON from its text. It
// returns nil for a text it cannot read (not canonical after all), which is
// then checked again.
func exportStored(fd *Found, format string) []byte {
	if format == PGN {
		return []byte(fd.Record)
	}
	plies, result, ok := canonicalPlies(fd.Record)
	if !ok {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&ExportedGame{ID: fd.ID, Game: fd.Game, Rated: fd.Rated, Tags: OrderedTags(headerTags(fd.Record)),
		Plies: plies, Result: result}); err != nil {
		panic(fmt.Sprintf("archive: export game %d: %v", fd.ID, err))
	}
	return b.Bytes()
}

// canonicalPlies reads the plies of the main line and the result of a
// record in the canonical form notation.Write emits: tags, a blank line,
// then move numbers ("12." "12..."), plies with their annotations glued on,
// NAGs, comments in braces, variations in parentheses glued to their first
// and last words, and the result. ok is false for any other shape.
func canonicalPlies(text string) (plies []string, result string, ok bool) {
	i := strings.Index(text, "\n\n")
	if i < 0 {
		return nil, "", false
	}
	words := 0
	depth := 0
	last := ""
	for rest := text[i+2:]; ; {
		rest = strings.TrimLeft(rest, " \n")
		if rest == "" {
			break
		}
		switch rest[0] {
		case '{':
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return nil, "", false
			}
			rest = rest[end+1:]
			continue
		case '(':
			depth++
			rest = rest[1:]
			continue
		case ')':
			if depth == 0 {
				return nil, "", false
			}
			depth--
			rest = rest[1:]
			continue
		}
		n := strings.IndexAny(rest, " \n(){}")
		if n < 0 {
			n = len(rest)
		}
		w := rest[:n]
		rest = rest[n:]
		if depth > 0 || w[0] == '$' || isMoveNumber(w) {
			continue
		}
		if last != "" {
			plies = append(plies, last)
		}
		last = strings.TrimRight(w, "!?+#")
		words++
	}
	if depth != 0 || words == 0 {
		return nil, "", false
	}
	if plies == nil {
		plies = []string{}
	}
	return plies, last, true
}

// isMoveNumber reports a move number as the writer spells it: 12. or 12...
func isMoveNumber(w string) bool {
	d := len(w) - len(strings.TrimLeft(w, "0123456789"))
	return d > 0 && (w[d:] == "." || w[d:] == "...")
}

// recheck checks an archived record again; it returns nil and the problems
// when it is not exactly one valid game.
func recheck(fd *Found, lookup notation.Lookup) (*notation.Game, []*notation.Problem) {
	var g *notation.Game
	var problems []*notation.Problem
	games := 0
	notation.CheckFile(fmt.Sprintf("archive #%d", fd.ID), []byte(fd.Record), lookup, func(ch *notation.Checked) {
		games++
		problems = append(problems, ch.Problems...)
		if ch.Valid() {
			g = ch.Game
		}
	})
	if games != 1 || len(problems) > 0 {
		if len(problems) == 0 {
			problems = append(problems, &notation.Problem{File: fmt.Sprintf("archive #%d", fd.ID), Line: 1, Col: 1,
				Msg: fmt.Sprintf("the archived record holds %d games; expected 1", games)})
		}
		return nil, problems
	}
	return g, nil
}
