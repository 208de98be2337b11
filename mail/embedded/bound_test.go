package embedded

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"

	"pbem/mail/embedded/internal/imapmemserver"
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

// A start with a lower MaxBytes evicts at once the oldest messages past
// it, from mailboxes of many players interleaved: the newest that fit are
// kept, whoever holds them and in whichever mailbox, and the referee's
// mail is not counted.
func TestBoundLoweredAtStart(t *testing.T) {
	dir := t.TempDir()
	players := []string{"p0", "p1", "p2", "p3", "p4", "p5"}
	const size = 1000
	opts := &Options{Dir: dir, Players: players, MaxBytes: 100 * size}
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	type held struct {
		who, mailbox string
		uid          imap.UID
	}
	var sent []held // in delivery order
	pad := strings.Repeat("x", size)
	for i := range 90 {
		who, mailbox := players[i*5%len(players)], "INBOX"
		if i%3 == 0 {
			mailbox = "Sent"
		}
		raw := fmt.Sprintf("From: bob@pbem.local\r\nTo: %s@pbem.local\r\nMessage-ID: <m%d@pbem.local>\r\n\r\n%d %s\r\n", who, i, i, pad)[:size]
		data, err := s.accts[who].deliver(mailbox, []byte(raw), nil, time.Time{}, "")
		if err != nil {
			t.Fatal(err)
		}
		sent = append(sent, held{who, mailbox, data.UID})
		if _, err := s.accts["referee"].deliver("INBOX", []byte(raw), nil, time.Time{}, ""); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	const kept = 25
	opts.MaxBytes = kept * size
	check := func(when string) {
		t.Helper()
		want := map[string][]imap.UID{}
		for _, h := range sent[len(sent)-kept:] {
			want[h.who+" "+h.mailbox] = append(want[h.who+" "+h.mailbox], h.uid)
		}
		for _, p := range players {
			for _, mailbox := range []string{"INBOX", "Sent"} {
				sess := imapmemserver.NewUserSession(s.accts[p].user)
				if _, err := sess.Select(mailbox, nil); err != nil {
					t.Fatal(err)
				}
				data, err := sess.Search(imapserver.NumKindUID, &imap.SearchCriteria{}, &imap.SearchOptions{})
				if err != nil {
					t.Fatal(err)
				}
				sess.Close()
				if got, want := data.AllUIDs(), want[p+" "+mailbox]; !slices.Equal(got, want) {
					t.Errorf("%s: %s's %s holds UIDs %v, want %v", when, p, mailbox, got, want)
				}
			}
		}
		if got := s.accts["p0"].ledger.bytes(); got != kept*size {
			t.Errorf("%s: the ledger counts %d bytes, want %d", when, got, kept*size)
		}
		st, err := s.Status("referee", "INBOX")
		if err != nil {
			t.Fatal(err)
		}
		if *st.NumMessages != 90 {
			t.Errorf("%s: the referee holds %d messages, want all 90", when, *st.NumMessages)
		}
	}
	for _, when := range []string{"at a start with a lower bound", "at the start after"} {
		if s, err = Start(opts); err != nil {
			t.Fatal(err)
		}
		check(when)
		s.Close()
	}
}
