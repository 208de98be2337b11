package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"pbem/docs"
)

// runVersion prints the module version and the VCS revision from the
// build information, e.g. "pbem (devel) 8b243a8f2c1e 2026-11-24T22:55:52Z
// (modified) go1.26.8".
func runVersion(c *cli, args []string) int {
	fs := c.flags("version")
	pos, code, done := c.parse(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		fmt.Fprintf(c.stderr, "pbem version: expected no arguments, got %q\n", pos)
		return 2
	}
	fmt.Fprintln(c.stdout, versionLine(debug.ReadBuildInfo()))
	return 0
}

// versionLine formats build information: module version, revision (12
// digits), commit time and whether the tree was modified, Go version.
func versionLine(bi *debug.BuildInfo, ok bool) string {
	if !ok {
		return "pbem (no build information)"
	}
	w := []string{"pbem", bi.Main.Version}
	if bi.Main.Version == "" {
		w[1] = "(devel)"
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		w = append(w, rev[:min(12, len(rev))])
		if t := settings["vcs.time"]; t != "" {
			w = append(w, t)
		}
		if settings["vcs.modified"] == "true" {
			w = append(w, "(modified)")
		}
	} else {
		w = append(w, "(no VCS revision)")
	}
	return strings.Join(append(w, bi.GoVersion), " ")
}

// runHelp prints the usage of a command, exactly as COMMAND --help does,
// or the rules or the notation; with no argument, the list of commands.
func runHelp(c *cli, args []string) int {
	if len(args) == 0 {
		c.usage(c.stdout)
		return 0
	}
	if len(args) > 1 {
		fmt.Fprintf(c.stderr, "pbem help: expected one command or topic, got %d arguments\n", len(args))
		return 2
	}
	switch strings.ToLower(args[0]) {
	case "rules":
		fmt.Fprint(c.stdout, docs.Rules)
		return 0
	case "notation":
		fmt.Fprint(c.stdout, docs.Notation)
		return 0
	case "-h", "--help", "-help":
		return c.main([]string{"help", "help"})
	}
	for _, cmd := range commands() {
		if cmd.name == args[0] {
			if cmd.name == "help" {
				fs := c.flags("help")
				fs.SetOutput(c.stdout)
				fs.Usage()
				return 0
			}
			return cmd.run(c, []string{"--help"})
		}
	}
	fmt.Fprintf(c.stderr, "pbem help: unknown command or topic %q; expected one of %s, rules, notation\n",
		args[0], strings.Join(names(), ", "))
	return 2
}
