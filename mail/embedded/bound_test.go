package embedded

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
)

// A player's mailbox keeps its newest MaxMessages: a delivery past the
// bound expunges the oldest, and a restart replays the same mailbox.
func TestPlayerMailboxBounded(t *testing.T) {
	dir := t.TempDir()
	opts := &Options{Dir: dir, MaxMessages: 5}
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		for _, to := range []string{"alice", "referee"} {
			raw := fmt.Sprintf("From: bob@pbem.local\r\nTo: %s@pbem.local\r\nMessage-ID: <m%d.%s@pbem.local>\r\n\r\nmove %d\r\n", to, i, to, i)
			if _, err := s.accts[to].deliver("INBOX", []byte(raw), nil, time.Time{}, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(when string) {
		for _, c := range []struct {
			who        string
			n, uidNext uint32
		}{{"alice", 5, 13}, {"referee", 12, 13}} {
			st, err := s.Status(c.who, "INBOX")
			if err != nil {
				t.Fatal(err)
			}
			if *st.NumMessages != c.n || st.UIDNext != imap.UID(c.uidNext) {
				t.Errorf("%s: %s's INBOX holds %d messages, UIDNEXT %d; want %d, %d", when, c.who, *st.NumMessages, st.UIDNext, c.n, c.uidNext)
			}
		}
	}
	check("after 12 deliveries")
	s.Close()
	if s, err = Start(opts); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("after a restart")
}

// The players' mail is bounded in bytes all together: deliveries to many
// players, each mailbox far under MaxMessages, keep only the newest that
// fit in MaxBytes, whoever holds them; the referee's mailbox is not
// counted; a restart replays the same mailboxes and keeps the bound.
func TestPlayersMailBoundedInBytes(t *testing.T) {
	dir := t.TempDir()
	players := []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"}
	const size, limit = 1000, 20_000 // each message about 1 KB; 20 kept
	opts := &Options{Dir: dir, Players: players, MaxBytes: limit}
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("x", size)
	var sent []string // "who i" in delivery order
	for i := range 60 {
		to := players[i*5%len(players)]
		for _, who := range []string{to, "referee"} {
			raw := fmt.Sprintf("From: bob@pbem.local\r\nTo: %s@pbem.local\r\nMessage-ID: <m%d.%s@pbem.local>\r\n\r\n%d %s\r\n", who, i, who, i, pad)
			raw = raw[:size]
			if _, err := s.accts[who].deliver("INBOX", []byte(raw), nil, time.Time{}, ""); err != nil {
				t.Fatal(err)
			}
		}
		sent = append(sent, to)
	}
	check := func(when string) {
		t.Helper()
		total := 0
		for _, p := range players {
			st, err := s.Status(p, "INBOX")
			if err != nil {
				t.Fatal(err)
			}
			total += int(*st.NumMessages)
			// the newest messages are those kept: count what each
			// should hold of the last 20 delivered
			want := 0
			for _, to := range sent[len(sent)-limit/size:] {
				if to == p {
					want++
				}
			}
			if int(*st.NumMessages) != want {
				t.Errorf("%s: %s holds %d messages, want the %d of the newest %d", when, p, *st.NumMessages, want, limit/size)
			}
		}
		if total != limit/size {
			t.Errorf("%s: the players hold %d messages, want %d (MaxBytes %d)", when, total, limit/size, limit)
		}
		st, err := s.Status("referee", "INBOX")
		if err != nil {
			t.Fatal(err)
		}
		if *st.NumMessages != 60 {
			t.Errorf("%s: the referee holds %d messages, want all 60", when, *st.NumMessages)
		}
	}
	check("after 60 deliveries")
	s.Close()
	if s, err = Start(opts); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("after a restart")
	if got := s.accts["p0"].ledger.bytes(); got > limit {
		t.Errorf("after a restart the ledger counts %d bytes, over %d", got, limit)
	}
}
