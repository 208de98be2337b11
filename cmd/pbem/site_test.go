package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

// siteCorpus imports perGame selfplay games of every game (rpp with 4
// seats, 40 plies at most) into a new archive and returns its data
// directory.
func siteCorpus(tb testing.TB, perGame int) string {
	tb.Helper()
	dir := tb.TempDir()
	var in bytes.Buffer
	for _, codec := range referee.Games() {
		o := engine.Options{}
		if codec.Rules().ID() == "rpp" {
			o.Players = 4
		}
		for i := range perGame {
			g := selfplay(codec, o, 9, i, 40)
			g.Record.SetTag("Event", fmt.Sprintf("League %d", i%10))
			for j, side := range g.Sides {
				g.Record.SetTag(side, fmt.Sprintf("Player %d <p%d@example.org>", (i+3*j)%40, (i+3*j)%40))
			}
			require.NoError(tb, notation.Write(&in, g))
		}
	}
	file := filepath.Join(dir, "in.pgn")
	require.NoError(tb, os.WriteFile(file, in.Bytes(), 0o644))
	data := filepath.Join(dir, "data")
	var out, errb bytes.Buffer
	c := &cli{stdout: &out, stderr: &errb}
	require.Equal(tb, 0, c.main([]string{"archive", "import", "--data", data, file}), errb.String())
	return data
}

func TestArchiveSite(t *testing.T) {
	data := siteCorpus(t, 20)
	site := filepath.Join(t.TempDir(), "site")
	code, out, errs := run(t, "", "archive", "site", "--data", data, "--event", "League 3", "--event", "league 4", "--game", "castles", "--game", "rpp", site)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `^pbem archive site: 8 games, \d+ files \(.* MB\) in .* in .*s \(\d+ games/s\)\n$`, out)
	pages, err := filepath.Glob(filepath.Join(site, "a", "*.html"))
	require.NoError(t, err)
	assert.Len(t, pages, 8, "two events x two games x two games each")
	for _, f := range []string{"index.html", "archive.html", "events/League_3.html", "players/Player_3.html", "ratings/rpp.html"} {
		_, err := os.Stat(filepath.Join(site, f))
		assert.NoError(t, err, f)
	}
	idx, err := os.ReadFile(filepath.Join(site, "archive.html"))
	require.NoError(t, err)
	assert.NotContains(t, string(idx), "@example.org")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"archive", "site", "--data", data}, "pbem archive site: expected one directory to write the site in, got 0 arguments"},
		{[]string{"archive", "site", "--data", data, "--game", "chess", site}, `unknown game "chess"`},
		{[]string{"archive", "site", "--data", filepath.Join(t.TempDir(), "none"), site}, "pbem archive site: no archive in"},
	} {
		code, _, errs := run(t, "", c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, errs, c.want, c.args)
	}
}

// BenchmarkArchiveSite writes the static site of an archive of 10,000
// games (2,000 of each game, 40 plies at most, 40 players, 10 events) with
// pbem archive site, one page per game; games/s is the figure (the
// issue asks for 10,000 games in under a minute).
func BenchmarkArchiveSite(b *testing.B) {
	data := siteCorpus(b, corpusGames/5)
	b.ReportAllocs()
	games := 0
	for b.Loop() {
		site := filepath.Join(b.TempDir(), "site")
		var out bytes.Buffer
		c := &cli{stdout: &out, stderr: &out}
		if code := c.main([]string{"archive", "site", "--data", data, site}); code != 0 {
			b.Fatal(out.String())
		}
		games += corpusGames
	}
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
}
