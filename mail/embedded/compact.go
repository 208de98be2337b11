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

// simMessage is a message of the simulated state: its bytes, or (the
// state a running journal keeps, see online.go) where they are in the
// journal's file.
type simMessage struct {
	uid   imap.UID
	flags []imap.Flag // as given, canonical (lower case) unique
	t     time.Time
	raw   []byte
	off   int64 // with raw nil: the bytes are n at off in the file
	n     int
}

// size is the length of the message's bytes.
func (m *simMessage) size() int {
	if m.raw != nil {
		return len(m.raw)
	}
	return m.n
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

// add adds a message like from (its bytes, or their place, and its date)
// with flags.
func (mb *simMailbox) add(from simMessage, flags []imap.Flag) {
	m := &simMessage{uid: mb.next, t: from.t, raw: from.raw, off: from.off, n: from.n}
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
		mb.add(simMessage{t: rec.Time, raw: rec.raw, off: rec.rawOff, n: rec.rawLen}, rec.Flags)
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
		mb.each(rec.UIDs, func(m *simMessage) { dest.add(*m, m.flags) })
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

// simState is the mail of a journal, simulated from its records in
// order: the deliveries waiting for their ack, the accounts, the keys of
// the acked deliveries.
type simState struct {
	accts   map[string]*simAccount
	pending map[int64]*record // appends without their ack yet, by offset
	keys    []string          // of the acked deliveries, in order
	// refs: messages are kept by their place in the file, not their
	// bytes, and a boot record drops the deliveries left without an ack,
	// as the replay does (the state a running journal keeps); without,
	// such a boot leaves the journal as it is (compact).
	refs bool
}

func newSimState(refs bool) *simState {
	return &simState{accts: map[string]*simAccount{}, pending: map[int64]*record{}, refs: refs}
}

func (st *simState) acct(name string) *simAccount {
	a := st.accts[name]
	if a == nil {
		a = newSimAccount()
		st.accts[name] = a
	}
	return a
}

// feed applies the record rec found at offset at of the file, ending at
// next.
func (st *simState) feed(at, next int64, rec *record) error {
	if st.refs && rec.raw != nil {
		r := *rec
		r.raw, r.rawOff, r.rawLen = nil, next-int64(len(rec.raw)), len(rec.raw)
		rec = &r
	}
	switch rec.Op {
	case "append":
		st.pending[at] = rec
		return nil
	case "ack", "drop":
		if rec.At == nil {
			return errNoCompact{"an ack without its delivery's offset"}
		}
		d := st.pending[*rec.At]
		if d == nil {
			return errNoCompact{"an ack of no delivery"}
		}
		delete(st.pending, *rec.At)
		if rec.Op == "drop" {
			return nil
		}
		if d.Key != "" {
			st.keys = append(st.keys, d.Key)
			if len(st.keys) > 2*recentDeliveries {
				st.keys = append(st.keys[:0], st.keys[len(st.keys)-recentDeliveries:]...)
			}
		}
		return st.acct(d.Acct).apply(d)
	case "boot":
		if len(st.pending) > 0 {
			if !st.refs {
				return errNoCompact{"deliveries settled by a boot"}
			}
			clear(st.pending)
		}
		return nil
	case "recent":
		st.keys = append(st.keys, rec.Keys...)
		return nil
	case "rename":
		return errNoCompact{"a rename"}
	}
	return st.acct(rec.Acct).apply(rec)
}

// live is about what the mail of st takes in a snapshot.
func (st *simState) live() int64 {
	var n int64
	for _, a := range st.accts {
		for _, mb := range a.mailboxes {
			for _, m := range mb.msgs {
				n += int64(m.size()) + 256
			}
		}
	}
	return n
}

// readRecords calls fn with each whole record of r, its offset and the
// offset after it; it
// stops at the end or at a torn or damaged record, as replay does.
func readRecords(r io.Reader, fn func(at, next int64, rec *record) error) (end int64, err error) {
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
		next := end + int64(len(head)+len(payload))
		if err := fn(end, next, &rec); err != nil {
			return end, err
		}
		end = next
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
	sim := newSimState(false)
	_, err = readRecords(f, sim.feed)
	if err == nil && len(sim.pending) > 0 {
		err = errNoCompact{"deliveries without their ack"}
	}
	if err != nil {
		if errors.As(err, new(errNoCompact)) {
			return before, before, nil
		}
		return before, before, err
	}
	accts, keys := sim.accts, sim.keys
	if before < compactRatio*sim.live() {
		return before, before, nil
	}
	tmp := path + ".compact"
	out, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return before, before, err
	}
	defer os.Remove(tmp) // gone once renamed
	j := &journal{f: out, path: tmp}
	if err := writeSnapshot(accts, keys, j.write); err != nil {
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
// A message kept by its place in the file (raw nil) must have its bytes
// read into raw first; each message's place in the snapshot is noted in
// it (off, n) and raw dropped, so the state goes on from the snapshot.
func writeSnapshot(accts map[string]*simAccount, keys []string, write func(*record) (at, end int64, err error)) error {
	w := func(rec *record) error {
		_, _, err := write(rec)
		return err
	}
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
				_, end, err := write(&record{Op: "put", Acct: name, Mailbox: mbName, Flags: m.flags, Time: m.t, raw: m.raw})
				if err != nil {
					return err
				}
				m.off, m.n = end-int64(len(m.raw)), len(m.raw)
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
