// Command pbem is a play-by-email referee for abstract board games: it
// validates and formats game records, plays random games, and (pbem serve)
// referees correspondence games by mail.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(c *cli, args []string) int
}

// cli holds the process's streams so that tests can run commands in-process.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// stderrTTY reports whether stderr is a terminal (progress bars).
	stderrTTY bool
}

func commands() []command {
	return []command{
		{"serve", "[--config FILE] [--data DIR] [--http ADDR]", "run the referee on a mailbox (default: its own mail servers on loopback)", runServe},
		{"demo", "[--games IDS] [--plies N] [--seed S] [--mail DIR]", "play a short game of each kind by mail through the embedded servers and print the transcript", runDemo},
		{"check", "[FILE ...]", "validate game records (- or none: standard input)", runCheck},
		{"show", "FILE [--game N] [--ply P]", "print the board of a recorded game after ply P", runShow},
		{"selfplay", "GAME [-n N] [--seed S] [--players K] [--board B] [--max-plies M]", "play random legal games and print their records", runSelfplay},
		{"play", "GAME [--level N] [--as SIDE] [--seed S] [--players K] [--board B]", "play a game against the computer in the terminal", runPlay},
		{"match", "GAME --a LEVEL --b LEVEL -n N [--sprt S0,S1] [-j N] [--book-plies K] [--seed S] [--players K] [--stats] [--log FILE]", "play the computer against itself at two levels and print the score", runMatch},
		{"analyse", "FILE [--level N] [--out FILE] [--side SIDE] [--seed S] [--ply-time D]", "annotate every game of a record by the computer player: ? and ?? where it scores its own choice clearly better, with its line", analyseCmd("analyse")},
		{"analyze", "FILE [--level N] [--out FILE] [--side SIDE] [--seed S] [--ply-time D]", "the same as analyse", analyseCmd("analyze")},
		{"fmt", "[-w] [FILE ...]", "rewrite game records in canonical form", runFmt},
		{"games", "", "list the games with a one-line description each", runGames},
		{"archive", "import|export|list|search|crosstable|ratings ...", "keep and query an archive of finished games", runArchive},
		{"tournament", "pair FILE", "pair the next round of a Swiss tournament report (FIDE TRF) by the Dutch system", runTournament},
		{"admin", "[--config FILE] [--data DIR] COMMAND ...", "operate a referee's store while it serves: list games, adjudicate, abort, extend clocks, replace players, block senders, resend boards", runAdmin},
		{"backup", "FILE [--config FILE] [--data DIR]", "copy a referee's store (and its embedded mail journal) consistently, also while it serves", runBackup},
		{"restore", "FILE [--config FILE] [--data DIR]", "put a backup back in place of the store (refused while a referee runs on it)", runRestore},
		{"doctor", "[--config FILE] [--data DIR] [--mail-to ADDR]", "check the configuration, mail servers, data directory, clock and DNS, and say what to fix", runDoctor},
		{"version", "", "print the module version and the VCS revision pbem was built from", runVersion},
		{"help", "[COMMAND|rules|notation]", "print the usage of a command (as COMMAND --help), or the rules or the notation", runHelp},
	}
}

func main() {
	c := &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, stderrTTY: isTerminal(os.Stderr)}
	os.Exit(c.main(os.Args[1:]))
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprintf(w, "pbem: a play-by-email referee for abstract board games\n\nUsage:\n")
	for _, cmd := range commands() {
		fmt.Fprintf(w, "  pbem %s %s\n        %s\n", cmd.name, cmd.args, cmd.summary)
	}
	fmt.Fprintf(w, "\nRun pbem COMMAND --help for the options of a command.\n")
}

func (c *cli) main(args []string) int {
	if len(args) == 0 {
		c.usage(c.stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		c.usage(c.stdout)
		return 0
	case "-version", "--version":
		return runVersion(c, nil)
	}
	for _, cmd := range commands() {
		if cmd.name == args[0] {
			return cmd.run(c, args[1:])
		}
	}
	fmt.Fprintf(c.stderr, "pbem: unknown command %q; expected one of %s\n", args[0], strings.Join(names(), ", "))
	return 2
}

func names() []string {
	var n []string
	for _, cmd := range commands() {
		n = append(n, cmd.name)
	}
	sort.Strings(n)
	return n
}

// flags returns a flag set for a subcommand whose -h/--help prints its usage.
func (c *cli) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("pbem "+name, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	for _, cmd := range commands() {
		if cmd.name == name {
			fs.Usage = func() {
				fmt.Fprintf(fs.Output(), "Usage: pbem %s %s\n\n%s.\n", cmd.name, cmd.args, cmd.summary)
				if hasFlags(fs) {
					fmt.Fprintf(fs.Output(), "\nOptions:\n")
					fs.PrintDefaults()
				}
			}
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses flags that may appear before, between or after positional
// arguments, and returns the positional ones. done is set (with the exit
// code) when parsing ends the command: --help (0) or a bad flag (2).
func (c *cli) parse(fs *flag.FlagSet, args []string) (pos []string, code int, done bool) {
	fs.SetOutput(c.stderr)
	usage := fs.Usage
	fs.Usage = func() {} // printed below, once, where it belongs
	defer func() { fs.Usage = usage }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(c.stdout)
				usage()
				return nil, 0, true
			}
			usage() // after the flag package's own line naming the bad flag
			return nil, 2, true
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, 0, false
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
