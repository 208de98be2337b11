package imapmemserver

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
)

// A search on UIDs, sequence numbers, flags, dates or sizes parses no
// message (a header that go-message cannot read changes nothing); one on
// header fields, the date sent, the text or the body parses them, and
// finds what upstream finds.
func TestSearchParsesOnlyWhatItReads(t *testing.T) {
	u := NewUser("u", "p")
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2025, 6, 2, 12, 0, 0, 0, time.UTC)
	const n = 40
	for i := range n {
		raw := fmt.Sprintf("Subject: message %d\r\nDate: Mon, %d Jun 2025 10:00:00 +0000\r\n\r\nbody %d\r\n", i, 1+i%5, i)
		if i%4 == 3 {
			raw = "\x00garbage: \xff\r\n no header here\r\n" // not a header go-message reads
		}
		var flags []imap.Flag
		if i%2 == 1 {
			flags = append(flags, imap.FlagSeen)
		}
		if i%3 == 0 {
			flags = append(flags, "$Done")
		}
		if _, err := u.Append("INBOX", literal(raw), &imap.AppendOptions{Flags: flags, Time: day.AddDate(0, 0, i%3)}); err != nil {
			t.Fatal(err)
		}
	}
	sess := NewUserSession(u)
	defer sess.Close()
	if _, err := sess.Select("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	// want lists the UIDs (1 to n) whose index i passes keep
	want := func(keep func(i int) bool) []imap.UID {
		var out []imap.UID
		for i := range n {
			if keep(i) {
				out = append(out, imap.UID(i+1))
			}
		}
		return out
	}
	search := func(c imap.SearchCriteria) []imap.UID {
		t.Helper()
		data, err := sess.Search(imapserver.NumKindUID, &c, &imap.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return data.AllUIDs()
	}
	var some imap.UIDSet
	some.AddRange(5, 12)
	for _, c := range []struct {
		name string
		c    imap.SearchCriteria
		want []imap.UID
	}{
		{"UNSEEN", imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, want(func(i int) bool { return i%2 == 0 })},
		{"ALL", imap.SearchCriteria{}, want(func(int) bool { return true })},
		{"UID 5:12 KEYWORD $Done", imap.SearchCriteria{UID: []imap.UIDSet{some}, Flag: []imap.Flag{"$done"}}, want(func(i int) bool { return i >= 4 && i < 12 && i%3 == 0 })},
		{"1:3", imap.SearchCriteria{SeqNum: []imap.SeqSet{imap.SeqSetNum(1, 2, 3)}}, want(func(i int) bool { return i < 3 })},
		{"SINCE BEFORE", imap.SearchCriteria{Since: time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC), Before: time.Date(2025, 6, 4, 0, 0, 0, 0, time.UTC)}, want(func(i int) bool { return i%3 == 1 })},
		{"LARGER", imap.SearchCriteria{Larger: 1000}, nil},
		{"NOT SEEN OR", imap.SearchCriteria{
			Not: []imap.SearchCriteria{{Flag: []imap.Flag{imap.FlagSeen}}},
			Or:  [][2]imap.SearchCriteria{{{Flag: []imap.Flag{"$Done"}}, {UID: []imap.UIDSet{imap.UIDSetNum(2, 3)}}}},
		}, want(func(i int) bool { return i%2 == 0 && (i%3 == 0 || i == 2) })},
	} {
		before := SearchReads()
		if got := search(c.c); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if reads := SearchReads() - before; reads != 0 {
			t.Errorf("%s parsed %d messages, want none", c.name, reads)
		}
	}
	for _, c := range []struct {
		name string
		c    imap.SearchCriteria
		want []imap.UID
	}{
		{"HEADER Subject", imap.SearchCriteria{Header: []imap.SearchCriteriaHeaderField{{Key: "Subject", Value: "message 1"}}}, want(func(i int) bool { return i%4 != 3 && (i == 1 || i >= 10 && i < 20) })},
		{"UNSEEN SENTSINCE", imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}, SentSince: time.Date(2025, 6, 4, 0, 0, 0, 0, time.UTC)}, want(func(i int) bool { return i%2 == 0 && i%4 != 3 && i%5 >= 3 })},
		{"BODY", imap.SearchCriteria{Body: []string{"body 7"}}, nil},
		{"TEXT", imap.SearchCriteria{Text: []string{"body 2"}}, want(func(i int) bool { return i == 2 || i >= 20 && i < 30 && i%4 != 3 })},
	} {
		before := SearchReads()
		if got := search(c.c); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if reads := SearchReads() - before; reads == 0 {
			t.Errorf("%s parsed no message", c.name)
		}
	}
}

// literal is an imap.LiteralReader of s.
type literalReader struct {
	*bytes.Reader
}

func (l literalReader) Size() int64 { return l.Reader.Size() }

func literal(s string) imap.LiteralReader { return literalReader{bytes.NewReader([]byte(s))} }

// A message added is kept in a buffer of about its size, made at once.
func TestAppendKeepsMessageInItsSize(t *testing.T) {
	u := NewUser("u", "p")
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	raw := "Subject: x\r\n\r\n" + strings.Repeat("y", 12<<10)
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := u.Append("INBOX", literal(raw), &imap.AppendOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	mbox, err := u.mailbox("INBOX")
	if err != nil {
		t.Fatal(err)
	}
	buf := mbox.l[0].buf
	if string(buf) != raw {
		t.Fatalf("kept %q, want %q", buf[:20], raw[:20])
	}
	if n := len(raw); cap(buf) > n*9/8+bytes.MinRead {
		t.Errorf("a message of %d bytes kept in a buffer of %d", n, cap(buf))
	}
	if allocs > 8 {
		t.Errorf("%.0f allocations to add a message", allocs)
	}
}

// AppendBytes keeps the caller's buffer as the message, not a copy; it and
// Append answer a mailbox that does not exist with TRYCREATE, adding
// nothing.
func TestAppendBytes(t *testing.T) {
	u := NewUser("u", "p")
	if err := u.Create("INBOX", nil); err != nil {
		t.Fatal(err)
	}
	raw := []byte("Subject: x\r\n\r\nbody\r\n")
	data, err := u.AppendBytes("INBOX", raw, &imap.AppendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mbox, err := u.mailbox("INBOX")
	if err != nil {
		t.Fatal(err)
	}
	if len(mbox.l) != 1 || mbox.l[0].uid != data.UID {
		t.Fatalf("INBOX holds %d messages after one append (UID %d)", len(mbox.l), data.UID)
	}
	if buf := mbox.l[0].buf; &buf[0] != &raw[0] || len(buf) != len(raw) {
		t.Errorf("the message was copied (%d bytes), want the %d bytes handed over", len(buf), len(raw))
	}

	for name, appendTo := range map[string]func() (*imap.AppendData, error){
		"Append": func() (*imap.AppendData, error) {
			return u.Append("Nowhere", literal(string(raw)), &imap.AppendOptions{})
		},
		"AppendBytes": func() (*imap.AppendData, error) { return u.AppendBytes("Nowhere", raw, &imap.AppendOptions{}) },
	} {
		got, err := appendTo()
		var ierr *imap.Error
		if got != nil || !errors.As(err, &ierr) || ierr.Code != imap.ResponseCodeTryCreate || ierr.Type != imap.StatusResponseTypeNo {
			t.Errorf("%s to a missing mailbox: %v, %v; want NO [TRYCREATE]", name, got, err)
		}
	}
	if len(mbox.l) != 1 {
		t.Errorf("INBOX holds %d messages, want 1", len(mbox.l))
	}
}
