package analysis_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/bot"
	"pbem/engine/enginetest"
	"pbem/notation"
	"pbem/referee"
	"pbem/referee/analysis"
)

// lookup is the catalog and the toy game.
func lookup(id string) (notation.Codec, error) {
	if id == "toy" {
		return enginetest.Toy{}, nil
	}
	return referee.Lookup(id)
}

// checked reads a record of one valid game.
func checked(t *testing.T, text string) *notation.Game {
	t.Helper()
	var g *notation.Game
	notation.CheckFile("r", []byte(text), lookup, func(ch *notation.Checked) {
		if !ch.Valid() {
			t.Fatalf("the record does not check: %v\n%s", ch.Problems, text)
		}
		g = ch.Game
	})
	if g == nil {
		t.Fatalf("no game in:\n%s", text)
	}
	return g
}

// annotate annotates text and checks the result as pbem check does.
func annotate(t *testing.T, text string, o analysis.Options) (string, *analysis.Report) {
	t.Helper()
	out, rep, err := analysis.Annotate(context.Background(), checked(t, text), lookup, o)
	if err != nil {
		t.Fatal(err)
	}
	checked(t, out) // the annotated record passes check
	return out, rep
}

// missedWin is a toy game where A, at 18, adds 1 instead of the 3 that
// wins at once, and B wins with the 2 left. It carries a tag and comments
// of its own.
const missedWin = `[Game "toy"] [Event "Missed"] [Site "here"] [Date "2026.12.07"] [Round "1"]
[A "Ann"] [B "Ben"] [Players "2"] [Result "0-1"] [Mood "tense"]

{Ann's own start comment} 1. +3 +3 2. +3 +3 3. +3 {Ann thinks} +3 4. +1 {hasty} +2 0-1
`

// TestMissedWinIsABlunder: the ply that misses a win in one gets "??" and
// the winning ply as the computer's line, at every level; the original
// tags and comments stay.
func TestMissedWinIsABlunder(t *testing.T) {
	for level := 1; level <= 4; level++ {
		t.Run(fmt.Sprintf("level %d", level), func(t *testing.T) {
			out, rep := annotate(t, missedWin, analysis.Options{Level: level})
			out = strings.Join(strings.Fields(out), " ") // the writer wraps lines
			if !strings.Contains(out, "4. +1?? {hasty} (4. +3 {??") {
				t.Errorf("the missed win is not a blunder with the winning ply as its line:\n%s", out)
			}
			for _, keep := range []string{`[Mood "tense"]`, `[Event "Missed"]`, `[Site "here"]`, "{Ann's own start comment}", "{Ann thinks}", "{hasty}",
				`[Annotator "pbem bot (level ` + fmt.Sprint(level) + `)"]`} {
				if !strings.Contains(out, keep) {
					t.Errorf("the annotated record lost %s:\n%s", keep, out)
				}
			}
			var ann *analysis.SideReport
			for i := range rep.Sides {
				if rep.Sides[i].Side == "A" {
					ann = &rep.Sides[i]
				}
			}
			if ann == nil || ann.Blunders < 1 || ann.AverageLoss() <= 0 {
				t.Errorf("report of A = %+v; want a blunder and a loss", ann)
			}
			if !strings.Contains(out, "on A: ") || !strings.Contains(out, "on B: ") {
				t.Errorf("no summary comment per side:\n%s", out)
			}
		})
	}
}

// TestGoodPlayIsNotMarked: a toy game won by the moves the computer
// finds gets no mark at all.
func TestGoodPlayIsNotMarked(t *testing.T) {
	// A keeps the total at 1 more than a multiple of 4 (1, 5, 9, 13, 17,
	// 21): whatever B adds, A reaches 21.
	const good = `[Game "toy"] [Players "2"] [Result "1-0"]

1. +1 +3 2. +1 +3 3. +1 +3 4. +1 +3 5. +1 +3 6. +1 1-0
`
	out, rep := annotate(t, good, analysis.Options{Level: 3, Side: ptr(0)})
	if len(rep.Sides) != 1 || rep.Sides[0].Side != "A" || rep.Sides[0].Plies == 0 {
		t.Fatalf("report = %+v; want A's plies only", rep.Sides)
	}
	if strings.Contains(out, "+1?") || strings.Contains(out, "? pbem bot") || rep.Sides[0].Mistakes+rep.Sides[0].Blunders > 0 {
		t.Errorf("the winning side's plies are marked:\n%s", out)
	}
}

func ptr(i int) *int { return &i }

// TestDeterministic: the same record gets the same annotation, at level
// 1 in every game of the catalog and at level 4 (whose search has a time
// bound in play, not in analysis) in one; each keeps the original's tags
// and comments.
func TestDeterministic(t *testing.T) {
	for _, c := range referee.Games() {
		id := c.Rules().ID()
		t.Run(id, func(t *testing.T) {
			rec := selfplay(t, c, 10)
			for _, level := range []int{1, 4} {
				if level == 4 && (testing.Short() || id != "ziggurat") {
					continue
				}
				a, _ := annotate(t, rec, analysis.Options{Level: level})
				for _, keep := range []string{`[Extra "kept"]`, `[Event "Random"]`, "{a comment of the original}"} {
					if !strings.Contains(a, keep) {
						t.Errorf("level %d: the annotation lost %s:\n%s", level, keep, a)
					}
				}
				b, _ := annotate(t, rec, analysis.Options{Level: level})
				if a != b {
					t.Errorf("level %d: two annotations differ:\n%s\n---\n%s", level, a, b)
				}
			}
		})
	}
}

// selfplay is a record of plies random plies of c, with a comment and a
// tag of its own.
func selfplay(t *testing.T, c notation.Codec, plies int) string {
	t.Helper()
	b, err := notation.NewBuilder(c, engine.Options{}, []notation.Tag{{Name: "Event", Value: "Random"}, {Name: "Extra", Value: "kept"}})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := bot.New(0, 7)
	for range plies {
		l := b.Line()
		if l.Outcome().Over {
			break
		}
		m, err := p.Move(context.Background(), l.State())
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	rec := notation.Format(b.Game())
	return strings.Replace(rec, "\n\n", "\n\n{a comment of the original} ", 1)
}
