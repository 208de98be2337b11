package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/archive"
	"pbem/engine"
	"pbem/notation"
	"pbem/referee"
)

func TestArchiveHelp(t *testing.T) {
	code, out, _ := run(t, "", "archive", "--help")
	assert.Equal(t, 0, code)
	for _, sub := range archiveCommands() {
		assert.Contains(t, out, "pbem archive "+sub.name+" ")
		code, out, errs := run(t, "", "archive", sub.name, "--help")
		assert.Equal(t, 0, code, sub.name)
		assert.Empty(t, errs, "the usage is printed once, on stdout")
		assert.Contains(t, out, "Usage: pbem archive "+sub.name, sub.name)
		if sub.name != migrateCommand.name { // --from and --to
			assert.Contains(t, out, "-data DIR", sub.name)
		}
	}
	code, _, errs := run(t, "", "archive")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "Usage: pbem archive SUBCOMMAND")
	code, _, errs = run(t, "", "archive", "frobnicate")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `pbem archive: unknown subcommand "frobnicate"; expected one of import, export, list, search, duplicates, explore, crosstable, ratings`)
}

func TestArchiveUsageErrors(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	code, _, errs := run(t, "", "archive", "list", "--data", data)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "pbem archive list: no archive in "+data)
	_, err := os.Stat(data)
	assert.True(t, os.IsNotExist(err), "list created the data directory")

	code, _, errs = run(t, "[Game \"castles\"] 0... @c3 *\n", "archive", "import", "--data", data, "-")
	require.Equal(t, 0, code, errs)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "pbem archive import: expected record files to import"},
		{[]string{"import", "missing.pgn"}, "missing.pgn"},
		{[]string{"list", "--since", "2026-01-01"}, `pbem archive list: bad date "2026-01-01"; expected YYYY.MM.DD`},
		{[]string{"list", "--game", "chess"}, `pbem archive list: unknown game "chess"; expected one of castles`},
		{[]string{"list", "word"}, `unexpected argument "word"; to search for words use pbem archive search`},
		{[]string{"search"}, "pbem archive search: expected words to search for, --position TEXT or --after PLIES"},
		{[]string{"search", "--after", "Ca1-b2"}, "pbem archive search: --after needs the game: expected --game G"},
		{[]string{"search", "--after", "@c3", "--game", "castles", "--limit", "0"}, "pbem archive search: bad --limit 0; expected a number of games from 1 to 1000"},
		{[]string{"search", "--after", "@c3", "--game", "castles", "--page", "0"}, "pbem archive search: bad --page 0; expected a page from 1 to 2001"},
		{[]string{"search", "ann", "--page", "2"}, "pbem archive search: --limit and --page page a search by position; expected --position TEXT or --after PLIES with them"},
		{[]string{"search", "--after", "Ca1-b3", "--game", "castles"}, `pbem archive search: --after: ply 1 "Ca1-b3": `},
		{[]string{"search", "--position", "x y"}, `pbem archive search: --position "x y" is the position text of 0 games; expected one (give --game G):`},
		{[]string{"search", "--position", "...S/..../..../F... 5/0/0 5/0/0 X", "--game", "castles"}, `pbem archive search: castles position, column 33: no side "X"; want F, S, or S* (Second's setup ply)`},
		{[]string{"export", "--format", "xml"}, `pbem archive export: unknown --format "xml"; expected pgn, json or trf`},
		{[]string{"export", "x"}, `pbem archive export: unexpected argument "x"`},
		{[]string{"crosstable"}, "pbem archive crosstable: expected one event name, got 0 arguments"},
		{[]string{"explore"}, "pbem archive explore: expected the game and the plies from the start"},
		{[]string{"explore", "castles", "Ca1-b2"}, `pbem archive explore: ply 1 "Ca1-b2": `},
		{[]string{"crosstable", "E", "--format", "html"}, `unknown --format "html"; expected text or csv`},
		{[]string{"ratings", "--format", "html"}, `unknown --format "html"; expected text or csv`},
		{[]string{"ratings", "--bogus"}, "flag provided but not defined: -bogus"},
	} {
		code, _, errs := run(t, "", append(append([]string{"archive"}, c.args...), "--data", data)...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, errs, c.want, c.args)
	}
}

// TestArchiveImportReportsAsCheck: invalid games are reported exactly as
// pbem check reports them, and not stored.
func TestArchiveImportReportsAsCheck(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	input := illegal + "\n[Game \"castles\"] 0... @c3 1. Ca1-b2 *\n"
	code, checked, _ := run(t, input, "check")
	require.Equal(t, 1, code)
	code, out, errs := run(t, input, "archive", "import", "--data", data, "-")
	assert.Equal(t, 1, code, errs)
	problems := strings.TrimSuffix(checked, "checked 5 games, 5 plies: 4 errors\n")
	require.NotEqual(t, checked, problems)
	assert.Equal(t, problems+"imported 5 games, 5 plies: 1 archived, 0 already archived, 4 invalid (4 errors)\n", out)

	code, out, _ = run(t, input, "archive", "import", "--data", data, "-")
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasSuffix(out, "imported 5 games, 5 plies: 0 archived, 1 already archived, 4 invalid (4 errors)\n"), out)
	code, out, _ = run(t, "", "archive", "list", "--data", data)
	assert.Equal(t, 0, code)
	assert.Equal(t, "1\t?\tcastles\t?\t?\tFirst: ?; Second: ?\t*\n", out)
}

// TestArchiveDuplicates: import names each game whose moves an archived
// game has under other tags, and pbem archive duplicates lists both with
// each other's id; a game with other moves is neither.
func TestArchiveDuplicates(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	codec, err := referee.Lookup("castles")
	require.NoError(t, err)
	var first strings.Builder
	for i := range 2 {
		g := selfplay(codec, engine.Options{}, 44, i, 12)
		require.GreaterOrEqual(t, g.Plies, archive.MinDuplicatePlies, "game %d is too short to be anyone's duplicate", i)
		require.NoError(t, notation.Write(&first, g))
	}
	code, out, errs := run(t, first.String(), "archive", "import", "--data", data, "-")
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `^imported 2 games, \d+ plies: 2 archived, 0 already archived, 0 invalid \(0 errors\)\n$`, out)
	code, out, errs = run(t, "", "archive", "duplicates", "--data", data)
	require.Equal(t, 0, code, errs)
	assert.Empty(t, out, "no game has another's moves")

	// The first game again under other tags and with a comment.
	game1, _, _ := strings.Cut(first.String(), "\n\n[Game")
	again := strings.Replace(strings.Replace(game1, `[Event "pbem selfplay"]`, `[Event "Copy"]`, 1), `[Date "????.??.??"]`, `[Date "2026.01.02"]`, 1)
	again = strings.Replace(again, "\n\n", "\n\n{copied} ", 1)
	require.NotEqual(t, game1, again)
	code, out, errs = run(t, again, "archive", "import", "--data", data, "-")
	require.Equal(t, 0, code, out+errs)
	assert.Regexp(t, `^<stdin>: game 1, archived as #3: possible duplicate of #1 \(the same moves under other tags\)\n`+
		`imported 1 games, \d+ plies: 1 archived, 0 already archived, 0 invalid \(0 errors\), 1 possible duplicates \(pbem archive duplicates lists them\)\n$`, out)
	code, out, errs = run(t, "", "archive", "duplicates", "--data", data)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, "1\t????.??.??\tcastles\tpbem selfplay\t1\tFirst: random; Second: random\t*\tsame moves as #3\n"+
		"3\t2026.01.02\tcastles\tCopy\t1\tFirst: random; Second: random\t*\tsame moves as #1\n", out)
	code, out, _ = run(t, "", "archive", "duplicates", "--data", data, "--event", "copy")
	assert.Equal(t, 0, code)
	assert.Equal(t, "3\t2026.01.02\tcastles\tCopy\t1\tFirst: random; Second: random\t*\tsame moves as #1\n", out)
}

// TestArchiveRoundTrip imports 10,000 selfplay games of every game (rpp
// with 4 seats) and exports them: the export is the canonical form of the
// input (pbem fmt), and importing it again adds nothing.
func TestArchiveRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 games")
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	var in bytes.Buffer
	const perGame = 2000
	for _, codec := range referee.Games() {
		o := engine.Options{}
		if codec.Rules().ID() == "rpp" {
			o.Players = 4
		}
		for i := range perGame {
			require.NoError(t, notation.Write(&in, selfplay(codec, o, 9, i, 40)))
		}
	}
	file := filepath.Join(dir, "in.pgn")
	require.NoError(t, os.WriteFile(file, in.Bytes(), 0o644))

	var out, errb bytes.Buffer
	c := &cli{stdout: &out, stderr: &errb, stderrTTY: true}
	code := c.main([]string{"archive", "import", "--data", data, file})
	require.Equal(t, 0, code, errb.String())
	assert.Regexp(t, `^imported 10000 games, \d+ plies: 10000 archived, 0 already archived, 0 invalid \(0 errors\)\n$`, out.String())
	require.GreaterOrEqual(t, in.Len(), progressMin, "the input is too small for a progress bar")
	assert.Contains(t, errb.String(), "\rchecking ")
	assert.Contains(t, errb.String(), " 50%")

	code, canonical, _ := run(t, in.String(), "fmt")
	require.Equal(t, 0, code)
	code, exported, errs := run(t, "", "archive", "export", "--data", data)
	require.Equal(t, 0, code, errs)
	assert.True(t, canonical == exported, "export(import(x)) differs from the canonical form of x")

	code, again, _ := run(t, exported, "archive", "import", "--data", data, "-")
	require.Equal(t, 0, code)
	assert.Regexp(t, `: 0 archived, 10000 already archived, 0 invalid`, again)

	code, lines, _ := run(t, "", "archive", "export", "--data", data, "--format", "json", "--game", "rpp")
	require.Equal(t, 0, code)
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(lines, "\n"), "\n") {
		var g archive.ExportedGame
		require.NoError(t, json.Unmarshal([]byte(l), &g))
		assert.Equal(t, "rpp", g.Game)
		assert.Equal(t, "4", tagOf(g.Tags, "Players"))
		n++
	}
	assert.Equal(t, perGame, n)
}

func tagOf(tags []archive.Tag, name string) string {
	for _, t := range tags {
		if t.Name == name {
			return t.Value
		}
	}
	return ""
}

// event is a small tournament: a double round robin of three players (one
// game unfinished), an rpp game and a game of another event.
const event = `[Game "castles"] [Event "Spring Open"] [Date "2026.04.01"] [Round "1"]
[First "Ann <ann@example.org>"] [Second "Ben <ben@example.org>"] [Termination "resign"]
0... @c3 1. Ca1-b2 1-0

[Game "castles"] [Event "Spring Open"] [Date "2026.04.01"] [Round "1"]
[First "Cy <cy@example.org>"] [Second "Ann <ann@example.org>"] [Termination "agreement"]
0... @c3 1/2-1/2

[Game "castles"] [Event "Spring Open"] [Date "2026.04.08"] [Round "2"]
[First "Ben <ben@example.org>"] [Second "Cy <cy@example.org>"] [Termination "resign"]
0... @c3 0-1

[Game "castles"] [Event "Spring Open"] [Date "2026.04.08"] [Round "2"]
[First "Ben <ben@example.org>"] [Second "Ann <ann@example.org>"] [Termination "time"]
0... @c3 1-0

[Game "castles"] [Event "Spring Open"] [Date "2026.04.15"] [Round "3"]
[First "Ann <ann@example.org>"] [Second "Cy <cy@example.org>"]
0... @c3 *

[Game "rpp"] [Event "Spring Open"] [Date "2026.04.15"] [Round "3"] [Players "3"]
[R "Ben <ben@example.org>"] [Y "Cy <cy@example.org>"] [G "Ann <ann@example.org>"] [Termination "resign"]
1. R:pass Y>R=G

[Game "ziggurat43"] [Event "Club night"] [Date "2026.03.01"] [Red "Ann <ann@example.org>"] [Gold "Dee"]
[Termination "resign"] [Rated "no"]
1. Se3-e4 0-1
`

// TestArchiveQueries runs list, search, export, crosstable and ratings on
// a small event, worked out by hand.
//
// Pairwise results of the Spring Open: Ann beat Ben (game 1), drew Cy (2);
// Cy beat Ben (3); Ben beat Ann (4); game 5 is unfinished; in the rpp game
// (6) Cy is first, Ben and Ann share second: Cy beat both, Ben drew Ann.
// Scores: Cy 0.5+1+1+1 = 3.5, Ann 1+0.5+0+0+0.5 = 2, Ben 0+0+1+0+0.5 = 1.5.
// Sonneborn-Berger: Cy 1.5x2 (Ann) + 2x1.5 (Ben) = 6; Ann 1.5x1.5 (Ben) +
// 0.5x3.5 (Cy) = 4; Ben 1.5x2 (Ann) = 3.
//
// Elo (castles, by date, K 40): Ann 1500 beats Ben 1500: 1520, 1480. Cy
// 1500 draws Ann 1520: Cy expects 0.471249, gains 1.150 (Ann 1518.850). Cy
// 1501.150 beats Ben 1480: Cy expects 0.530395, gains 18.784 (Cy 1519.934,
// Ben 1461.216). Ben beats Ann 1518.850: Ben expects 0.417824, gains 23.287
// (Ben 1484.503, Ann 1495.563). rpp: Cy's mean pairwise result is +0.5
// (1520), Ben's and Ann's (-0.5 + 0) / 2 = -0.25 (1490). The Club night
// game is not rated.
func TestArchiveQueries(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	code, out, errs := run(t, event, "archive", "import", "--data", data, "-")
	require.Equal(t, 0, code, out+errs)
	require.Equal(t, "imported 7 games, 8 plies: 7 archived, 0 already archived, 0 invalid (0 errors)\n", out)

	pbem := func(args ...string) string {
		t.Helper()
		code, out, errs := run(t, "", append(args, "--data", data)...)
		require.Equal(t, 0, code, errs)
		return out
	}
	assert.Equal(t, `1	2026.04.01	castles	Spring Open	1	First: Ann <ann@example.org>; Second: Ben <ben@example.org>	1-0
2	2026.04.01	castles	Spring Open	1	First: Cy <cy@example.org>; Second: Ann <ann@example.org>	1/2-1/2
3	2026.04.08	castles	Spring Open	2	First: Ben <ben@example.org>; Second: Cy <cy@example.org>	0-1
4	2026.04.08	castles	Spring Open	2	First: Ben <ben@example.org>; Second: Ann <ann@example.org>	1-0
5	2026.04.15	castles	Spring Open	3	First: Ann <ann@example.org>; Second: Cy <cy@example.org>	*
6	2026.04.15	rpp	Spring Open	3	R: Ben <ben@example.org>; Y: Cy <cy@example.org>; G: Ann <ann@example.org>	Y>R=G
7	2026.03.01	ziggurat43	Club night	?	Red: Ann <ann@example.org>; Gold: Dee	0-1
`, pbem("archive", "list"))
	ids := func(out string) []string {
		var ids []string
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if l != "" {
				ids = append(ids, strings.SplitN(l, "\t", 2)[0])
			}
		}
		return ids
	}
	assert.Equal(t, []string{"3", "5", "6"}, ids(pbem("archive", "list", "--player", "CY@", "--since", "2026.04.08")))
	assert.Equal(t, []string{"7"}, ids(pbem("archive", "list", "--event", "club NIGHT")))
	assert.Equal(t, []string{"6"}, ids(pbem("archive", "list", "--game", "rpp")))
	assert.Equal(t, []string{"2", "5"}, ids(pbem("archive", "search", "cy", "ann", "--game", "castles")))
	assert.Equal(t, []string{"4"}, ids(pbem("archive", "search", "time")))
	assert.Empty(t, pbem("archive", "search", "nobody"))
	// By position: the game is the one whose notation reads the text.
	assert.Equal(t, "1\t2026.04.01\tcastles\tSpring Open\t1\tFirst: Ann <ann@example.org>; Second: Ben <ben@example.org>\t1-0\tply 2\n",
		pbem("archive", "search", "--position", "...S/..s./.F../.... 4/1/0 4/0/0 S"))
	assert.Equal(t, []string{"5", "4", "3", "2", "1"}, ids(pbem("archive", "search", "--game", "castles", "--after", "@c3")))
	// Paged, the newest first; stderr counts them all.
	for _, tc := range []struct {
		page, ids []string
		says      string
	}{
		{[]string{"--limit", "2"}, []string{"5", "4"}, "5 games through the position; these are 1 to 2, the newest first (--page 2 for more)\n"},
		{[]string{"--limit", "2", "--page", "3"}, []string{"1"}, "5 games through the position; these are 5 to 5, the newest first\n"},
		{[]string{"--limit", "5", "--page", "2"}, nil, "5 games through the position; none on page 2\n"},
	} {
		code, out, errs := run(t, "", append([]string{"archive", "search", "--game", "castles", "--after", "@c3", "--data", data}, tc.page...)...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, tc.ids, ids(out), tc.page)
		assert.Equal(t, "pbem archive search: "+tc.says, errs, tc.page)
	}
	assert.Contains(t, pbem("archive", "search", "--game", "castles", "--after", "@c3", "ann"), "\tply 1\n")
	assert.Equal(t, []string{"7"}, ids(pbem("archive", "search", "--position", "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R")))

	// The explorer: games 1-5 open with @c3; only game 1 plays on.
	assert.Equal(t, `position ...S/..../..../F... 5/0/0 5/0/0 S*
ply	games	wins	draws	losses	unfinished	average rank (results for Second, to move)
@c3	5	1	1	2	1	1.50
`, pbem("archive", "explore", "castles"))
	assert.Equal(t, `position ...S/..s./..../F... 5/0/0 4/0/0 F
ply	games	wins	draws	losses	unfinished	average rank (results for First, to move)
Ca1-b2	1	1	0	0	0	1.00
`, pbem("archive", "explore", "castles", "@c3", "--player", "ben"))
	assert.Equal(t, "position ...S/..s./.F../.... 4/1/0 4/0/0 S\nno archived game plays on from this position\n",
		pbem("archive", "explore", "castles", "@c3", "Ca1-b2"))

	// Export with a filter: the canonical form of the games selected.
	var want strings.Builder
	notation.CheckFile("x", []byte(event), referee.Lookup, func(ch *notation.Checked) {
		if ch.Index == 3 || ch.Index == 5 || ch.Index == 6 {
			notation.Write(&want, ch.Game)
		}
	})
	assert.Equal(t, want.String(), pbem("archive", "export", "--player", "cy@", "--since", "2026.04.08"))
	assert.Equal(t, `{"id":7,"game":"ziggurat43","rated":false,"tags":{"Game":"ziggurat43","Event":"Club night","Date":"2026.03.01","Red":"Ann <ann@example.org>","Gold":"Dee","Result":"0-1","Termination":"resign","Rated":"no"},"plies":["Se3-e4"],"result":"0-1"}
`, pbem("archive", "export", "--format", "json", "--event", "Club night"))

	assert.Equal(t, `Spring Open: 3 players, 5 games

#  Player  1   2    3    Games  Score    SB
1  Cy      X   =1   11       3    3.5  6.00
2  Ann     =0  X    10=      4    2.0  4.00
3  Ben     00  01=  X        4    1.5  3.00
`, pbem("archive", "crosstable", "spring open"))
	assert.Equal(t, `Rank,Player,1,2,3,Games,Score,SB
1,Cy,,1.5,2.0,3,3.5,6.00
2,Ann,0.5,,1.5,4,2.0,4.00
3,Ben,0.0,1.5,,4,1.5,3.00
`, pbem("archive", "crosstable", "--format", "csv", "Spring Open"))
	code, _, errs = run(t, "", "archive", "crosstable", "Winter", "--data", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `no decided games between known players in event "Winter"`)

	assert.Equal(t, `castles: 3 players, 4 rated games

#  Player  Rating  Games
1  Cy        1520      2
2  Ann       1496      3
3  Ben       1485      3

rpp: 3 players, 1 rated game

#  Player  Rating  Games
1  Cy        1520      1
2  Ann       1490      1
3  Ben       1490      1
`, pbem("archive", "ratings"))
	assert.Equal(t, `Game,Rank,Player,Rating,Games
castles,1,Cy,1519.9,2
castles,2,Ann,1495.6,3
castles,3,Ben,1484.5,3
`, pbem("archive", "ratings", "--game", "castles", "--format", "csv"))
	code, _, errs = run(t, "", "archive", "ratings", "--game", "elevation", "--data", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no rated, decided games")
}

// TestArchiveRefereeGames: a game the referee finishes is in the archive
// the commands read (the same store), with its tags, and rated.
func TestArchiveRefereeGames(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	store, err := archive.Open(ctx, data, nil)
	require.NoError(t, err)
	defer store.Close()
	ref, err := referee.New(store, &referee.Options{Address: "referee@pbem.example"})
	require.NoError(t, err)
	n := 0
	send := func(from, name, to, body string) {
		t.Helper()
		n++
		require.NoError(t, ref.Handle(ctx, referee.Request{From: referee.Address{Name: name, Addr: from}, To: to,
			Body: body, MessageID: fmt.Sprintf("m%d@example.org", n), Received: time.Now()}))
	}
	plus := func(addr string) string {
		g, err := store.Game(ctx, 1)
		require.NoError(t, err)
		for _, st := range g.Seats {
			if st.Player.Addr == addr {
				return fmt.Sprintf("referee+1.%s@pbem.example", st.Token)
			}
		}
		t.Fatalf("%s has no seat", addr)
		return ""
	}
	send("alice@example.org", "Alice", "referee@pbem.example", "new castles with bob@example.org event=Ladder round=7")
	send("alice@example.org", "Alice", plus("alice@example.org"), "accept") // the creator confirms
	send("bob@example.org", "Bob", plus("bob@example.org"), "accept")
	send("alice@example.org", "Alice", plus("alice@example.org"), "resign")
	g, err := store.Game(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, archive.Over, g.Status, "the game did not end")

	code, out, errs := run(t, "", "archive", "list", "--data", data)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `^1\t\d{4}\.\d\d\.\d\d\tcastles\tLadder\t7\tFirst: Alice <alice@example.org>; Second: Bob <bob@example.org>\t0-1\n$`, out)
	code, out, _ = run(t, "", "archive", "export", "--data", data, "--format", "json")
	require.Equal(t, 0, code)
	var eg archive.ExportedGame
	require.NoError(t, json.Unmarshal([]byte(out), &eg))
	for _, tag := range []string{"Event", "Site", "Date", "Round", "First", "Second", "Result", "Termination", "TimeControl"} {
		assert.NotEmpty(t, tagOf(eg.Tags, tag), tag)
	}
	assert.Equal(t, "resign", tagOf(eg.Tags, "Termination"))
	assert.True(t, eg.Rated)
	code, out, _ = run(t, "", "archive", "ratings", "--data", data)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "1  Bob       1520      1\n2  Alice     1480      1\n")
}
