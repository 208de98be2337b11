package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/check")

// TestCheckGolden keeps the output of `pbem check` and `pbem fmt` byte for
// byte what it was when the golden files were written: problem lines in file
// order, boards, summaries and exit codes, over valid selfplay records of
// every game, hand-written records with every kind of problem, variations,
// comments and NAGs, encodings, and machine-mutated records (testdata/check;
// regenerate with -update only when the output is meant to change).
func TestCheckGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/check/*.pgn")
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	type runCase struct {
		name  string
		stdin string
		args  []string
	}
	var cases []runCase
	var all []string
	var concat bytes.Buffer
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".pgn")
		cases = append(cases, runCase{name: "check_" + base, args: []string{"check", in}})
		if strings.HasPrefix(base, "valid_") || base == "handwritten" {
			cases = append(cases, runCase{name: "fmt_" + base, args: []string{"fmt", in}})
			cases = append(cases, runCase{name: "show_" + base, args: []string{"show", "--game", "2", in}})
		}
		all = append(all, in)
		data, err := os.ReadFile(in)
		require.NoError(t, err)
		if strings.HasPrefix(base, "mutants_") || strings.HasPrefix(base, "valid_") || base == "handwritten" {
			concat.Write(data)
			concat.WriteString("\n")
		}
	}
	cases = append(cases,
		runCase{name: "check_all_files", args: append([]string{"check"}, all...)},
		runCase{name: "check_stdin", stdin: concat.String(), args: []string{"check", "-"}},
		runCase{name: "check_stdin_default", stdin: concat.String(), args: []string{"check"}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := run(t, c.stdin, c.args...)
			got := fmt.Sprintf("$ pbem %s\nexit %d\n-- stdout --\n%s-- stderr --\n%s", strings.Join(c.args, " "), code, out, errs)
			golden := filepath.Join("testdata/check/golden", c.name+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run with -update to write the golden file")
			assert.Equal(t, string(want), got)
		})
	}
}
