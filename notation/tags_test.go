package notation

import (
	"fmt"
	"testing"
)

// TestDuplicateTags: a tag given twice is reported at its second place,
// naming the lines of both, whether the game has a few tags (compared
// pairwise) or many (through a map).
func TestDuplicateTags(t *testing.T) {
	for _, n := range []int{3, fewTags, fewTags + 1, 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			r := &Record{File: "f", Index: 1}
			for i := range n {
				r.Tags = append(r.Tags, Tag{Name: fmt.Sprintf("T%d", i), Pos: Pos{Line: i + 1, Col: 1}})
			}
			r.Tags[n-1].Name = "T1"              // the second T1, on line n
			r.Tags = append(r.Tags, r.Tags[n-1]) // a third, on the same line
			ps := duplicateTags(r)
			want := []string{
				fmt.Sprintf("f:%d:1: game 1, ply 0 \"T1\": tag [T1] given twice, on lines 2 and %d; expected each tag once", n, n),
				fmt.Sprintf("f:%d:1: game 1, ply 0 \"T1\": tag [T1] given twice, on lines 2 and %d; expected each tag once", n, n),
			}
			if len(ps) != len(want) {
				t.Fatalf("%d problems, want %d: %v", len(ps), len(want), ps)
			}
			for i, p := range ps {
				if p.String() != want[i] {
					t.Errorf("problem %d = %s, want %s", i, p, want[i])
				}
			}
		})
	}
}

// TestValidDate: the Date tag's shape, field by field.
func TestValidDate(t *testing.T) {
	for v, want := range map[string]bool{
		"2026.11.25": true, "????.??.??": true, "2026.??.??": true, "2026.11.??": true,
		"????.11.25": true, "2026.1.25": false, "2026-11-25": false, "2026.11.25 ": false,
		"20?6.11.25": false, "2026.1?.25": false, "": false, "2026.11.2x": false, "abcd.ef.gh": false,
	} {
		if got := validDate(v); got != want {
			t.Errorf("validDate(%q) = %v, want %v", v, got, want)
		}
	}
}
