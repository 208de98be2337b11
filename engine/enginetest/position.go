package enginetest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"pbem/engine"
)

// CheckPositions plays games random games of at most plies plies from the
// start of rules with options o and checks the position notation on every
// position seen: the state is an engine.Positioner and the rules an
// engine.PositionReader; text -> position -> text gives the text back; the
// position read has the original's key, side to move, outcome and legal
// moves, and a random move played on both leads to the same text; equal
// texts have equal engine.PositionKey keys and different texts different
// keys. In games whose states are engine.Samplers (turns of many actions,
// whose Legal is a search) every tenth new position compares the legal
// moves. It returns the number of distinct texts seen.
func CheckPositions(t *testing.T, rules engine.Rules, o engine.Options, games, plies int, seed uint64) int {
	t.Helper()
	states, err := Positions(rules, o, seed, games, plies)
	if err != nil {
		t.Fatal(err)
	}
	keyOf := map[string]uint64{}
	textOf := map[uint64]string{}
	r := rand.New(rand.NewPCG(seed, 99))
	for i, s := range states {
		text, key, ok := engine.Position(s)
		if !ok {
			t.Fatalf("%T is not an engine.Positioner", s)
		}
		if k, seen := keyOf[text]; seen {
			if k != key {
				t.Fatalf("text %q has keys %#x and %#x", text, k, key)
			}
			continue
		}
		if old, seen := textOf[key]; seen {
			t.Fatalf("texts %q and %q share key %#x", old, text, key)
		}
		keyOf[text], textOf[key] = key, text
		// Legal is a search in games of many-action turns (Samplers): there
		// every tenth new position compares it.
		_, sampler := s.(engine.Sampler)
		legal := !sampler || len(keyOf)%10 == 1
		if err := samePosition(rules, o, s, text, legal, r); err != nil {
			t.Fatalf("position %d %q: %v\n%s", i, text, err, s.Render(-1))
		}
	}
	return len(keyOf)
}

// samePosition reads text (written by s) and compares what was read with
// s: field by field, and by their legal moves when legal is set.
func samePosition(rules engine.Rules, o engine.Options, s engine.State, text string, legal bool, r *rand.Rand) error {
	p, err := engine.ParsePosition(rules, o, text)
	if err != nil {
		return fmt.Errorf("ParsePosition: %v", err)
	}
	if got := p.(engine.Positioner).Position(); got != text {
		return fmt.Errorf("read back, the text is %q", got)
	}
	if err := p.Check(); err != nil {
		return fmt.Errorf("the position read fails Check: %v", err)
	}
	if !reflect.DeepEqual(p, s) {
		return fmt.Errorf("the position read differs from the original:\n%#v\nwant\n%#v", p, s)
	}
	if p.Key() != s.Key() {
		return fmt.Errorf("the key read is %q, want %q", p.Key(), s.Key())
	}
	if p.ToMove() != s.ToMove() {
		return fmt.Errorf("side %d to move, want %d", p.ToMove(), s.ToMove())
	}
	if got, want := p.Outcome(), s.Outcome(); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("outcome %+v, want %+v", got, want)
	}
	if !legal {
		// Compared below on one move only.
	} else if got, want := p.Legal(), s.Legal(); !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%d legal moves, want %d (or in another order)", len(got), len(want))
	}
	if s.Outcome().Over {
		return nil
	}
	var m engine.Move
	if sm, ok := s.(engine.Sampler); ok {
		m = sm.RandomMove(r)
	} else if legal := s.Legal(); len(legal) > 0 {
		m = legal[r.IntN(len(legal))]
	} else {
		return nil
	}
	a, errA := s.Apply(m)
	b, errB := p.Apply(m)
	if errA != nil || errB != nil {
		return fmt.Errorf("Apply(%v) = %v on the original, %v on the position read", m, errA, errB)
	}
	if ta, tb := a.(engine.Positioner).Position(), b.(engine.Positioner).Position(); ta != tb {
		return fmt.Errorf("after %v: %q, on the position read %q", m, ta, tb)
	}
	return nil
}

// CheckPositionErrors reads each text of bad with rules and options o and
// checks that it is refused with exactly the error given.
func CheckPositionErrors(t *testing.T, rules engine.Rules, o engine.Options, bad map[string]string) {
	t.Helper()
	for text, want := range bad {
		t.Run(text, func(t *testing.T) {
			_, err := engine.ParsePosition(rules, o, text)
			if err == nil {
				t.Fatalf("ParsePosition(%q) = nil error, want %q", text, want)
			}
			if err.Error() != want {
				t.Errorf("ParsePosition(%q) error\n got %s\nwant %s", text, err, want)
			}
		})
	}
}
