package referee

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseIfLine(t *testing.T) {
	for _, tc := range []struct {
		line  string
		plies []string
		cols  []int
		then  int
		err   string
	}{
		{"if Cb1-c2 then Ca4-b3", []string{"Cb1-c2", "Ca4-b3"}, []int{4, 16}, 1, ""},
		{"IF Y:Lg1-f2 G:Le9-e8 THEN R:Lb2-b3 Y:pass G:pass R:pass", []string{"Y:Lg1-f2", "G:Le9-e8", "R:Lb2-b3", "Y:pass", "G:pass", "R:pass"}, []int{4, 13, 27, 36, 43, 50}, 2, ""},
		{"if Sa1:b2>a2, -b2 then Fe1:-c3", []string{"Sa1:b2>a2,-b2", "Fe1:-c3"}, []int{4, 24}, 1, ""},
		{"if\u00a0+1\u00a0then +2", []string{"+1", "+2"}, []int{4, 12}, 1, ""},
		{"if then +2", nil, nil, 0, "column 4: a ply of another seat must come between if and then"},
		{"if +1 +2", nil, nil, 0, "then is missing"},
		{"if +1 then", nil, nil, 0, "your ply must follow then"},
		{"if +1 then +2 then +3", nil, nil, 0, `column 15: "then" a second time`},
		{"when +1 then +2", nil, nil, 0, "starts with if"},
	} {
		c, err := parseIfLine(tc.line)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseIfLine(%q) error = %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseIfLine(%q): %v", tc.line, err)
			continue
		}
		if strings.Join(c.plies, " ") != strings.Join(tc.plies, " ") || c.then != tc.then || len(c.cols) != len(tc.cols) {
			t.Errorf("parseIfLine(%q) = %q then at %d cols %v, want %q then at %d cols %v", tc.line, c.plies, c.then, c.cols, tc.plies, tc.then, tc.cols)
			continue
		}
		for i := range c.cols {
			if c.cols[i] != tc.cols[i] {
				t.Errorf("parseIfLine(%q) cols = %v, want %v", tc.line, c.cols, tc.cols)
				break
			}
		}
	}
}

func TestIsIfLine(t *testing.T) {
	for line, want := range map[string]bool{
		"if Cb1-c2 then Ca4-b3":               true,
		"If Y:pass G:Le9-e8 then R:Lb2-b3":    true,
		"if +1 then +2":                       true,
		"If you agree then I resign":          false,
		"if Cb1-c2, I would play Ca4-b3 then": true,
		"if Cb1-c2":                           false,
		"Cb1-c2 then Ca4-b3":                  false,
	} {
		if got := isIfLine(line); got != want {
			t.Errorf("isIfLine(%q) = %v, want %v", line, got, want)
		}
	}
}

// FuzzIfLine: the reader of conditional lines never panics, and what it
// reads is plies of one word each, with the column where each starts, and
// then between the first and the last.
func FuzzIfLine(f *testing.F) {
	for _, s := range []string{"if Cb1-c2 then Ca4-b3", "if Y:Lg1-f2 G:Le9-e8 then R:Lb2-b3", "if a, b then c", "if\tthen", "if x then y then z", "if \xff then \u00a0x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		isIfLine(line)
		c, err := parseIfLine(line)
		if err != nil {
			return
		}
		if c.then < 1 || c.then >= len(c.plies) || len(c.cols) != len(c.plies) {
			t.Fatalf("parseIfLine(%q) = %+v", line, c)
		}
		n := utf8.RuneCountInString(line)
		for i, p := range c.plies {
			if p == "" || strings.ContainsAny(p, " \t\u00a0") {
				t.Fatalf("parseIfLine(%q): ply %d is %q", line, i, p)
			}
			if c.cols[i] < 1 || c.cols[i] > n {
				t.Fatalf("parseIfLine(%q): column %d of ply %d is outside the line", line, c.cols[i], i)
			}
		}
	})
}
