package mail_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pbem/mail"
)

// clientFixture is a reply as a mail client writes it
// (testdata/clients/NAME.eml) and what must be read from it
// (testdata/clients/NAME.want): header lines ("state:", "from:"), then a
// "-- commands --" section (the command lines the referee must find; the
// referee's tests check those) and a "-- fresh --" section, the exact text
// FreshText must return.
type clientFixture struct {
	name, raw       string
	state, from     string
	commands, fresh string
}

// clientFixtures reads every fixture of testdata/clients.
func clientFixtures(t *testing.T) []clientFixture {
	t.Helper()
	files, err := filepath.Glob("testdata/clients/*.eml")
	if err != nil {
		t.Fatal(err)
	}
	var out []clientFixture
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(f, ".eml") + ".want")
		if err != nil {
			t.Fatal(err)
		}
		fx := clientFixture{name: strings.TrimSuffix(filepath.Base(f), ".eml"), raw: string(raw)}
		head, rest, ok := strings.Cut(string(want), "-- commands --\n")
		cmds, fresh, ok2 := strings.Cut(rest, "-- fresh --\n")
		if !ok || !ok2 {
			t.Fatalf("%s.want: want header lines, then -- commands -- and -- fresh -- sections", fx.name)
		}
		for _, l := range strings.Split(strings.TrimSpace(head), "\n") {
			k, v, _ := strings.Cut(l, ":")
			switch strings.TrimSpace(k) {
			case "state":
				fx.state = strings.TrimSpace(v)
			case "from":
				fx.from = strings.TrimSpace(v)
			default:
				t.Fatalf("%s.want: unknown header line %q", fx.name, l)
			}
		}
		fx.commands, fx.fresh = cmds, strings.TrimSuffix(fresh, "\n")
		out = append(out, fx)
	}
	return out
}

// TestClientFixtures reads each client's reply through Parse and
// FreshText and compares the fresh text exactly: quotes, attributions,
// original-message blocks and signatures are gone, and what the sender
// wrote is kept line for line.
func TestClientFixtures(t *testing.T) {
	fixtures := clientFixtures(t)
	if len(fixtures) < 40 {
		t.Fatalf("%d client fixtures in testdata/clients, want at least 40", len(fixtures))
	}
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			in, err := mail.Parse([]byte(fx.raw))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got := in.From.String(); !strings.Contains(fx.from, in.From.Addr) || in.From.Addr == "" {
				t.Errorf("From = %s, want %s", got, fx.from)
			}
			if !strings.Contains(in.Subject, "[pbem #1 k7x9qabc]") {
				t.Errorf("Subject = %q, want the game's tag", in.Subject)
			}
			if got := mail.FreshText(in.Text); got != fx.fresh {
				t.Errorf("FreshText:\n got %q\nwant %q\ntext:\n%s", got, fx.fresh, in.Text)
			}
		})
	}
}
