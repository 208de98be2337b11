package engine

import (
	"hash/fnv"
	"testing"
)

// TestPositionKey: the key is FNV-1a 64 of the text, so it stays the same
// across runs and builds (the archive stores it).
func TestPositionKey(t *testing.T) {
	for _, text := range []string{"", "a", "3/7/SSS3sss/CCAS3sacc/KCHAS3sahck R", "...S/..../..../F... 5/0/0 5/0/0 S*"} {
		h := fnv.New64a()
		h.Write([]byte(text))
		if got, want := PositionKey(text), h.Sum64(); got != want {
			t.Errorf("PositionKey(%q) = %#x, want %#x", text, got, want)
		}
	}
	if got, want := PositionKey("a"), uint64(0xaf63dc4c8601ec8c); got != want {
		t.Errorf("PositionKey(\"a\") = %#x, want %#x", got, want)
	}
}

func TestSplitPosition(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []PositionField
		err  string
	}{
		{text: "ab  c", want: []PositionField{{"ab", 1}, {"c", 5}}},
		{text: " ab c ", want: []PositionField{{"ab", 2}, {"c", 5}}},
		{text: "", err: "g position, column 1: empty text; want 2 fields separated by blanks: x, y"},
		{text: "ab", err: "g position, column 3: the text ends after 1 fields, without the y; want 2 fields separated by blanks: x, y"},
		{text: "a b c", err: `g position, column 5: extra field "c"; want 2 fields separated by blanks: x, y`},
	} {
		t.Run(tc.text, func(t *testing.T) {
			got, err := SplitPosition("g", tc.text, "x", "y")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("SplitPosition(%q) error = %v, want %q", tc.text, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) || got[0] != tc.want[0] || got[1] != tc.want[1] {
				t.Errorf("SplitPosition(%q) = %v, want %v", tc.text, got, tc.want)
			}
		})
	}
}

func TestPositionErrorText(t *testing.T) {
	for _, tc := range []struct {
		err  PositionError
		want string
	}{
		{PositionError{Game: "castles", Col: 3, Msg: "bad", Want: "good"}, "castles position, column 3: bad; want good"},
		{PositionError{Game: "castles", Msg: "both castles on a1"}, "castles position: both castles on a1"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}
