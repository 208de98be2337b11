package embedded

import (
	"fmt"
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
