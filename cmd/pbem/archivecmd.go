package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

// archiveCommand is one subcommand of pbem archive.
type archiveCommand struct {
	name, args, summary string
	run                 func(c *cli, a *archiveArgs) int
}

func archiveCommands() []archiveCommand {
	return []archiveCommand{
		{"import", "FILE ...", "check record files as pbem check does and archive every valid game once (- : standard input)", runArchiveImport},
		{"export", "[--game G] [--event E] [--player P] [--since DATE] [--format pgn|json] | --format trf EVENT", "write archived games as a canonical record collection or JSON lines, or a tournament as a FIDE report (TRF)", runArchiveExport},
		{"list", "[--game G] [--event E] [--player P] [--since DATE]", "list archived games, one line each: id, date, game, event, round, sides, result", runArchiveList},
		{"search", "[--game G] [--event E] [--player P] [--since DATE] [--position TEXT | --after PLIES] [WORD ...]", "list the archived games with every WORD in a tag value (any case), or through a position (by transposition too) with the plies after which they stand there", runArchiveList},
		{"duplicates", "[--game G] [--event E] [--player P] [--since DATE]", "list the archived games whose moves another archived game has too (the same game, start position and plies, under other tags), each with the ids of the others", runArchiveList},
		{"explore", "GAME [PLY ...] [--position TEXT] [--event E] [--player P] [--since DATE]", "every ply played in the archive from the position after the PLYs from the start (or TEXT), most played first, with its games and their results for the side to move", runArchiveExplore},
		{"crosstable", "EVENT [--game G] [--format text|csv]", "the results of an event: players against players, score, Sonneborn-Berger", runArchiveCrosstable},
		{"ratings", "[--game G] [--format text|csv]", "Elo ratings per game, recomputed from the rated games of the archive", runArchiveRatings},
		siteCommand,
		migrateCommand,
	}
}

// archiveArgs is a parsed subcommand line.
type archiveArgs struct {
	name   string
	data   *string
	filter archive.Filter
	format *string
	pos    []string
	// search by position: a position text, or the plies from the start.
	position, after *string
	players         *int
	// a page of a search by position: its size and number (from 1).
	limit, page *int
}

// searchLimit is the games a search by position shows at a time, unless
// --limit says.
const searchLimit = 50

// maxSearchOffset bounds how far --page goes: a deeper page costs a
// longer walk of the index.
const maxSearchOffset = 100_000

// runArchive is `pbem archive SUBCOMMAND ...`.
func runArchive(c *cli, args []string) int {
	if len(args) == 0 {
		c.archiveUsage(c.stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		c.archiveUsage(c.stdout)
		return 0
	case siteCommand.name:
		return runArchiveSite(c, args[1:])
	case migrateCommand.name:
		return runArchiveMigrate(c, args[1:])
	}
	for _, sub := range archiveCommands() {
		if sub.name == args[0] {
			a, code, done := c.archiveFlags(sub, args[1:])
			if done {
				return code
			}
			return sub.run(c, a)
		}
	}
	var names []string
	for _, sub := range archiveCommands() {
		names = append(names, sub.name)
	}
	fmt.Fprintf(c.stderr, "pbem archive: unknown subcommand %q; expected one of %s\n", args[0], strings.Join(names, ", "))
	return 2
}

func (c *cli) archiveUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: pbem archive SUBCOMMAND [--data DIR] ...\n\nKeep and query an archive of finished games (the referee's store).\n\nSubcommands:\n")
	for _, sub := range archiveCommands() {
		fmt.Fprintf(w, "  pbem archive %s %s\n        %s\n", sub.name, sub.args, sub.summary)
	}
	fmt.Fprintf(w, "\nRun pbem archive SUBCOMMAND --help for its options.\n")
}

// archiveFlags parses a subcommand's flags; done is set (with the exit
// code) after --help or a bad flag.
func (c *cli) archiveFlags(sub archiveCommand, args []string) (a *archiveArgs, code int, done bool) {
	fset := flag.NewFlagSet("pbem archive "+sub.name, flag.ContinueOnError)
	a = &archiveArgs{name: sub.name}
	a.data = fset.String("data", archive.DefaultDir, "the data directory `DIR` holding the archive (the referee's store), or the postgres:// URL of a PostgreSQL store")
	switch sub.name {
	case "explore":
		fset.StringVar(&a.filter.Event, "event", "", "only games of the event `E` (equal to the Event tag, any case)")
		fset.StringVar(&a.filter.Player, "player", "", "only games where a side's tag (a player) contains `P` (any case)")
		fset.StringVar(&a.filter.Since, "since", "", "only games dated `DATE` (YYYY.MM.DD) or later, by the Date tag")
		a.position = fset.String("position", "", "explore from the position `TEXT` (docs/NOTATION.md, \"Positions\") instead of plies from the start")
		a.players = fset.Int("players", 0, "the seats `N` of the game (rpp; 0: the default)")
	case "export", "list", "search", "duplicates":
		fset.StringVar(&a.filter.Game, "game", "", "only games of the game `G` (a game id, see pbem games)")
		fset.StringVar(&a.filter.Event, "event", "", "only games of the event `E` (equal to the Event tag, any case)")
		fset.StringVar(&a.filter.Player, "player", "", "only games where a side's tag (a player) contains `P` (any case)")
		fset.StringVar(&a.filter.Since, "since", "", "only games dated `DATE` (YYYY.MM.DD) or later, by the Date tag")
	case "crosstable", "ratings":
		fset.StringVar(&a.filter.Game, "game", "", "only games of the game `G` (a game id, see pbem games)")
	}
	if sub.name == "search" {
		a.position = fset.String("position", "", "only games through the position `TEXT` (docs/NOTATION.md, \"Positions\"; the game is the one whose notation reads it, or --game)")
		a.after = fset.String("after", "", "only games through the position after the `PLIES` from the start, written as in a record and separated by blanks (needs --game)")
		a.players = fset.Int("players", 0, "the seats `N` of the game for --after (rpp; 0: the default)")
		a.limit = fset.Int("limit", searchLimit, "with --position or --after, show `N` games at a time, the newest first")
		a.page = fset.Int("page", 1, "with --position or --after, show the page `P` of N games (1: the newest)")
	}
	switch sub.name {
	case "export":
		a.format = fset.String("format", archive.PGN, "output `FORMAT`: pgn (a canonical record collection), json (one object per line: tags, plies, result) or trf (the tournament EVENT, by name or T<id>, as a FIDE tournament report for pairing engines)")
	case "crosstable", "ratings":
		a.format = fset.String("format", "text", "output `FORMAT`: text or csv")
	}
	fset.Usage = func() {
		fmt.Fprintf(fset.Output(), "Usage: pbem archive %s %s\n\n%s.\n\nOptions:\n", sub.name, sub.args, sub.summary)
		fset.PrintDefaults()
	}
	if c.helpAsked(fset, args) {
		return a, 0, true
	}
	a.pos, code, done = c.parse(fset, args)
	return a, code, done
}

// archiveFail reports an error of the subcommand and returns exit status 2.
func (c *cli) archiveFail(a *archiveArgs, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	msg = strings.TrimPrefix(msg, "archive: ")
	fmt.Fprintf(c.stderr, "pbem archive %s: %s\n", a.name, msg)
	return 2
}

// archiveOpen opens the archive. Only import creates one: the other subcommands
// refuse a data directory without a database, which is most likely a
// mistyped --data.
func (c *cli) archiveOpen(a *archiveArgs, create bool) (*archive.Store, int) {
	if !create && !archive.IsPostgresURL(*a.data) {
		if _, err := os.Stat(filepath.Join(*a.data, archive.DBFile)); errors.Is(err, fs.ErrNotExist) {
			return nil, c.archiveFail(a, "no archive in %s (archive games with pbem archive import, or give --data DIR)", *a.data)
		}
	}
	s, err := archive.OpenStore(context.Background(), *a.data, nil)
	if err != nil {
		return nil, c.archiveFail(a, "%v", err)
	}
	return s, 0
}

func runArchiveImport(c *cli, a *archiveArgs) int {
	if len(a.pos) == 0 {
		return c.archiveFail(a, "expected record files to import (- for standard input)")
	}
	s, code := c.archiveOpen(a, true)
	if s == nil {
		return code
	}
	defer s.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(checkGCPercent))
	if limit := debug.SetMemoryLimit(-1); limit > checkMemLimit {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(checkMemLimit))
	}
	ctx := context.Background()
	im := s.NewImporter(referee.Lookup, 0)
	ioErr := false
	var storeErr error
	out := bufio.NewWriter(c.stdout)
	defer out.Flush()
	for _, f := range a.pos {
		name, r, size, err := c.open(f)
		if err != nil {
			fmt.Fprintf(c.stderr, "pbem archive import: %v\n", err)
			ioErr = true
			continue
		}
		bar := c.progress(name, size)
		storeErr = im.Read(ctx, name, r, func(ch *notation.Checked) {
			bar(ch.Offset)
			printProblems(out, ch)
		})
		bar(-1)
		r.Close()
		if re := (*archive.ReadError)(nil); errors.As(storeErr, &re) {
			// The games read before the error are imported.
			out.Flush()
			fmt.Fprintf(c.stderr, "pbem archive import: %v\n", re.Err)
			ioErr = true
			storeErr = nil
		}
		if storeErr != nil {
			break
		}
	}
	if storeErr == nil {
		storeErr = im.Flush(ctx)
	}
	st := im.Stats()
	for _, d := range st.Duplicates {
		fmt.Fprintf(out, "%s: game %d, archived as #%d: possible duplicate of #%d (the same moves under other tags)\n", d.File, d.Index, d.ID, d.Of)
	}
	dups := ""
	if len(st.Duplicates) > 0 {
		dups = fmt.Sprintf(", %d possible duplicates (pbem archive duplicates lists them)", len(st.Duplicates))
	}
	fmt.Fprintf(out, "imported %d games, %d plies: %d archived, %d already archived, %d invalid (%d errors)%s\n",
		st.Games, st.Plies, st.Added, st.Known, st.Invalid, st.Problems, dups)
	switch {
	case storeErr != nil:
		out.Flush()
		fmt.Fprintf(c.stderr, "pbem archive import: %v; the games counted as archived are stored, the others are not\n",
			strings.TrimPrefix(storeErr.Error(), "archive: "))
		return 2
	case ioErr:
		return 2
	case st.Invalid > 0:
		return 1
	}
	return 0
}

// printProblems prints a checked game's problems as pbem check does: one
// line each, then the board before each illegal ply.
func printProblems(w *bufio.Writer, ch *notation.Checked) {
	for _, p := range ch.Problems {
		fmt.Fprintln(w, p)
	}
	for _, p := range ch.Problems {
		if p.Board != "" {
			fmt.Fprintf(w, "board before ply %d of game %d:\n%s\n", p.Ply, p.Game, p.Board)
		}
	}
}

func runArchiveExport(c *cli, a *archiveArgs) int {
	if *a.format == "trf" {
		return runArchiveExportTRF(c, a)
	}
	if len(a.pos) > 0 {
		return c.archiveFail(a, "unexpected argument %q; export takes only options", a.pos[0])
	}
	if err := a.filter.Check(referee.Lookup); err != nil {
		return c.archiveFail(a, "%v", err)
	}
	if *a.format != archive.PGN && *a.format != archive.JSON {
		return c.archiveFail(a, "unknown --format %q; expected pgn, json or trf", *a.format)
	}
	s, code := c.archiveOpen(a, false)
	if s == nil {
		return code
	}
	defer s.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(checkGCPercent))
	bad := 0
	_, err := s.Export(context.Background(), c.stdout, referee.Lookup, a.filter, &archive.ExportOptions{
		Format: *a.format,
		Invalid: func(id int64, problems []*notation.Problem) {
			bad++
			for _, p := range problems {
				fmt.Fprintf(c.stderr, "pbem archive export: archived game %d no longer checks, not exported: %v\n", id, p)
			}
		},
	})
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	if bad > 0 {
		return 1
	}
	return 0
}

func runArchiveList(c *cli, a *archiveArgs) int {
	byPosition := false
	if a.name == "search" {
		var code int
		if byPosition, code = c.searchPosition(a); code != 0 {
			return code
		}
		if len(a.pos) == 0 && !byPosition {
			return c.archiveFail(a, "expected words to search for, --position TEXT or --after PLIES")
		}
		if *a.limit < 1 || *a.limit > archive.PositionCountLimit {
			return c.archiveFail(a, "bad --limit %d; expected a number of games from 1 to %d", *a.limit, archive.PositionCountLimit)
		}
		if *a.page < 1 || (*a.page-1)**a.limit > maxSearchOffset {
			return c.archiveFail(a, "bad --page %d; expected a page from 1 to %d", *a.page, maxSearchOffset / *a.limit + 1)
		}
		if !byPosition && (*a.limit != searchLimit || *a.page != 1) {
			return c.archiveFail(a, "--limit and --page page a search by position; expected --position TEXT or --after PLIES with them")
		}
		a.filter.Text = a.pos
	} else if len(a.pos) > 0 {
		return c.archiveFail(a, "unexpected argument %q; to search for words use pbem archive search", a.pos[0])
	}
	a.filter.Duplicates = a.name == "duplicates"
	if err := a.filter.Check(referee.Lookup); err != nil {
		return c.archiveFail(a, "%v", err)
	}
	s, code := c.archiveOpen(a, false)
	if s == nil {
		return code
	}
	defer s.Close()
	w := bufio.NewWriter(c.stdout)
	if byPosition {
		return c.archivePositionPage(a, s, w)
	}
	err := s.Query(context.Background(), referee.Lookup, a.filter, func(fd *archive.Found) error {
		line := listLine(fd)
		if a.filter.Duplicates {
			same := make([]string, len(fd.Same))
			for i, id := range fd.Same {
				same[i] = "#" + strconv.FormatInt(id, 10)
			}
			line = strings.TrimSuffix(line, "\n") + "\tsame moves as " + strings.Join(same, ", ") + "\n"
		}
		_, err := w.WriteString(line)
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	return 0
}

// archivePositionPage writes a page of the games through the filter's
// position, the newest first, each with the plies where it stands there,
// and says on stderr how many games are found in all and which these are.
func (c *cli) archivePositionPage(a *archiveArgs, s *archive.Store, w *bufio.Writer) int {
	page, err := s.SearchPosition(context.Background(), referee.Lookup, a.filter, nil, *a.limit, (*a.page-1)**a.limit)
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	for _, fd := range page.Games {
		plies := make([]string, len(fd.Plies))
		for i, p := range fd.Plies {
			plies[i] = strconv.Itoa(p)
		}
		w.WriteString(strings.TrimSuffix(listLine(fd), "\n") + "\tply " + strings.Join(plies, ",") + "\n")
	}
	if err := w.Flush(); err != nil {
		return c.archiveFail(a, "%v", err)
	}
	total := strconv.Itoa(page.Total)
	if page.More {
		total = "more than " + total
	}
	first := (*a.page-1)**a.limit + 1
	switch {
	case len(page.Games) == 0:
		fmt.Fprintf(c.stderr, "pbem archive search: %s games through the position; none on page %d\n", total, *a.page)
	default:
		fmt.Fprintf(c.stderr, "pbem archive search: %s games through the position; these are %d to %d, the newest first", total, first, first+len(page.Games)-1)
		if page.More || first+len(page.Games)-1 < page.Total {
			fmt.Fprintf(c.stderr, " (--page %d for more)", *a.page+1)
		}
		fmt.Fprintln(c.stderr)
	}
	return 0
}

// searchPosition sets the filter's position from --position or --after;
// byPosition reports whether either was given, code is non-zero after an
// error (reported).
func (c *cli) searchPosition(a *archiveArgs) (byPosition bool, code int) {
	switch {
	case *a.position != "" && *a.after != "":
		return false, c.archiveFail(a, "--position and --after both given; expected one of them")
	case *a.after != "":
		if a.filter.Game == "" {
			return false, c.archiveFail(a, "--after needs the game: expected --game G")
		}
		text, err := archive.AfterPlies(referee.Lookup, a.filter.Game, engine.Options{Players: *a.players}, *a.after)
		if err != nil {
			return false, c.archiveFail(a, "--after: %v", strings.TrimPrefix(err.Error(), "archive: "))
		}
		a.filter.Position = text
		return true, 0
	case *a.position == "":
		return false, 0
	}
	a.filter.Position = *a.position
	if a.filter.Game != "" {
		return true, 0
	}
	// The game is the one whose notation reads the text.
	var read, why []string
	for _, g := range referee.Games() {
		id := g.Rules().ID()
		if _, err := archive.ReadPosition(referee.Lookup, id, engine.Options{}, *a.position); err != nil {
			why = append(why, "  "+strings.TrimPrefix(err.Error(), "archive: "))
		} else {
			read = append(read, id)
		}
	}
	if len(read) != 1 {
		return false, c.archiveFail(a, "--position %q is the position text of %d games; expected one (give --game G):\n%s",
			*a.position, len(read), strings.Join(why, "\n"))
	}
	a.filter.Game = read[0]
	return true, 0
}

// listLine is one game as list and search show it: tab-separated id,
// date, game, event, round, sides (Side: player; ...) and result, with ?
// for what the record does not say.
func listLine(fd *archive.Found) string {
	field := func(v string) string {
		v = strings.Join(strings.Fields(v), " ")
		if v == "" {
			return "?"
		}
		return v
	}
	var sides []string
	for _, sd := range fd.Sides {
		sides = append(sides, sd.Name+": "+field(sd.Player))
	}
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t%s\t%s\n", fd.ID, field(fd.Date), fd.Game, field(fd.Event), field(fd.Round),
		field(strings.Join(sides, "; ")), fd.Result)
}

func runArchiveExplore(c *cli, a *archiveArgs) int {
	if len(a.pos) == 0 {
		return c.archiveFail(a, "expected the game and the plies from the start, e.g. pbem archive explore ziggurat43 Se3-e4")
	}
	a.filter.Game = a.pos[0]
	codec, err := referee.Lookup(a.filter.Game)
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	a.filter.Game = codec.Rules().ID()
	a.filter.Options = engine.Options{Players: *a.players}
	plies := strings.Join(a.pos[1:], " ")
	switch {
	case *a.position != "" && plies != "":
		return c.archiveFail(a, "plies and --position both given; expected one of them")
	case *a.position != "":
		a.filter.Position = *a.position
	default:
		text, err := archive.AfterPlies(referee.Lookup, a.filter.Game, a.filter.Options, plies)
		if err != nil {
			return c.archiveFail(a, "%v", err)
		}
		a.filter.Position = text
	}
	s, code := c.archiveOpen(a, false)
	if s == nil {
		return code
	}
	defer s.Close()
	played, err := s.Explore(context.Background(), referee.Lookup, a.filter)
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	text, err := archive.ReadPosition(referee.Lookup, a.filter.Game, a.filter.Options, a.filter.Position)
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	st, _ := engine.ParsePosition(codec.Rules(), a.filter.Options, text)
	w := bufio.NewWriter(c.stdout)
	fmt.Fprintf(w, "position %s\n", text)
	if len(played) == 0 {
		fmt.Fprintf(w, "no archived game plays on from this position\n")
	} else {
		fmt.Fprintf(w, "ply\tgames\twins\tdraws\tlosses\tunfinished\taverage rank (results for %s, to move)\n", st.Sides()[st.ToMove()])
		for _, p := range played {
			avg := "-"
			if p.Finished() > 0 {
				avg = strconv.FormatFloat(p.AverageRank(), 'f', 2, 64)
			}
			fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\t%s\n", p.Ply, p.Games, p.Wins, p.Draws, p.Losses, p.Unfinished, avg)
		}
	}
	if err := w.Flush(); err != nil {
		return c.archiveFail(a, "%v", err)
	}
	return 0
}

func runArchiveCrosstable(c *cli, a *archiveArgs) int {
	if len(a.pos) != 1 {
		return c.archiveFail(a, "expected one event name, got %d arguments", len(a.pos))
	}
	if *a.format != "text" && *a.format != "csv" {
		return c.archiveFail(a, "unknown --format %q; expected text or csv", *a.format)
	}
	if err := a.filter.Check(referee.Lookup); err != nil {
		return c.archiveFail(a, "%v", err)
	}
	s, code := c.archiveOpen(a, false)
	if s == nil {
		return code
	}
	defer s.Close()
	t, err := s.Crosstable(context.Background(), referee.Lookup, a.pos[0], a.filter)
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	if len(t.Players) == 0 {
		fmt.Fprintf(c.stderr, "pbem archive crosstable: no decided games between known players in event %q\n", a.pos[0])
		return 1
	}
	if *a.format == "csv" {
		err = t.WriteCSV(c.stdout)
	} else {
		err = t.WriteText(c.stdout)
	}
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	return 0
}

func runArchiveRatings(c *cli, a *archiveArgs) int {
	if len(a.pos) > 0 {
		return c.archiveFail(a, "unexpected argument %q; ratings takes only options", a.pos[0])
	}
	if *a.format != "text" && *a.format != "csv" {
		return c.archiveFail(a, "unknown --format %q; expected text or csv", *a.format)
	}
	if err := a.filter.Check(referee.Lookup); err != nil {
		return c.archiveFail(a, "%v", err)
	}
	s, code := c.archiveOpen(a, false)
	if s == nil {
		return code
	}
	defer s.Close()
	lists, err := s.Ratings(context.Background(), referee.Lookup, a.filter.Game)
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	if *a.format == "csv" {
		err = archive.WriteRatingsCSV(c.stdout, lists)
	} else {
		if len(lists) == 0 {
			fmt.Fprintf(c.stderr, "pbem archive ratings: no rated, decided games between known players\n")
			return 1
		}
		err = archive.WriteRatingsText(c.stdout, lists)
	}
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	return 0
}

// migrateCommand is the entry of pbem archive migrate in the subcommand
// list (runArchive dispatches it before the shared flags: it has no
// --data, but a store on each side).
var migrateCommand = archiveCommand{"migrate", "--from DATA_DIR --to postgres://... [--force]",
	"move a club's whole store from SQLite in DATA_DIR into an empty PostgreSQL database, ids kept, then check it game by game", nil}

// runArchiveMigrate is `pbem archive migrate --from DIR --to URL`: every
// table of the SQLite store copied into PostgreSQL (archive.CopyStore),
// then both read back and compared (archive.CompareStores). Exit status 0
// when the stores are the same, 1 when they differ or the copy failed, 2
// for a usage error.
func runArchiveMigrate(c *cli, args []string) int {
	fs := flag.NewFlagSet("pbem archive migrate", flag.ContinueOnError)
	from := fs.String("from", "", "the data directory `DATA_DIR` of the SQLite store to copy (not changed, but brought to this pbem's schema)")
	to := fs.String("to", "", "the `URL` (postgres://USER@HOST[:PORT]/DATABASE) of an empty PostgreSQL database to copy it into")
	force := fs.Bool("force", false, "copy into a database that holds a pbem store of this pbem's schema version with no rows (one a pbem started on, say), instead of an empty one")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: pbem archive %s %s\n\n%s.\n\n"+
			"pbem serve must not run on DATA_DIR meanwhile (its lock is taken). The copy is one\n"+
			"transaction: a copy that fails leaves the database as it was. Exit status 1\n"+
			"when the check finds a difference, naming the first game that differs.\n\nOptions:\n",
			migrateCommand.name, migrateCommand.args, migrateCommand.summary)
		fs.PrintDefaults()
	}
	a := &archiveArgs{name: migrateCommand.name}
	if c.helpAsked(fs, args) {
		return 0
	}
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	switch {
	case len(pos) > 0:
		return c.archiveFail(a, "unexpected argument %q; migrate takes only options", pos[0])
	case *from == "" || *to == "":
		return c.archiveFail(a, "expected --from DATA_DIR and --to postgres://...")
	case archive.IsPostgresURL(*from):
		return c.archiveFail(a, "--from %s: expected the data directory of a SQLite store", *from)
	case !archive.IsPostgresURL(*to):
		return c.archiveFail(a, "--to %s: expected a postgres:// URL", *to)
	}
	if _, err := os.Stat(filepath.Join(*from, archive.DBFile)); err != nil {
		return c.archiveFail(a, "--from %s: no store there (%s): %v", *from, archive.DBFile, err)
	}
	fail := func(format string, args ...any) int {
		c.archiveFail(a, format, args...)
		return 1
	}
	// The referee must not write the source while it is copied: hold the
	// lock pbem serve holds.
	unlock, err := lockData(*from)
	if err != nil {
		if errors.Is(err, errLocked) {
			return fail("%v; stop pbem serve first", err)
		}
		return fail("%v", err)
	}
	defer unlock()

	ctx := context.Background()
	st, err := archive.InspectPostgres(ctx, *to)
	if err != nil {
		return fail("%v", err)
	}
	if st.Tables > 0 {
		what := fmt.Sprintf("%d tables", st.Tables)
		if st.Version > 0 {
			what += fmt.Sprintf(", a pbem store of schema version %d", st.Version)
		}
		switch {
		case !*force:
			return fail("--to %s is not empty (%s); expected an empty database (--force copies into a pbem store of schema version %d that holds no rows)",
				archive.Redacted(*to), what, archive.SchemaVersion())
		case st.Version != archive.SchemaVersion():
			return fail("--to %s holds %s; --force expected a pbem store of this pbem's schema version, %d", archive.Redacted(*to), what, archive.SchemaVersion())
		}
	}
	src, err := archive.Open(ctx, *from, nil)
	if err != nil {
		return fail("%v", err)
	}
	defer src.Close()
	dst, err := archive.OpenStore(ctx, *to, nil)
	if err != nil {
		return fail("%v", err)
	}
	defer dst.Close()
	out := bufio.NewWriter(c.stdout)
	defer out.Flush()
	rep, err := archive.CopyStore(ctx, src, dst)
	if err != nil {
		if errors.Is(err, archive.ErrTargetNotEmpty) {
			return fail("--to %s: %v; nothing was copied", dst.Path(), strings.TrimPrefix(err.Error(), "archive: "))
		}
		return fail("%v; nothing was copied", err)
	}
	fmt.Fprintf(out, "copied %d rows of %d tables from %s to %s in %v\n", rep.Rows, len(rep.Tables), src.Path(), dst.Path(), rep.Elapsed.Round(time.Millisecond))
	for _, t := range rep.Tables {
		fmt.Fprintf(out, "  %-20s %8d\n", t.Name, t.Rows)
	}
	began := time.Now()
	cmp, err := archive.CompareStores(ctx, src, dst)
	if err != nil {
		out.Flush()
		return fail("checking the copy: %v", err)
	}
	if !cmp.Equal() {
		out.Flush()
		for _, d := range cmp.Differences {
			fmt.Fprintf(c.stderr, "pbem archive migrate: %s\n", d)
		}
		first := "no game differs (another table does)"
		if cmp.FirstGame != 0 {
			first = fmt.Sprintf("the first game that differs is %d", cmp.FirstGame)
		}
		return fail("the copy in %s differs from %s: %s; do not use it (drop its tables and migrate again)", dst.Path(), src.Path(), first)
	}
	fmt.Fprintf(out, "checked %d games and %d tables in %v: the same in both\n", cmp.Games, len(cmp.Tables), time.Since(began).Round(time.Millisecond))
	return 0
}

// helpAsked answers --help (and -h) before any flag is parsed, printing
// fs's usage on stdout: c.parse would print it twice (the flag package's
// copy on stderr, then one on stdout). It reports whether it did.
func (c *cli) helpAsked(fs *flag.FlagSet, args []string) bool {
	for _, arg := range args {
		if arg == "--" {
			break
		}
		if arg == "-h" || arg == "-help" || arg == "--help" || arg == "--h" {
			fs.SetOutput(c.stdout)
			fs.Usage()
			return true
		}
	}
	return false
}
