package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"pbem/notation"
	"pbem/referee"
)

func runFmt(c *cli, args []string) int {
	fs := c.flags("fmt")
	write := fs.Bool("w", false, "write the result back to each file instead of standard output")
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
		var out bytes.Buffer
		bad := 0
		notation.CheckFile(name, data, referee.Lookup, func(ch *notation.Checked) {
			for _, p := range ch.Problems {
				fmt.Fprintln(c.stderr, p)
			}
			if !ch.Valid() {
				bad++
				return
			}
			notation.Write(&out, ch.Game)
		})
		if bad > 0 {
			// Never rewrite a file with a game we cannot read: it would be lost.
			fmt.Fprintf(c.stderr, "pbem fmt: %s: %d invalid games; not formatted\n", name, bad)
			status = max(status, 1)
			continue
		}
		if !*write {
			c.stdout.Write(out.Bytes())
			continue
		}
		if bytes.Equal(out.Bytes(), data) {
			continue
		}
		if err := writeFileAtomic(f, out.Bytes()); err != nil {
			fmt.Fprintf(c.stderr, "pbem fmt: %v\n", err)
			status = 2
		}
	}
	return status
}

// writeFileAtomic replaces a file durably: write a temporary file in the
// same directory, fsync it, rename it over the old one, fsync the directory.
// A symbolic link is followed: its target is rewritten and the link kept.
func writeFileAtomic(name string, data []byte) error {
	if target, err := filepath.EvalSymlinks(name); err == nil {
		name = target
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(name); err == nil {
		mode = st.Mode().Perm()
	}
	dir := filepath.Dir(name)
	tmp, err := os.CreateTemp(dir, ".pbem-fmt-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
