package notation_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pbem/engine"
	"pbem/notation"
	castles "pbem/notation/castles"
	elevation "pbem/notation/elevation"
	rpp "pbem/notation/rpp"
	ziggurat "pbem/notation/ziggurat"
	ziggurat43 "pbem/notation/ziggurat43"
)

var gameCodecs = []notation.Codec{castles.New(), ziggurat.New(), elevation.New(), ziggurat43.New(), rpp.New()}

func gameLookup(id string) (notation.Codec, error) {
	for _, c := range gameCodecs {
		if c.Rules().ID() == id {
			return c, nil
		}
	}
	return nil, fmt.Errorf("unknown game %q", id)
}

// checkSetUp checks the one game of text.
func checkSetUp(t *testing.T, text string) (*notation.Game, []string) {
	t.Helper()
	recs, ps := notation.Parse("f.pgn", []byte(text))
	require.Empty(t, ps)
	require.Len(t, recs, 1)
	g, problems := notation.Check(recs[0], gameLookup)
	var out []string
	for _, p := range problems {
		out = append(out, p.String())
	}
	return g, out
}

// TestSetUpEveryGame: for every game, a record set up from a position of a
// random game, with the plies that followed in that game, checks; its
// start is the position, its end the game's, and the canonical form
// (which writes the position canonically) reads back the same.
func TestSetUpEveryGame(t *testing.T) {
	for _, c := range gameCodecs {
		id := c.Rules().ID()
		t.Run(id, func(t *testing.T) {
			r := rand.New(rand.NewPCG(44, 1))
			for game := range 20 {
				s, err := c.Rules().Start(engine.Options{})
				require.NoError(t, err)
				var plies []string
				var text string
				for ply := range 24 {
					if s.Outcome().Over {
						break
					}
					if ply == 12 {
						text = s.(engine.Positioner).Position()
					}
					moves := s.Legal()
					m := moves[r.IntN(len(moves))]
					if ply >= 12 {
						plies = append(plies, c.Encode(s, m))
					}
					s, err = s.Apply(m)
					require.NoError(t, err)
				}
				if text == "" {
					continue // the game ended before the set-up ply
				}
				result := "*"
				if o := s.Outcome(); o.Over {
					result = notation.FormatResult(c, s.Sides(), o)
				}
				rec := fmt.Sprintf("[Game %q]\n[SetUp \"1\"]\n[Position %q]\n\n%s %s\n", id, text, strings.Join(plies, " "), result)
				g, problems := checkSetUp(t, rec)
				require.Empty(t, problems, "game %d:\n%s", game, rec)
				assert.Equal(t, text, g.Position)
				assert.Equal(t, text, g.Lines[0].State().(engine.Positioner).Position())
				assert.Equal(t, s.(engine.Positioner).Position(), g.Final().State().(engine.Positioner).Position())
				canon := notation.Format(g)
				assert.Contains(t, canon, fmt.Sprintf("[SetUp \"1\"]\n[Position %q]\n", text))
				g2, problems := checkSetUp(t, canon)
				require.Empty(t, problems, canon)
				assert.Equal(t, canon, notation.Format(g2))
			}
		})
	}
}

// TestSetUpNumbering: a game set up with the second side to move numbers
// its first ply "1...", as PGN does.
func TestSetUpNumbering(t *testing.T) {
	const pos = "...S/..s./.F../.... 4/1/0 4/0/0 S"
	g, problems := checkSetUp(t, `[Game "castles"] [SetUp "1"] [Position "`+pos+`"] 1... Cd4-d3 2. Cb2-b3 *`)
	require.Empty(t, problems)
	assert.Contains(t, notation.Format(g), "\n\n1... Cd4-d3 2. Cb2-b3 *\n")
	_, problems = checkSetUp(t, `[Game "castles"] [SetUp "1"] [Position "`+pos+`"] 1. Cd4-d3 *`)
	assert.Equal(t, []string{`f.pgn:1:77: game 1, ply 1 "1.": move number 1. disagrees with the plies; expected 1...`}, problems)
}

func TestSetUpErrors(t *testing.T) {
	for _, tc := range []struct{ name, tags, want string }{
		{"malformed", `[SetUp "1"] [Position "...S/..s./.F../...x 4/1/0 4/0/0 S"]`,
			`f.pgn:1:30: game 1, ply 0 "...S/..s./.F../...x 4/1/0 4/0/0 S": bad [Position]: castles position, column 19: 'x' on d1 is no cell content; want F or S (a castle), f or s (a unit) or . (empty)`},
		{"illegal", `[SetUp "1"] [Position "...S/..s./.F../.... 4/1/0 5/0/0 S"]`,
			`f.pgn:1:30: game 1, ply 0 "...S/..s./.F../.... 4/1/0 5/0/0 S": bad [Position]: castles position: Second has 6 units (board 1, supply 0, heap 5), want 5`},
		{"no position", `[SetUp "1"]`,
			`f.pgn:1:18: game 1, ply 0 "1": [SetUp "1"] without [Position]; expected the position text in a [Position] tag (NOTATION.md, "Positions")`},
		{"no setup", `[Position "...S/..s./.F../.... 4/1/0 4/0/0 S"]`,
			`f.pgn:1:18: game 1, ply 0 "...S/..s./.F../.... 4/1/0 4/0/0 S": [Position] without [SetUp "1"]; expected [SetUp "1"] with it`},
		{"bad setup", `[SetUp "yes"] [Position "...S/..s./.F../.... 4/1/0 4/0/0 S"]`,
			`f.pgn:1:18: game 1, ply 0 "yes": bad [SetUp "yes"]; expected "1" (the game starts from its [Position]) or "0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, problems := checkSetUp(t, `[Game "castles"] `+tc.tags+` *`)
			assert.Equal(t, []string{tc.want}, problems)
		})
	}
}

// TestBuilderSetUp: a record built from [SetUp "1"] [Position] tags starts
// from that position, numbers its first ply as the checker does, writes
// the position canonically and checks; a bad position is refused with the
// reader's error.
func TestBuilderSetUp(t *testing.T) {
	const pos = "...S/..s./.F../.... 4/1/0 4/0/0 S"
	c := castles.New()
	b, err := notation.NewBuilder(c, engine.Options{}, []notation.Tag{{Name: "SetUp", Value: "1"}, {Name: "Position", Value: "  " + pos}})
	require.NoError(t, err)
	assert.Equal(t, pos, b.Line().State().(engine.Positioner).Position())
	for _, ply := range []string{"Cd4-d3", "Cb2-b3"} {
		m, err := c.Decode(b.Line().State(), ply)
		require.NoError(t, err)
		require.NoError(t, b.Play(m))
	}
	text := notation.Format(b.Game())
	assert.Contains(t, text, "[SetUp \"1\"]\n[Position \""+pos+"\"]\n\n1... Cd4-d3 2. Cb2-b3 *\n")
	g, problems := checkSetUp(t, text)
	require.Empty(t, problems, text)
	assert.Equal(t, text, notation.Format(g))

	_, err = notation.NewBuilder(c, engine.Options{}, []notation.Tag{{Name: "SetUp", Value: "1"}, {Name: "Position", Value: "...S/..s./.F../...x 4/1/0 4/0/0 S"}})
	assert.EqualError(t, err, `notation: bad [Position]: castles position, column 19: 'x' on d1 is no cell content; want F or S (a castle), f or s (a unit) or . (empty)`)
}
