package mail

import (
	"fmt"
	"strings"
	"testing"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"pbem/mail/embedded"
)

// TestFetchBodiesBudget: the bodies kept from one FETCH stay within the
// budget whatever sizes the server reported (the poller splits a batch by
// them): once the next body would pass it, it is read and dropped, marked
// left for the next batch; the first body is always kept, so that the
// inbox moves on.
func TestFetchBodiesBudget(t *testing.T) {
	s, err := embedded.Start(&embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 4 {
		raw := fmt.Sprintf("From: bob@pbem.local\r\nMessage-ID: <m%d@pbem.local>\r\n\r\n%s\r\n", i, strings.Repeat("x", 30000))
		if err := s.Deliver("bob@pbem.local", []string{s.RefereeAddress()}, []byte(raw)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pw, _ := s.Password("referee")
	if err := c.Login(s.RefereeAddress(), pw).Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	var all imap.UIDSet
	all.AddRange(1, 4)
	for _, tc := range []struct {
		budget     int64
		kept, left int
	}{
		{70000, 2, 2},
		{10000, 1, 3},
		{1 << 20, 4, 0},
	} {
		bodies, err := fetchBodies(c, all, 50000, tc.budget, false)
		if err != nil {
			t.Fatal(err)
		}
		var kept, left int
		var bytes int64
		for _, b := range bodies {
			switch {
			case b.left:
				left++
				if b.raw != nil || b.ok {
					t.Errorf("budget %d: UID %d left, but with a body", tc.budget, b.uid)
				}
			case b.ok:
				kept++
				bytes += int64(len(b.raw))
				if b.size != int64(len(b.raw)) || !strings.Contains(string(b.raw), strings.Repeat("x", 30000)) {
					t.Errorf("budget %d: UID %d kept %d bytes of %d", tc.budget, b.uid, len(b.raw), b.size)
				}
			}
		}
		if kept != tc.kept || left != tc.left {
			t.Errorf("budget %d: %d bodies kept and %d left, want %d and %d", tc.budget, kept, left, tc.kept, tc.left)
		}
		if kept > 1 && bytes > tc.budget {
			t.Errorf("budget %d: %d bytes kept", tc.budget, bytes)
		}
	}
}
