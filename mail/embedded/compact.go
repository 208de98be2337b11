package embedded

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
)

// Compaction. The journal only grows: every delivery, flag change and
// expunge is a record, and a start replays them all. When the servers
// close, and at start before the replay (after a crash), a journal much
// larger than the mail it still holds is rewritten
// as a snapshot of that mail: per account, the mailboxes created in the
// order that gives them their UIDVALIDITY (mailboxes since deleted stand
// in as a create and a delete), then per mailbox its messages with their
// UIDs, flags and dates ("put"), the UIDs given out to messages since
// expunged standing in as "skip" (that many empty messages added and
// expunged, which only moves UIDNEXT), and the subscriptions. UIDs and
// UIDVALIDITY come out as before, so clients keep their caches. The keys
// of the last deliveries (Servers.Delivered) follow in one "recent"
// record. The snapshot is written beside the journal, synced, and renamed
// over it: a crash leaves the one or the other whole.
//
// A journal the snapshot cannot reproduce exactly is left as it is:
// deliveries without their ack at the end (settled by the replay), a
// rename, an initial mailbox deleted and created again, an operation it
// does not know.

// compactMin is the smallest journal compacted, and compactRatio how many
// times the mail it holds it must be.
var compactMin int64 = 4 << 20 // a variable for tests

const compactRatio = 2

// errNoCompact says why a journal is left as it is.
type errNoCompact struct{ why string }

func (e errNoCompact) Error() string { return "not compacted: " + e.why }

// simMessage is a message of the simulated state.
type simMessage struct {
	uid   imap.UID
	flags []imap.Flag // as given, canonical (lower case) unique
	t     time.Time
	raw   []byte
}

type simMailbox struct {
	validity uint32
	next     imap.UID
	msgs     []*simMessage // by UID
}

type simAccount struct {
	prev       uint32 // the last UIDVALIDITY given out
	mailboxes  map[string]*simMailbox
	subscribed map[string]bool
}

func newSimAccount() *simAccount {
	// Start creates INBOX and Sent for every account.
	return &simAccount{prev: 2, subscribed: map[string]bool{}, mailboxes: map[string]*simMailbox{
		"INBOX": {validity: 1, next: 1}, "Sent": {validity: 2, next: 1},
	}}
}

func canon(f imap.Flag) imap.Flag { return imap.Flag(strings.ToLower(string(f))) }

func (m *simMessage) setFlags(op imap.StoreFlagsOp, flags []imap.Flag) {
	has := map[imap.Flag]bool{}
	for _, f := range m.flags {
		has[f] = true
	}
	if op == imap.StoreFlagsSet {
		clear(has)
	}
	for _, f := range flags {
		if op == imap.StoreFlagsDel {
			delete(has, canon(f))
		} else {
			has[canon(f)] = true
		}
	}
	m.flags = slices.Sorted(maps.Keys(has))
}

func (m *simMessage) deleted() bool { return slices.Contains(m.flags, canon(imap.FlagDeleted)) }

func (mb *simMailbox) add(raw []byte, flags []imap.Flag, t time.Time) {
	m := &simMessage{uid: mb.next, t: t, raw: raw}
	m.setFlags(imap.StoreFlagsAdd, flags)
	mb.next++
	mb.msgs = append(mb.msgs, m)
}

// each calls fn for the messages whose UIDs are in uids, in UID order.
func (mb *simMailbox) each(uids imap.UIDSet, fn func(*simMessage)) {
	for _, m := range mb.msgs {
		if uids.Contains(m.uid) {
			fn(m)
		}
	}
}

// apply redoes rec on the simulated account, as account.apply does on the
// real one.
func (a *simAccount) apply(rec *record) error {
	switch rec.Op {
	case "append", "put":
		mb := a.mailboxes[rec.Mailbox]
		if mb == nil {
			return errNoCompact{"append to a missing mailbox"}
		}
		mb.add(rec.raw, rec.Flags, rec.Time)
		return nil
	case "skip":
		mb := a.mailboxes[rec.Mailbox]
		if mb == nil || rec.At == nil {
			return errNoCompact{"skip in a missing mailbox"}
		}
		mb.next += imap.UID(*rec.At)
		return nil
	case "create":
		if a.mailboxes[rec.Mailbox] != nil {
			return errNoCompact{"create of an existing mailbox"}
		}
		a.prev++
		a.mailboxes[rec.Mailbox] = &simMailbox{validity: a.prev, next: 1}
		return nil
	case "delete":
		if rec.Mailbox == "INBOX" || rec.Mailbox == "Sent" {
			return errNoCompact{"an initial mailbox deleted"}
		}
		delete(a.mailboxes, rec.Mailbox)
		return nil
	case "subscribe":
		a.subscribed[rec.Mailbox] = true
		return nil
	case "unsubscribe":
		delete(a.subscribed, rec.Mailbox)
		return nil
	case "recent":
		return nil
	}
	mb := a.mailboxes[rec.Mailbox]
	if mb == nil {
		return errNoCompact{rec.Op + " in a missing mailbox"}
	}
	switch rec.Op {
	case "store":
		mb.each(rec.UIDs, func(m *simMessage) { m.setFlags(imap.StoreFlagsOp(rec.StoreOp), rec.Flags) })
		return nil
	case "copy", "move":
		dest := a.mailboxes[rec.Dest]
		if dest == nil || dest == mb {
			return errNoCompact{rec.Op + " to a missing mailbox"}
		}
		mb.each(rec.UIDs, func(m *simMessage) { dest.add(m.raw, m.flags, m.t) })
		if rec.Op == "move" {
			mb.msgs = slices.DeleteFunc(mb.msgs, func(m *simMessage) bool { return rec.UIDs.Contains(m.uid) })
		}
		return nil
	case "expunge":
		mb.msgs = slices.DeleteFunc(mb.msgs, func(m *simMessage) bool {
			return m.deleted() && (len(rec.UIDs) == 0 || rec.UIDs.Contains(m.uid))
		})
		return nil
	}
	return errNoCompact{"operation " + rec.Op}
}

// readRecords calls fn with each whole record of r and its offset; it
// stops at the end or at a torn or damaged record, as replay does.
func readRecords(r io.Reader, fn func(at int64, rec *record) error) (end int64, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var head [8]byte
	for {
		if _, err := io.ReadFull(br, head[:]); err != nil {
			return end, nil
		}
		size := binary.BigEndian.Uint32(head[:4])
		if size > maxRecord {
			return end, nil
		}
		payload := make([]byte, size)
		if _, err := io.ReadFull(br, payload); err != nil {
			return end, nil
		}
		if crc32.ChecksumIEEE(payload) != binary.BigEndian.Uint32(head[4:]) {
			return end, nil
		}
		meta, raw, _ := bytes.Cut(payload, []byte{0})
		var rec record
		if err := json.Unmarshal(meta, &rec); err != nil {
			return end, fmt.Errorf("record at %d: %w", end, err)
		}
		rec.raw = raw
		if err := fn(end, &rec); err != nil {
			return end, err
		}
		end += int64(len(head) + len(payload))
	}
}

// compact rewrites the journal at path as a snapshot when it is at least
// compactMin bytes and compactRatio times the mail it holds. It reports
// the sizes before and after (equal when it left the journal as it is).
func compact(path string) (before, after int64, err error) {
	st, err := os.Stat(path)
	if err != nil || st.Size() < compactMin {
		if errors.Is(err, os.ErrNotExist) {
			err = nil
		}
		return 0, 0, err
	}
	before = st.Size()
	f, err := os.Open(path)
	if err != nil {
		return before, before, err
	}
	defer f.Close()
	accts := map[string]*simAccount{}
	acct := func(name string) *simAccount {
		a := accts[name]
		if a == nil {
			a = newSimAccount()
			accts[name] = a
		}
		return a
	}
	pending := map[int64]*record{}
	var keys []string // of the acked deliveries, in order
	_, err = readRecords(f, func(at int64, rec *record) error {
		switch rec.Op {
		case "append":
			pending[at] = rec
			return nil
		case "ack", "drop":
			if rec.At == nil {
				return errNoCompact{"an ack without its delivery's offset"}
			}
			d := pending[*rec.At]
			if d == nil {
				return errNoCompact{"an ack of no delivery"}
			}
			delete(pending, *rec.At)
			if rec.Op == "drop" {
				return nil
			}
			if d.Key != "" {
				keys = append(keys, d.Key)
			}
			return acct(d.Acct).apply(d)
		case "boot":
			if len(pending) > 0 {
				return errNoCompact{"deliveries settled by a boot"}
			}
			return nil
		case "recent":
			keys = append(keys, rec.Keys...)
			return nil
		case "rename":
			return errNoCompact{"a rename"}
		}
		return acct(rec.Acct).apply(rec)
	})
	if err == nil && len(pending) > 0 {
		err = errNoCompact{"deliveries without their ack"}
	}
	if err != nil {
		if errors.As(err, new(errNoCompact)) {
			return before, before, nil
		}
		return before, before, err
	}
	var live int64
	for _, a := range accts {
		for _, mb := range a.mailboxes {
			for _, m := range mb.msgs {
				live += int64(len(m.raw)) + 256
			}
		}
	}
	if before < compactRatio*live {
		return before, before, nil
	}
	tmp := path + ".compact"
	out, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return before, before, err
	}
	defer os.Remove(tmp) // gone once renamed
	j := &journal{f: out, path: tmp}
	w := func(rec *record) error {
		_, _, err := j.write(rec)
		return err
	}
	if err := writeSnapshot(accts, keys, w); err != nil {
		out.Close()
		return before, before, err
	}
	after = j.end.Load()
	if err := out.Sync(); err != nil {
		out.Close()
		return before, before, err
	}
	if err := out.Close(); err != nil {
		return before, before, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return before, before, err
	}
	return before, after, syncDir(filepath.Dir(path))
}

// writeSnapshot writes the records that rebuild accts, then the keys of
// the last deliveries.
func writeSnapshot(accts map[string]*simAccount, keys []string, w func(*record) error) error {
	for _, name := range slices.Sorted(maps.Keys(accts)) {
		a := accts[name]
		byValidity := map[uint32]string{}
		for mbName, mb := range a.mailboxes {
			byValidity[mb.validity] = mbName
		}
		if byValidity[1] != "INBOX" || byValidity[2] != "Sent" {
			return fmt.Errorf("embedded: compact: account %s: INBOX or Sent not as created at start", name)
		}
		for v := uint32(3); v <= a.prev; v++ {
			if mbName, ok := byValidity[v]; ok {
				if err := w(&record{Op: "create", Acct: name, Mailbox: mbName}); err != nil {
					return err
				}
				continue
			}
			// A mailbox since deleted: its UIDVALIDITY stays used.
			gap := fmt.Sprintf("pbem-gap-%d", v)
			for _, op := range []string{"create", "delete"} {
				if err := w(&record{Op: op, Acct: name, Mailbox: gap}); err != nil {
					return err
				}
			}
		}
		for _, v := range slices.Sorted(maps.Keys(byValidity)) {
			mbName := byValidity[v]
			mb := a.mailboxes[mbName]
			next := imap.UID(1)
			skip := func(to imap.UID) error {
				if to <= next {
					return nil
				}
				n := int64(to - next)
				return w(&record{Op: "skip", Acct: name, Mailbox: mbName, At: &n})
			}
			for _, m := range mb.msgs {
				if err := skip(m.uid); err != nil {
					return err
				}
				if err := w(&record{Op: "put", Acct: name, Mailbox: mbName, Flags: m.flags, Time: m.t, raw: m.raw}); err != nil {
					return err
				}
				next = m.uid + 1
			}
			if err := skip(mb.next); err != nil {
				return err
			}
		}
		for _, mbName := range slices.Sorted(maps.Keys(a.subscribed)) {
			if a.mailboxes[mbName] != nil {
				if err := w(&record{Op: "subscribe", Acct: name, Mailbox: mbName}); err != nil {
					return err
				}
			}
		}
	}
	if len(keys) > recentDeliveries {
		keys = keys[len(keys)-recentDeliveries:]
	}
	if len(keys) > 0 && len(accts) > 0 {
		// The keys are the servers', whichever account carries them.
		return w(&record{Op: "recent", Acct: slices.Sorted(maps.Keys(accts))[0], Keys: keys})
	}
	return nil
}
