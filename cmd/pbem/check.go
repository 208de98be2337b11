package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"pbem/notation"
	"pbem/referee"
)

// checkGCPercent trades memory for speed while checking: reading records
// allocates many short-lived values, and the live heap stays a few batches
// of games (under 10 MB), so a lazy collector costs little memory;
// checkMemLimit caps what it may cost (the collector runs when the heap
// nears it), so that the memory of `pbem check` stays flat whatever the
// size of its input. checkReuseGCPercent is the setting of `pbem check`,
// which reuses its games' memory (notation.Checker.Reuse), their
// engine.Lines included, and so allocates less than half as much: there a
// lazier setting saves fewer collections than its larger heap costs in
// page faults (at 1000 the castles corpus took 6% more CPU time than at
// 300, 72 MB resident instead of 53; at 300, 5 to 13% more than at 200
// for castles, ziggurat, elevation and ziggurat43, 55 MB instead of 46;
// rpp, whose games hold more, is alike at 200 and 300 and slower at 100).
const (
	checkGCPercent      = 1000
	checkReuseGCPercent = 200
	checkMemLimit       = 64 << 20
)

// progressMin is the input size from which `pbem check` shows a progress
// bar on a terminal.
const progressMin = 4 << 20

func runCheck(c *cli, args []string) int {
	fs := c.flags("check")
	fix := fs.Bool("fix", false, "rewrite each file with every illegal or unreadable ply repaired that has exactly one suggestion making the rest of its game legal (a comment quotes what was written)")
	files, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	if *fix && slices.Contains(files, "-") {
		fmt.Fprintf(c.stderr, "pbem check: --fix rewrites files; standard input (-) has none to rewrite (pbem fmt --fix writes the repaired records to standard output)\n")
		return 2
	}
	defer debug.SetGCPercent(debug.SetGCPercent(checkReuseGCPercent))
	if limit := debug.SetMemoryLimit(-1); limit > checkMemLimit {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(checkMemLimit))
	}
	var games, plies, errs int
	ioErr := false
	// each keeps nothing of a game: its memory is reused.
	checker := &notation.Checker{Lookup: referee.Lookup, NoCanon: true, Reuse: true}
	for _, f := range files {
		name, in, size, err := c.open(f)
		if err != nil {
			fmt.Fprintf(c.stderr, "pbem check: %v\n", err)
			ioErr = true
			continue
		}
		bar := c.progress(name, size)
		out := bufio.NewWriterSize(c.stdout, 64<<10)
		typo := 0
		each := func(ch *notation.Checked) {
			bar(ch.Offset)
			typo += ch.Typography
			games++
			if ch.Game != nil {
				plies += ch.Game.Plies
			}
			errs += len(ch.Problems)
			for _, p := range ch.Problems {
				fmt.Fprintln(out, p)
			}
			for _, p := range ch.Problems {
				if p.Board != "" {
					fmt.Fprintf(out, "board before ply %d of game %d:\n%s\n", p.Ply, p.Game, p.Board)
				}
			}
		}
		if *fix {
			err = c.checkFix(out, f, name, in, each)
		} else {
			err = checker.Run(name, in, each)
		}
		if typo > 0 {
			fmt.Fprintf(out, "%s: read %s in plain form (dashes as -, × as x, curly quotes as \", no-break and full-width spaces as blanks)\n", name, count(typo, "typographic character"))
		}
		out.Flush()
		in.Close()
		bar(-1)
		if err != nil {
			fmt.Fprintf(c.stderr, "pbem check: %v\n", err)
			ioErr = true
		}
	}
	fmt.Fprintf(c.stdout, "checked %d games, %d plies: %d errors\n", games, plies, errs)
	switch {
	case ioErr:
		return 2
	case errs > 0:
		return 1
	}
	return 0
}

// checkFix checks a file as `pbem check` does (each sees every game) and
// rewrites it with its repairs: each game with a unique repair (see
// formatGame) or none needed is written in canonical form, and each game
// --fix cannot repair is copied as it was written, byte for byte (read
// again from the file), so that one game without a unique repair does
// not keep the others broken. It streams: each game is written to the
// replacement as it is checked, so that its memory does not grow with the
// file; the replacement is renamed into place only at the end, and only
// when something was repaired.
func (c *cli) checkFix(out io.Writer, f, name string, in io.Reader, each func(*notation.Checked)) error {
	a, err := createAtomic(f)
	if err != nil {
		return err
	}
	defer a.abort()
	raw, err := os.Open(f)
	if err != nil {
		return err
	}
	defer raw.Close()
	var left []int                   // the numbers of the games left as written
	pending, start := false, 0       // a game left as written, from start to the next game
	copyRaw := func(end int) error { // raw[start:end], or to the end when end < 0
		if _, err := raw.Seek(int64(start), io.SeekStart); err != nil {
			return err
		}
		var r io.Reader = raw
		if end >= 0 {
			r = io.LimitReader(raw, int64(end-start))
		}
		_, err := io.Copy(a, r)
		return err
	}
	var copyErr error
	repaired := 0
	checker := &notation.Checker{Lookup: referee.Lookup} // canonical spellings: the games are written
	err = checker.Run(name, in, func(ch *notation.Checked) {
		each(ch)
		if pending && copyErr == nil {
			copyErr = copyRaw(ch.Start)
			pending = false
		}
		var buf bytes.Buffer
		ok, n := formatGame(&buf, ch, true)
		if !ok {
			left = append(left, ch.Index)
			pending, start = true, ch.Start
			return
		}
		a.Write(buf.Bytes())
		repaired += n
	})
	if err == nil && pending {
		err = copyRaw(-1)
	}
	if err == nil {
		err = copyErr
	}
	if err != nil {
		return err
	}
	leftNote := ""
	if len(left) > 0 {
		leftNote = fmt.Sprintf("; %s left as written (%s)%s", count(len(left), "game"), gameNumbers(left), fixNote(true))
	}
	if repaired == 0 {
		fmt.Fprintf(out, "%s: nothing repaired%s\n", name, leftNote)
		return nil
	}
	if err := a.commit(); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: repaired %s and rewrote the file in canonical form%s\n", name, count(repaired, "ply"), leftNote)
	return nil
}

// gameNumbers names games by their numbers in the file: "game 3",
// "games 3, 7 and 9", the first ten of a longer list and how many more.
func gameNumbers(ns []int) string {
	const most = 10
	var parts []string
	for i, n := range ns {
		if i == most {
			parts = append(parts, fmt.Sprintf("%d more", len(ns)-most))
			break
		}
		parts = append(parts, strconv.Itoa(n))
	}
	if len(ns) == 1 {
		return "game " + parts[0]
	}
	return "games " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// read returns a file's display name and contents; "-" is standard input.
func (c *cli) read(f string) (string, []byte, error) {
	if f == "-" {
		data, err := io.ReadAll(c.stdin)
		return "<stdin>", data, err
	}
	data, err := os.ReadFile(f)
	return f, data, err
}

// open opens a file to read as a stream, with its display name and size
// (0 when unknown); "-" is standard input.
func (c *cli) open(f string) (string, io.ReadCloser, int, error) {
	if f == "-" {
		size := 0
		if st, ok := c.stdin.(interface{ Stat() (os.FileInfo, error) }); ok {
			if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
				size = int(fi.Size())
			}
		}
		return "<stdin>", io.NopCloser(c.stdin), size, nil
	}
	file, err := os.Open(f)
	if err != nil {
		return f, nil, 0, err
	}
	size := 0
	if fi, err := file.Stat(); err == nil {
		size = int(fi.Size())
	}
	return f, file, size, nil
}

// progress returns a function that shows how far checking has come (an
// offset into the input; -1 clears the bar). It does nothing unless stderr
// is a terminal and the input is large.
func (c *cli) progress(name string, total int) func(int) {
	if !c.stderrTTY || total < progressMin {
		return func(int) {}
	}
	last := -1
	return func(off int) {
		if off < 0 {
			fmt.Fprintf(c.stderr, "\r%-72s\r", "")
			return
		}
		pct := int(int64(off) * 100 / int64(total))
		if pct == last {
			return
		}
		last = pct
		const width = 40
		n := pct * width / 100
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = '.'
			if i < n {
				bar[i] = '#'
			}
		}
		fmt.Fprintf(c.stderr, "\rchecking %.20s [%s] %3d%%", name, bar, pct)
	}
}
