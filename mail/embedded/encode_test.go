package embedded

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
)

// jsonFrame is a record framed as the journal framed it with
// encoding/json.
func jsonFrame(rec *record) ([]byte, error) {
	meta, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 8, 8+len(meta)+1+len(rec.raw))
	buf = append(append(append(buf, meta...), 0), rec.raw...)
	binary.BigEndian.PutUint32(buf[:4], uint32(len(buf)-8))
	binary.BigEndian.PutUint32(buf[4:8], crc32.ChecksumIEEE(buf[8:]))
	return buf, nil
}

// sameAsJSON fails t unless appendFrame writes rec as encoding/json did,
// byte for byte, or both refuse it.
func sameAsJSON(t *testing.T, rec *record) {
	t.Helper()
	want, wantErr := jsonFrame(rec)
	got, err := appendFrame([]byte("before"), rec)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%+v: error %v, encoding/json's %v", rec, err, wantErr)
	}
	if err != nil {
		if string(got) != "before" {
			t.Fatalf("%+v: refused, but %q written", rec, got)
		}
		return
	}
	if !bytes.HasPrefix(got, []byte("before")) || !bytes.Equal(got[len("before"):], want) {
		t.Fatalf("%+v:\n got %q\nwant %q", rec, got, want)
	}
}

func TestRecordEncodingIsJSON(t *testing.T) {
	at, zero, neg := int64(123456789012), int64(0), int64(-5)
	var uids imap.UIDSet
	uids.AddRange(1, 3)
	uids.AddNum(7, 4000000000)
	odd := "quote\" back\\ slash/ <b>&amp; \x00\x01\b\f\n\r\t\x1f\x7f é ☃ \u2028\u2029 \xff\xfe bad \xe2\x82 end"
	times := []time.Time{
		{},
		time.Date(2025, 6, 2, 10, 0, 0, 0, time.UTC),
		time.Date(2025, 6, 2, 10, 0, 0, 123456789, time.UTC),
		time.Date(2025, 6, 2, 10, 0, 0, 120000000, time.FixedZone("x", 5*3600+1800)),
		time.Date(2025, 6, 2, 10, 0, 0, 1, time.FixedZone("y", -8*3600)),
		time.Date(2025, 6, 2, 10, 0, 0, 0, time.FixedZone("lmt", 3600+75)), // seconds in the offset
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),                    // refused
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),                       // refused
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("z", 24*3600)), // refused
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.FixedZone("w", -23*3600-59*60)),
		time.Now(),
		time.Now().Round(0).In(time.Local),
	}
	recs := []*record{
		{Op: "boot", Mailbox: "3f8e-boot"},
		{Op: "append", Acct: "alice", Mailbox: "INBOX", Flags: []imap.Flag{imap.FlagSeen, "$Done"}, Time: times[2], Key: "bob@pbem.local\x00alice\x00<m1@pbem.local>", raw: []byte("Subject: x\r\n\r\nbody\x00with zero\r\n")},
		{Op: "ack", Acct: "alice", Mailbox: "", At: &at},
		{Op: "drop", At: &zero},
		{Op: "skip", Acct: "p", Mailbox: "INBOX", At: &neg},
		{Op: "store", Acct: "referee", Mailbox: "INBOX", StoreOp: int(imap.StoreFlagsDel), Flags: []imap.Flag{imap.FlagDeleted}, UIDs: uids},
		{Op: "store", Mailbox: "INBOX", StoreOp: -1, Flags: []imap.Flag{}, UIDs: imap.UIDSet{}},
		{Op: "move", Acct: "referee", Mailbox: "INBOX", Dest: "Processed", UIDs: imap.UIDSetNum(42)},
		{Op: "expunge", Mailbox: odd, Dest: odd, Acct: odd, Key: odd, Flags: []imap.Flag{imap.Flag(odd)}},
		{Op: "recent", Acct: "alice", Keys: []string{"a", odd, ""}},
		{Op: "recent", Keys: []string{}},
		{Op: odd},
		{},
	}
	for _, tm := range times {
		recs = append(recs, &record{Op: "put", Acct: "alice", Mailbox: "Sent", Time: tm, raw: []byte("x")})
	}
	for _, rec := range recs {
		sameAsJSON(t, rec)
	}

	// records of random strings (random bytes, ASCII, or UTF-8), sets
	// and times
	rng := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		n := rng.IntN(12)
		var b strings.Builder
		for range n {
			switch rng.IntN(3) {
			case 0:
				b.WriteByte(byte(rng.IntN(256)))
			case 1:
				b.WriteByte(byte(rng.IntN(128)))
			default:
				b.WriteRune(rune(rng.IntN(0x30000)))
			}
		}
		return b.String()
	}
	for range 5000 {
		rec := &record{Op: str(), Acct: str(), Mailbox: str(), Dest: str(), Key: str(), StoreOp: rng.IntN(5) - 2}
		for range rng.IntN(3) {
			rec.Flags = append(rec.Flags, imap.Flag(str()))
			rec.Keys = append(rec.Keys, str())
			start := imap.UID(rng.Uint32())
			rec.UIDs = append(rec.UIDs, imap.UIDRange{Start: start, Stop: start + imap.UID(rng.IntN(100))})
		}
		if rng.IntN(2) == 0 {
			n := rng.Int64() >> rng.IntN(64)
			rec.At = &n
		}
		if rng.IntN(2) == 0 {
			rec.Time = time.Unix(rng.Int64N(1<<38)-1<<37, rng.Int64N(1e9)).In(time.FixedZone("", (rng.IntN(49)-24)*3600+rng.IntN(4)*15*60))
		}
		sameAsJSON(t, rec)
	}
}

// What appendFrame writes, readRecords reads back as it was.
func TestRecordFrameReadsBack(t *testing.T) {
	at := int64(77)
	recs := []*record{
		{Op: "append", Acct: "alice", Mailbox: "INBOX", Flags: []imap.Flag{"\\Seen"}, Time: time.Date(2025, 6, 2, 10, 0, 0, 5, time.UTC), Key: "<k>&", raw: []byte("raw\x00bytes")},
		{Op: "ack", Acct: "alice", At: &at},
		{Op: "store", Acct: "bob", Mailbox: "Sent \"x\"", StoreOp: 1, Flags: []imap.Flag{"\\Deleted"}, UIDs: imap.UIDSetNum(1, 2, 3, 9)},
	}
	var buf []byte
	for _, rec := range recs {
		var err error
		if buf, err = appendFrame(buf, rec); err != nil {
			t.Fatal(err)
		}
	}
	var got []*record
	end, err := readRecords(bytes.NewReader(buf), func(_, _ int64, rec *record) error {
		got = append(got, rec)
		return nil
	})
	if err != nil || end != int64(len(buf)) {
		t.Fatalf("read to %d of %d: %v", end, len(buf), err)
	}
	for i := range recs {
		if recs[i].raw == nil {
			recs[i].raw = []byte{}
		}
		if !reflect.DeepEqual(got[i], recs[i]) {
			t.Errorf("record %d read back as %+v, want %+v", i, got[i], recs[i])
		}
	}
}

func FuzzRecordEncodingIsJSON(f *testing.F) {
	f.Add("append", "alice", "INBOX", "key<&>", uint32(1), uint32(9), int64(1748858400), int64(5), 3600, int64(3))
	f.Add("\xff\u2028", "", "\x00", "", uint32(0), uint32(0), int64(0), int64(0), 0, int64(-1))
	f.Fuzz(func(t *testing.T, op, acct, mailbox, key string, start, stop uint32, sec, nsec int64, offset int, at int64) {
		rec := &record{Op: op, Acct: acct, Mailbox: mailbox, Key: key, Flags: []imap.Flag{imap.Flag(key)}, Keys: []string{mailbox},
			UIDs: imap.UIDSet{{Start: imap.UID(start), Stop: imap.UID(stop)}}, At: &at,
			Time: time.Unix(sec, nsec).In(time.FixedZone("", offset))}
		sameAsJSON(t, rec)
	})
}
