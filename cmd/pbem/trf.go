package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"pbem/archive"
	"pbem/referee/tournament"
)

// runTournament is `pbem tournament pair FILE`: the tools a director uses
// on the tournament files (FIDE TRF) that pairing engines read and write.
func runTournament(c *cli, args []string) int {
	usage := func(w io.Writer) {
		fmt.Fprintf(w, "Usage: pbem tournament pair [--format text|pairs] FILE\n\n"+
			"Pair the next round of a Swiss event from its tournament report (FIDE TRF;\n"+
			"- : standard input) by the Dutch system, as pbem's referee pairs it: the\n"+
			"same file in a FIDE-endorsed engine gives the same round.\n\n"+
			"Get the report of a running tournament with pbem archive export --format trf EVENT.\n")
	}
	if len(args) == 0 {
		usage(c.stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(c.stdout)
		return 0
	case "pair":
	default:
		fmt.Fprintf(c.stderr, "pbem tournament: unknown subcommand %q; expected pair\n", args[0])
		return 2
	}
	fset := flag.NewFlagSet("pbem tournament pair", flag.ContinueOnError)
	format := fset.String("format", "text", "output `FORMAT`: text (boards with names) or pairs (the number of pairs, then one line a pair, White's and Black's pairing numbers, a bye as N 0)")
	fset.Usage = func() {
		usage(fset.Output())
		fmt.Fprintf(fset.Output(), "\nOptions:\n")
		fset.PrintDefaults()
	}
	pos, code, done := c.parse(fset, args[1:])
	if done {
		return code
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(c.stderr, "pbem tournament pair: "+format+"\n", args...)
		return 2
	}
	if len(pos) != 1 {
		return fail("expected one tournament report FILE (- for standard input), got %d arguments", len(pos))
	}
	if *format != "text" && *format != "pairs" {
		return fail("unknown --format %q; expected text or pairs", *format)
	}
	var in io.Reader = c.stdin
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		in = f
	}
	e, err := tournament.ReadTRF(in)
	if err != nil {
		return fail("%s: %v", pos[0], strings.TrimPrefix(err.Error(), "tournament: "))
	}
	rd, err := e.Pair()
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "tournament: ")
		fmt.Fprintf(c.stderr, "pbem tournament pair: %s: %s\n", pos[0], msg)
		if errors.Is(err, tournament.ErrNoValidPairing) || errors.Is(err, tournament.ErrFinished) {
			return 1
		}
		return 2
	}
	w := bufio.NewWriter(c.stdout)
	no := func(id string) int { n, _ := strconv.Atoi(id); return n }
	name := func(id string) string { return e.Players[no(id)-1].Name }
	switch *format {
	case "pairs":
		fmt.Fprintln(w, len(rd.Games)+len(rd.Byes))
		for _, g := range rd.Games {
			fmt.Fprintf(w, "%d %d\n", no(g.Players[0]), no(g.Players[1]))
		}
		for _, b := range rd.Byes {
			fmt.Fprintf(w, "%d 0\n", no(b))
		}
	default:
		fmt.Fprintf(w, "%s: round %d of %d\n\n", cmpOr(e.Name, "Swiss"), rd.Number, e.Rounds)
		for _, g := range rd.Games {
			fmt.Fprintf(w, "%3d. %4s %s - %s %s\n", g.Board, g.Players[0], name(g.Players[0]), g.Players[1], name(g.Players[1]))
		}
		for _, b := range rd.Byes {
			fmt.Fprintf(w, "bye: %s %s\n", b, name(b))
		}
	}
	if err := w.Flush(); err != nil {
		return fail("%v", err)
	}
	return 0
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// runArchiveExportTRF is `pbem archive export --format trf EVENT`: the
// tournament named EVENT (or T<id>) as a tournament report.
func runArchiveExportTRF(c *cli, a *archiveArgs) int {
	if len(a.pos) != 1 {
		return c.archiveFail(a, "--format trf exports one tournament: expected its name (EVENT) or T<id>, got %d arguments", len(a.pos))
	}
	if f := a.filter; f.Game != "" || f.Event != "" || f.Player != "" || f.Since != "" {
		return c.archiveFail(a, "--format trf exports a whole tournament; --game, --event, --player and --since do not apply")
	}
	s, code := c.archiveOpen(a, false)
	if s == nil {
		return code
	}
	defer s.Close()
	ctx := context.Background()
	arg := a.pos[0]
	var t *archive.Tournament
	if id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimPrefix(arg, "T"), "t"), 10, 64); err == nil && len(arg) > 1 && (arg[0] == 'T' || arg[0] == 't') {
		if t, err = s.Tournament(ctx, id); err != nil {
			return c.archiveFail(a, "%v", err)
		}
	} else {
		ts, err := s.TournamentsNamed(ctx, arg)
		if err != nil {
			return c.archiveFail(a, "%v", err)
		}
		switch len(ts) {
		case 0:
			return c.archiveFail(a, "no tournament named %q", arg)
		case 1:
			t = ts[0]
		default:
			var ids []string
			for _, t := range ts {
				ids = append(ids, fmt.Sprintf("T%d", t.ID))
			}
			return c.archiveFail(a, "%d tournaments are named %q (%s); give one as T<id>", len(ts), arg, strings.Join(ids, ", "))
		}
	}
	e, err := tournamentEvent(t)
	if err != nil {
		return c.archiveFail(a, "%v", err)
	}
	if err := e.WriteTRF(c.stdout); err != nil {
		return c.archiveFail(a, "%v", strings.TrimPrefix(err.Error(), "tournament: "))
	}
	return 0
}
