package english

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "game", "1 game"},
		{0, "game", "0 games"},
		{3, "game", "3 games"},
		{-1, "minute", "-1 minutes"},
		{2, "ply", "2 plies"},
		{2, "day", "2 days"},
		{2, "half-point bye", "2 half-point byes"},
		{4, "address", "4 addresses"},
		{1, "address", "1 address"},
		{2, "other player", "2 other players"},
	} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if got := Count(1, "ply is", "plies are"); got != "1 ply is" {
		t.Errorf("Count(1) = %q", got)
	}
	if got := Count(3, "ply is", "plies are"); got != "3 plies are" {
		t.Errorf("Count(3) = %q", got)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{
		0:        "0 bytes",
		1:        "1 byte",
		999:      "999 bytes",
		1 << 10:  "1 KiB",
		400014:   "390 KiB",
		1000000:  "976 KiB",
		1 << 20:  "1 MiB",
		10276044: "9.8 MiB",
		32000000: "30.5 MiB",
	} {
		if got := ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
