package castles

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

func TestPositionStart(t *testing.T) {
	const want = "...S/..../..../F... 5/0/0 5/0/0 S*"
	if got := NewState().Position(); got != want {
		t.Errorf("NewState().Position() = %q, want %q", got, want)
	}
}

func TestPositionRoundTrip(t *testing.T) {
	n := enginetest.CheckPositions(t, Rules{}, engine.Options{}, 150, 200, 1)
	if n < 2500 {
		t.Errorf("only %d distinct positions seen", n)
	}
}
