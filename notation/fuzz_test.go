package notation_test

import (
	"testing"

	"pbem/notation"
)

// FuzzRecord: any bytes are read without a panic, every problem is located,
// and every game the checker accepts is written canonically in a form that
// reads back as the same game.
func FuzzRecord(f *testing.F) {
	for _, s := range []string{
		"[Game \"toy\"]\n[White \"A\"]\n\n1. t1 {c} t2 (1... t1 2. t1) 2. t1 $3 t3 0-1\n",
		"[Game \"toy\"] 1. t1 ((( *\n\n[Game \"toy\"] t1 *",
		"[Game \"toy\"] p p p p 1/2-1/2",
		"[Game \"toy\" 1. t1 {x\n*",
		"\x00\xff[[]]((",
		"[Game \"toy\"] [Termination \"resign\"] t1 ; hi\n t1!? 1-0",
		"\xef\xbb\xbf[Game \"toy\"] t1 *",
		"\xff\xfe[\x00G\x00a\x00m\x00e\x00 \x00\"\x00t\x00o\x00y\x00\"\x00]\x00 \x00*\x00",
		"[\x00G\x00a\x00m\x00e\x00",
		"Hello, this is no record.",
		"[Game \"toy\"\n[Event \"x\"] [Event \"y\"] t1 *",
		"[Game \"toy\"] t1 ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((t1))) *",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, problems := notation.Parse("f", data)
		for _, p := range problems {
			if p.Line < 1 || p.Col < 1 || p.Msg == "" {
				t.Fatalf("unlocated problem %q", p)
			}
		}
		for _, r := range recs {
			g, problems := notation.Check(r, toyLookup)
			for _, p := range problems {
				if p.Line < 1 || p.Col < 1 || p.Msg == "" {
					t.Fatalf("unlocated problem %q", p)
				}
			}
			if len(problems) > 0 {
				continue
			}
			text := notation.Format(g)
			again, problems := notation.Parse("f", []byte(text))
			if len(problems) > 0 || len(again) != 1 {
				t.Fatalf("canonical text does not read back (%v):\n%s", problems, text)
			}
			g2, problems := notation.Check(again[0], toyLookup)
			if len(problems) > 0 {
				t.Fatalf("canonical text does not check (%v):\n%s", problems, text)
			}
			if text2 := notation.Format(g2); text2 != text {
				t.Fatalf("canonical form is not stable:\n%s\n---\n%s", text, text2)
			}
		}
	})
}
