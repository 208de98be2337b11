package elevation

import (
	"testing"

	"pbem/engine"
	"pbem/engine/enginetest"
)

const startText = "3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S W"

func TestPositionStart(t *testing.T) {
	s, err := Rules{}.Start(engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.(*State).Position(); got != startText {
		t.Errorf("Position() = %q, want %q", got, startText)
	}
}

func TestPositionRoundTrip(t *testing.T) {
	n := enginetest.CheckPositions(t, Rules{}, engine.Options{}, 40, 200, 1)
	if n < 3000 {
		t.Errorf("only %d distinct positions seen", n)
	}
}

func TestParsePositionErrors(t *testing.T) {
	const want2 = "want 2 fields separated by blanks: squares, side to move"
	enginetest.CheckPositionErrors(t, Rules{}, engine.Options{}, map[string]string{
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S":     "elevation position, column 78: the text ends after 1 fields, without the side to move; " + want2,
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S b":   "elevation position, column 79: no side \"b\"; want W or B",
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3x W":   "elevation position, column 77: 'x' on f1 is no piece; want a height and a piece (S F D White, s f d Black, . none), e.g. 3S or 2.",
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3./3S3F3D3D3F3S W":     "elevation position, column 63: rank 2 has 6 squares, not 5; want a height and a piece (S F D White, s f d Black, . none), e.g. 3S or 2.",
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S3. W": "elevation position, column 78: a seventh square on rank 1; want '/' between ranks",
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F.S W":   "elevation position, column 76: f1 has no height; want a height and a piece (S F D White, s f d Black, . none), e.g. 3S or 2.",
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S3 W":  "elevation position, column 78: a seventh square on rank 1; want '/' between ranks",
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F4S W":   "elevation position: the heights sum to 109, want 108",
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S/ W":  "elevation position, column 78: a seventh rank; want the side to move after rank 1",
		"3s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S W B": "elevation position, column 81: extra field \"B\"; " + want2,
		"999s3f3d3d3f3s/3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3.3.3.3.3.3./3S3F3D3D3F3S W": "elevation position, column 1: height too large; want a height of at most 108",
	})
}
