package enginetest_test

import (
	"errors"
	"strings"
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

func TestToyConformance(t *testing.T) {
	var c enginetest.Toy
	enginetest.Run(t, enginetest.Config{
		Rules:   c.Rules(),
		Options: []engine.Options{{}, {Players: 2}, {Players: 4, First: 2}},
		Seed:    7,
		Encode:  c.Encode,
		Decode:  c.Decode,
	})
}

func TestToyPlay(t *testing.T) {
	var c enginetest.Toy
	s, err := c.Rules().Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	line := engine.NewLine(s)
	for _, ply := range strings.Fields("+3 3 +3 +3 3 3 2 pass +1") {
		m, err := c.Decode(line.State(), ply)
		if err != nil {
			t.Fatalf("Decode(%q) = %v", ply, err)
		}
		if line, err = line.Play(m); err != nil {
			t.Fatalf("Play(%q) = %v", ply, err)
		}
	}
	o := line.Outcome()
	if !o.Over || o.Winner() != 2 { // the 9th ply is C's
		t.Fatalf("Outcome() = %+v, want C to win", o)
	}
	if got := line.State().Render(1); !strings.Contains(got, "scores: B 6 (you) C 7 A 8") {
		t.Errorf("Render(1) =\n%s\nwant the scores from B's side", got)
	}
}

func TestToyDecode(t *testing.T) {
	var c enginetest.Toy
	s, _ := c.Rules().Start(engine.Options{})
	for _, tc := range []struct {
		in      string
		want    engine.Move
		illegal bool
		syntax  bool
	}{
		{in: "+2", want: enginetest.ToyMove(2)},
		{in: " 3 ", want: enginetest.ToyMove(3)},
		{in: "PASS", want: enginetest.ToyMove(0)},
		{in: "+4", illegal: true},
		{in: "+0", illegal: true},
		{in: "x", syntax: true},
		{in: "++1", syntax: true},
		{in: "", syntax: true},
	} {
		got, err := c.Decode(s, tc.in)
		var se *enginetest.ToySyntaxError
		switch {
		case tc.illegal:
			if !errors.Is(err, engine.ErrIllegalMove) {
				t.Errorf("Decode(%q) = %v, %v, want an illegal move", tc.in, got, err)
			}
		case tc.syntax:
			if !errors.As(err, &se) {
				t.Errorf("Decode(%q) = %v, %v, want a syntax error", tc.in, got, err)
			}
		case err != nil || got != tc.want:
			t.Errorf("Decode(%q) = %v, %v, want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestToySettleRanksByScore(t *testing.T) {
	var c enginetest.Toy
	s, _ := c.Rules().Start(engine.Options{})
	for _, n := range []int{3, 1, 3} {
		s, _ = s.Apply(enginetest.ToyMove(n))
	}
	o := engine.Settle(s, "agreement")
	if want := []int{1, 3, 1}; !equal(o.Rank, want) {
		t.Errorf("Settle ranks = %v, want %v", o.Rank, want)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
