package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"pbem/notation"
	"pbem/referee"
)

func runFmt(c *cli, args []string) int {
	fs := c.flags("fmt")
	write := fs.Bool("w", false, "write the result back to each file instead of standard output")
	fix := fs.Bool("fix", false, "repair each illegal or unreadable ply that has exactly one suggestion making the rest of its game legal, with a comment quoting what was written")
	files, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(files) == 0 {
		if *write {
			fmt.Fprintf(c.stderr, "pbem fmt: -w needs files\n")
			return 2
		}
		files = []string{"-"}
	}
	if *write {
		for _, f := range files {
			if f == "-" {
				fmt.Fprintf(c.stderr, "pbem fmt: -w rewrites files; standard input (-) has none to rewrite\n")
				return 2
			}
		}
	}
	status := 0
	for _, f := range files {
		name, data, err := c.read(f)
		if err != nil {
			fmt.Fprintf(c.stderr, "pbem fmt: %v\n", err)
			status = 2
			continue
		}
		out, bad, repaired := formatRecords(name, data, *fix, func(ch *notation.Checked) {
			for _, p := range ch.Problems {
				fmt.Fprintln(c.stderr, p)
			}
		})
		if repaired > 0 {
			fmt.Fprintf(c.stderr, "pbem fmt: %s: repaired %s\n", name, count(repaired, "ply"))
		}
		if bad > 0 {
			// Never rewrite a file with a game we cannot read: it would be lost.
			fmt.Fprintf(c.stderr, "pbem fmt: %s: %d invalid games; not formatted%s\n", name, bad, fixNote(*fix))
			status = max(status, 1)
			continue
		}
		if !*write {
			c.stdout.Write(out)
			continue
		}
		if bytes.Equal(out, data) {
			continue
		}
		if err := writeFileAtomic(f, out); err != nil {
			fmt.Fprintf(c.stderr, "pbem fmt: %v\n", err)
			status = 2
		}
	}
	return status
}

// formatRecords checks the games of a record file and writes the valid
// ones canonically; with fix, a game whose every problem has exactly one
// repair is written repaired (notation.Checked.Fix). each sees every game
// first. It returns the text, the number of games left invalid, and the
// number of plies repaired.
func formatRecords(name string, data []byte, fix bool, each func(*notation.Checked)) (out []byte, bad, repaired int) {
	var b bytes.Buffer
	notation.CheckFile(name, data, referee.Lookup, func(ch *notation.Checked) {
		each(ch)
		ok, n := formatGame(&b, ch, fix)
		if !ok {
			bad++
		}
		repaired += n
	})
	return b.Bytes(), bad, repaired
}

// formatGame writes one checked game canonically to w if it is valid or,
// with fix, can be repaired (notation.Checked.Fix); ok is false for a game
// left invalid (not written), repaired the number of plies repaired.
func formatGame(w io.Writer, ch *notation.Checked, fix bool) (ok bool, repaired int) {
	if !ch.Valid() {
		if !fix {
			return false, 0
		}
		fixed, ok := ch.Fix()
		if !ok {
			return false, 0
		}
		repaired = len(fixed)
	}
	notation.Write(w, ch.Game)
	return true, repaired
}

// fixNote says why --fix left games invalid.
func fixNote(fix bool) string {
	if !fix {
		return ""
	}
	return " (--fix repairs a ply only when exactly one suggestion makes the rest of its game legal)"
}

// count writes "1 ply", "2 plies", "3 games".
func count(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	if strings.HasSuffix(one, "y") {
		return fmt.Sprintf("%d %sies", n, one[:len(one)-1])
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// writeFileAtomic replaces a file durably: write a temporary file in the
// same directory, fsync it, rename it over the old one, fsync the directory.
// A symbolic link is followed: its target is rewritten and the link kept.
func writeFileAtomic(name string, data []byte) error {
	a, err := createAtomic(name)
	if err != nil {
		return err
	}
	defer a.abort()
	a.Write(data)
	return a.commit()
}

// atomicFile is the replacement of a file being written (writeFileAtomic
// in pieces): a temporary file beside it, buffered, that commit renames
// over it and abort removes.
type atomicFile struct {
	*bufio.Writer
	name string // the file replaced (a link's target)
	mode os.FileMode
	tmp  *os.File
	done bool
}

// createAtomic starts replacing the file name (see writeFileAtomic).
func createAtomic(name string) (*atomicFile, error) {
	if target, err := filepath.EvalSymlinks(name); err == nil {
		name = target
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), ".pbem-fmt-*")
	if err != nil {
		return nil, err
	}
	return &atomicFile{Writer: bufio.NewWriterSize(tmp, 64<<10), name: name, mode: mode, tmp: tmp}, nil
}

// commit puts what was written in place of the file, durably.
func (a *atomicFile) commit() error {
	if err := a.Flush(); err != nil {
		return err
	}
	if err := a.tmp.Chmod(a.mode); err != nil {
		return err
	}
	if err := a.tmp.Sync(); err != nil {
		return err
	}
	if err := a.tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(a.tmp.Name(), a.name); err != nil {
		return err
	}
	a.done = true
	d, err := os.Open(filepath.Dir(a.name))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// abort removes the temporary file unless commit renamed it.
func (a *atomicFile) abort() {
	if !a.done {
		a.tmp.Close()
		os.Remove(a.tmp.Name())
	}
}
