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
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// An account's mail lives in memory (imapmemserver) and, when Options.Dir
// is set, in an append-only journal beside it: every change to the account
// (a delivery, an APPEND, a flag change, a copy, a move, an expunge, a
// mailbox created, deleted or renamed) is one record, fsynced before the
// change is acknowledged, to the SMTP client (250) or the IMAP client (OK).
// At start the journal is replayed in order into a fresh in-memory account,
// which gives the same mailboxes, messages, flags, UIDs and UIDVALIDITY.
//
// Changes to one account are serialized (account.mu): a change is made in
// memory and its record written under the lock, so the journal's order is
// the order in which UIDs were given out. Messages are named by UID in the
// journal, never by sequence number. The fsync is not made under the lock:
// a writer waits for its record to be synced (account.synced) after
// releasing it, and one fsync covers every record written so far, so
// changes that arrive together share one fsync (group sync) and the IMAP
// side never waits behind a delivery's fsync for the lock. (A change made
// over IMAP is visible to the account's other sessions from the moment it
// is made, before its fsync; its own OK waits for the fsync.)
//
// A record is framed as: payload length (4 bytes, big-endian), CRC-32 of
// the payload (4 bytes), payload; the payload is the JSON of a record, a
// zero byte, and the message's bytes for an append. A torn record at the
// end (a crash while writing it; it was never acknowledged) is cut off at
// the next start.
//
// A delivery is written and fsynced before it is made in memory: the
// message is never visible over IMAP before it is on disk. Then, under the
// lock, it is added to the mailbox (which gives it its UID) and an "ack"
// record naming the delivery's offset is written (not synced: a write
// survives the process), and only then is the sender told 250. The replay
// adds a delivery to its mailbox where its ack stands, so UIDs come out in
// the order the servers gave them, however the deliveries' records and
// their fsyncs interleaved. A delivery that failed after its fsync (its
// mailbox was deleted meanwhile) is followed by a "drop" record instead.
//
// At the next start, deliveries without their ack are kept only if the
// machine rebooted since (an ack may have been lost with the page cache
// after the 250 went out), added after everything else in the order they
// were written, and acked at once; after a mere process crash they are
// dropped: their senders never got a 250 and send the messages again. A
// "boot" record, written at every start after those acks, settles every
// delivery before it: one still without its ack there was dropped. So a
// crash of the process between the fsync and the 250, the longest step,
// neither loses nor doubles a message. (A message for several local
// recipients is delivered and acknowledged to each in turn: a crash
// between two of them doubles it for the first.) Journals written before
// acks named their delivery have each ack right after its delivery; an
// ack naming no offset acks the record just before it.

// maxRecord bounds one journal record: the largest message the SMTP server
// takes and room for its description.
const maxRecord = 11 << 20

// journalFile is an account's open journal. It is an interface so that
// tests can count and hold its fsyncs (Options.wrapJournal).
type journalFile interface {
	io.Writer
	Sync() error
	Close() error
}

// errClosed is the error of a change made after Close.
var errClosed = errors.New("embedded: journal closed")

// account is one mailbox owner: its in-memory mail and its journal.
type account struct {
	user *imapmemserver.User
	addr string

	mu  sync.Mutex   // serializes changes and journal writes
	f   journalFile  // nil: memory only; set once, before the servers start
	end atomic.Int64 // offset after the last record written

	smu      sync.Mutex    // guards the fields below
	durable  int64         // offset up to which the journal is fsynced
	syncDone chan struct{} // closed when the running fsync ends; nil: none runs
	err      error         // a write or fsync failed, or Close: nothing more is journaled
}

// record is one journaled change.
type record struct {
	Op      string      `json:"op"` // append ack drop boot create delete rename subscribe unsubscribe store copy move expunge
	Mailbox string      `json:"mailbox"`
	Dest    string      `json:"dest,omitempty"` // copy, move: target; rename: new name
	UIDs    imap.UIDSet `json:"uids,omitempty"` // store, copy, move, expunge (none for expunge: every \Deleted)
	Flags   []imap.Flag `json:"flags,omitempty"`
	StoreOp int         `json:"store_op,omitempty"`
	Time    time.Time   `json:"time,omitzero"`
	At      *int64      `json:"at,omitempty"` // ack, drop: the offset of the delivery's record
	raw     []byte
}

// openJournal opens (creating) the journal of acct in dir, replays it into
// acct.user and leaves the file open for appending, through wrap when it
// is not nil. It reports how many records it replayed.
func (acct *account) openJournal(dir, local string, wrap func(journalFile) journalFile) (int, error) {
	path := filepath.Join(dir, local+".journal")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("embedded: journal: %w", err)
	}
	boot := bootID()
	n, good, kept, err := acct.replay(f, boot)
	if err != nil {
		f.Close()
		return n, fmt.Errorf("embedded: journal %s: %w", path, err)
	}
	// Cut a torn last record, then append after the good ones.
	if err := f.Truncate(good); err != nil {
		f.Close()
		return n, fmt.Errorf("embedded: journal %s: %w", path, err)
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return n, fmt.Errorf("embedded: journal %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return n, fmt.Errorf("embedded: journal %s: %w", path, err)
	}
	acct.f = f
	if wrap != nil {
		acct.f = wrap(f)
	}
	acct.end.Store(good)
	acct.durable = good
	// The deliveries kept for a reboot were added last: their acks say
	// so. The boot record settles the ones left without (dropped).
	for _, at := range kept {
		if _, _, err := acct.write(&record{Op: "ack", At: &at}); err != nil {
			return n, err
		}
	}
	if err := acct.log(&record{Op: "boot", Mailbox: boot}); err != nil {
		return n, err
	}
	return n, nil
}

// bootID names the running boot of the machine ("" where unknown, which
// counts as a reboot at every start: deliveries without ack are kept).
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}

// replay applies every whole record of r to acct.user and returns how many
// there were and the offset after the last one. A delivery is applied
// where its ack stands. The deliveries left without an ack at the end
// are applied last, in order, if the boot that wrote them is not boot
// (kept reports their offsets), and dropped otherwise. One that cannot be
// applied any more (its mailbox is gone) is dropped too.
func (acct *account) replay(r io.Reader, boot string) (n int, good int64, kept []int64, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var head [8]byte
	lastBoot := ""
	pending := map[int64]*record{} // deliveries without an ack yet, by offset
	prev := int64(-1)              // the previous record's offset
	for {
		if _, err := io.ReadFull(br, head[:]); err != nil {
			break // end, or a torn header
		}
		size := binary.BigEndian.Uint32(head[:4])
		if size > maxRecord {
			break
		}
		payload := make([]byte, size)
		if _, err := io.ReadFull(br, payload); err != nil {
			break
		}
		if crc32.ChecksumIEEE(payload) != binary.BigEndian.Uint32(head[4:]) {
			break
		}
		meta, raw, _ := bytes.Cut(payload, []byte{0})
		var rec record
		if err := json.Unmarshal(meta, &rec); err != nil {
			return n, good, nil, fmt.Errorf("record %d: %w", n+1, err)
		}
		rec.raw = raw
		switch rec.Op {
		case "append":
			pending[good] = &rec
		case "ack", "drop":
			at := prev // an ack of the older format: the delivery just before
			if rec.At != nil {
				at = *rec.At
			}
			d := pending[at]
			if d == nil {
				return n, good, nil, fmt.Errorf("record %d (%s of offset %d): no delivery without an ack there", n+1, rec.Op, at)
			}
			delete(pending, at)
			if rec.Op == "ack" {
				if err := acct.apply(d); err != nil {
					return n, good, nil, fmt.Errorf("record %d (ack of append %s at offset %d): %w", n+1, d.Mailbox, at, err)
				}
			}
		case "boot":
			clear(pending) // the start that wrote it settled them: dropped
			lastBoot = rec.Mailbox
		default:
			if err := acct.apply(&rec); err != nil {
				return n, good, nil, fmt.Errorf("record %d (%s %s): %w", n+1, rec.Op, rec.Mailbox, err)
			}
		}
		n++
		prev = good
		good += int64(len(head) + len(payload))
	}
	if len(pending) > 0 && (boot == "" || lastBoot != boot) {
		for _, at := range slices.Sorted(maps.Keys(pending)) {
			if acct.apply(pending[at]) == nil {
				kept = append(kept, at)
			}
		}
	}
	return n, good, kept, nil
}

// apply redoes one journaled change on the in-memory account.
func (acct *account) apply(rec *record) error {
	u := acct.user
	switch rec.Op {
	case "append":
		_, err := u.Append(rec.Mailbox, literal{bytes.NewReader(rec.raw), int64(len(rec.raw))}, &imap.AppendOptions{Flags: rec.Flags, Time: rec.Time})
		return err
	case "create":
		return u.Create(rec.Mailbox, nil)
	case "delete":
		return u.Delete(rec.Mailbox)
	case "rename":
		return u.Rename(rec.Mailbox, rec.Dest, nil)
	case "subscribe":
		return u.Subscribe(rec.Mailbox)
	case "unsubscribe":
		return u.Unsubscribe(rec.Mailbox)
	}
	uids := rec.UIDs
	sess := imapmemserver.NewUserSession(u)
	defer sess.Close()
	if _, err := sess.Select(rec.Mailbox, nil); err != nil {
		return err
	}
	switch rec.Op {
	case "store":
		return sess.Store(nil, uids, &imap.StoreFlags{Op: imap.StoreFlagsOp(rec.StoreOp), Silent: true, Flags: rec.Flags}, nil)
	case "copy":
		_, err := sess.Copy(uids, rec.Dest)
		return err
	case "move":
		// A move is a copy, then the originals flagged \Deleted and
		// expunged: the same UIDs and flags as MOVE gave.
		if _, err := sess.Copy(uids, rec.Dest); err != nil {
			return err
		}
		if err := sess.Store(nil, uids, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil); err != nil {
			return err
		}
		return sess.Expunge(nil, &uids)
	case "expunge":
		if len(uids) == 0 {
			return sess.Expunge(nil, nil)
		}
		return sess.Expunge(nil, &uids)
	}
	return fmt.Errorf("unknown operation %q", rec.Op)
}

// log appends rec to the journal and waits until it is synced. Call it
// with acct.mu held only where nothing else runs (at start, in tests):
// changes under way use write, release acct.mu and then call synced.
func (acct *account) log(rec *record) error {
	_, end, err := acct.write(rec)
	if err != nil {
		return err
	}
	return acct.synced(end)
}

// write appends rec to the journal, without syncing it, and returns its
// offset and the offset after it. Call it with acct.mu held. After a
// failed write the journal's tail is unknown: every later change fails.
func (acct *account) write(rec *record) (at, end int64, err error) {
	if acct.f == nil {
		return 0, 0, nil
	}
	if err := acct.failed(); err != nil {
		return 0, 0, err
	}
	meta, err := json.Marshal(rec)
	if err != nil {
		return 0, 0, err
	}
	size := len(meta) + 1 + len(rec.raw)
	if size > maxRecord {
		return 0, 0, fmt.Errorf("embedded: journal record of %d bytes; the most is %d", size, maxRecord)
	}
	buf := make([]byte, 8, 8+size)
	buf = append(append(append(buf, meta...), 0), rec.raw...)
	binary.BigEndian.PutUint32(buf[:4], uint32(size))
	binary.BigEndian.PutUint32(buf[4:8], crc32.ChecksumIEEE(buf[8:]))
	at = acct.end.Load()
	if _, err := acct.f.Write(buf); err != nil {
		err = fmt.Errorf("embedded: journal %s: %w", acct.addr, err)
		acct.fail(err)
		return 0, 0, err
	}
	end = at + int64(len(buf))
	acct.end.Store(end)
	return at, end, nil
}

// failed returns the error that stopped the journal, if any.
func (acct *account) failed() error {
	acct.smu.Lock()
	defer acct.smu.Unlock()
	return acct.err
}

// fail stops the journal with err unless it is stopped already.
func (acct *account) fail(err error) {
	acct.smu.Lock()
	defer acct.smu.Unlock()
	if acct.err == nil {
		acct.err = err
	}
}

// synced returns once the journal is fsynced up to offset end. Call it
// without acct.mu. If no fsync runs, the caller makes one for every
// record written so far, for all who wait; if one runs, the caller waits
// for it and then looks again (it may have started before the caller's
// record was written). So however many changes wait, one fsync at a time
// runs and each covers all the records written while the one before ran.
func (acct *account) synced(end int64) error {
	if acct.f == nil {
		return nil
	}
	acct.smu.Lock()
	defer acct.smu.Unlock()
	for acct.err == nil && acct.durable < end {
		if done := acct.syncDone; done != nil {
			acct.smu.Unlock()
			<-done
			acct.smu.Lock()
			continue
		}
		done := make(chan struct{})
		acct.syncDone = done
		upTo := acct.end.Load() // every write before it has returned
		acct.smu.Unlock()
		err := acct.f.Sync()
		acct.smu.Lock()
		acct.syncDone = nil
		close(done)
		if err != nil {
			if acct.err == nil {
				acct.err = fmt.Errorf("embedded: journal %s: %w", acct.addr, err)
			}
		} else if upTo > acct.durable {
			acct.durable = upTo
		}
	}
	if acct.err != nil && acct.durable < end {
		return acct.err
	}
	return nil
}

// close waits for a running fsync, closes the journal and stops it.
func (acct *account) close() {
	acct.mu.Lock()
	defer acct.mu.Unlock()
	if acct.f == nil {
		return
	}
	acct.smu.Lock()
	for acct.syncDone != nil {
		done := acct.syncDone
		acct.smu.Unlock()
		<-done
		acct.smu.Lock()
	}
	closed := acct.err == errClosed
	if acct.err == nil {
		acct.err = errClosed
	}
	acct.smu.Unlock()
	if !closed {
		acct.f.Close()
	}
}

// deliver appends raw to a mailbox of acct, durably first: its record is
// written under acct.mu and synced outside it, together with whatever
// else was written meanwhile; then, under acct.mu again, the delivery's
// ack is written and the message added to the mailbox, so that it is
// visible only once it is on disk and takes its UID in the order of the
// acks.
func (acct *account) deliver(mailbox string, raw []byte, flags []imap.Flag, t time.Time) (*imap.AppendData, error) {
	if t.IsZero() {
		t = time.Now()
	}
	acct.mu.Lock()
	_, err := acct.user.Status(mailbox, &imap.StatusOptions{}) // no such mailbox: nothing to journal
	var at, end int64
	if err == nil {
		at, end, err = acct.write(&record{Op: "append", Mailbox: mailbox, Flags: flags, Time: t, raw: raw})
	}
	acct.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := acct.synced(end); err != nil {
		return nil, err
	}
	acct.mu.Lock()
	defer acct.mu.Unlock()
	if _, err := acct.user.Status(mailbox, &imap.StatusOptions{}); err != nil {
		// Deleted while the record was synced: the delivery fails.
		if _, _, werr := acct.write(&record{Op: "drop", At: &at}); werr != nil {
			return nil, werr
		}
		return nil, err
	}
	if _, _, err := acct.write(&record{Op: "ack", At: &at}); err != nil {
		return nil, err
	}
	// The mailbox exists and acct.mu is held: Append cannot fail.
	return acct.user.Append(mailbox, literal{bytes.NewReader(raw), int64(len(raw))}, &imap.AppendOptions{Flags: flags, Time: t})
}

// syncDir makes the creation of files in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// imapSession is an IMAP session on one account whose changes are
// journaled. Before login UserSession is nil and only Login and Close are
// called.
type imapSession struct {
	*imapmemserver.UserSession
	s        *Servers
	acct     *account
	selected string // the selected mailbox's name
}

var (
	_ imapserver.SessionIMAP4rev2 = (*imapSession)(nil)
	_ imapserver.SessionMove      = (*imapSession)(nil)
)

func (ss *imapSession) Login(username, password string) error {
	local, ok := ss.s.local(username)
	if !ok {
		return imapserver.ErrAuthFailed
	}
	acct := ss.s.accts[local]
	if err := acct.user.Login(username, password); err != nil {
		return err
	}
	ss.acct = acct
	ss.UserSession = imapmemserver.NewUserSession(acct.user)
	return nil
}

func (ss *imapSession) Close() error {
	if ss.UserSession == nil {
		return nil
	}
	return ss.UserSession.Close()
}

func (ss *imapSession) Select(mailbox string, options *imap.SelectOptions) (*imap.SelectData, error) {
	if ss.selected != "" {
		ss.UserSession.Unselect() // release the previous view
		ss.selected = ""
	}
	data, err := ss.UserSession.Select(mailbox, options)
	if err == nil {
		ss.selected = mailbox
	}
	return data, err
}

func (ss *imapSession) Unselect() error {
	ss.selected = ""
	return ss.UserSession.Unselect()
}

// change runs op under the account's lock and journals rec when op
// succeeds, unless op cleared rec.Op (it changed nothing); it returns
// once the record is synced, which it waits for without the lock.
func (ss *imapSession) change(rec *record, op func() error) error {
	ss.acct.mu.Lock()
	if err := op(); err != nil {
		ss.acct.mu.Unlock()
		return err
	}
	if rec.Op == "" {
		ss.acct.mu.Unlock()
		return nil
	}
	_, end, err := ss.acct.write(rec)
	ss.acct.mu.Unlock()
	if err == nil {
		err = ss.acct.synced(end)
	}
	if err != nil {
		ss.s.log.Error("journal", "account", ss.acct.addr, "op", rec.Op, "err", err)
		return err
	}
	return nil
}

func (ss *imapSession) Create(mailbox string, options *imap.CreateOptions) error {
	return ss.change(&record{Op: "create", Mailbox: mailbox}, func() error { return ss.UserSession.Create(mailbox, options) })
}

func (ss *imapSession) Delete(mailbox string) error {
	return ss.change(&record{Op: "delete", Mailbox: mailbox}, func() error { return ss.UserSession.Delete(mailbox) })
}

func (ss *imapSession) Rename(mailbox, newName string, options *imap.RenameOptions) error {
	return ss.change(&record{Op: "rename", Mailbox: mailbox, Dest: newName}, func() error { return ss.UserSession.Rename(mailbox, newName, options) })
}

func (ss *imapSession) Subscribe(mailbox string) error {
	return ss.change(&record{Op: "subscribe", Mailbox: mailbox}, func() error { return ss.UserSession.Subscribe(mailbox) })
}

func (ss *imapSession) Unsubscribe(mailbox string) error {
	return ss.change(&record{Op: "unsubscribe", Mailbox: mailbox}, func() error { return ss.UserSession.Unsubscribe(mailbox) })
}

func (ss *imapSession) Append(mailbox string, r imap.LiteralReader, options *imap.AppendOptions) (*imap.AppendData, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxRecord))
	if err != nil {
		return nil, err
	}
	var o imap.AppendOptions
	if options != nil {
		o = *options
	}
	data, err := ss.acct.deliver(mailbox, raw, o.Flags, o.Time)
	var imapErr *imap.Error
	if err != nil && !errors.As(err, &imapErr) {
		ss.s.log.Error("journal", "account", ss.acct.addr, "op", "append", "err", err)
	}
	return data, err
}

// uids returns the UIDs numSet names in the selected mailbox now, as the
// journal names messages (none: an empty set).
func (ss *imapSession) uids(numSet imap.NumSet) (imap.UIDSet, error) {
	var c imap.SearchCriteria
	switch set := numSet.(type) {
	case imap.SeqSet:
		c.SeqNum = []imap.SeqSet{append(imap.SeqSet(nil), set...)}
	case imap.UIDSet:
		c.UID = []imap.UIDSet{append(imap.UIDSet(nil), set...)}
	default:
		return nil, fmt.Errorf("embedded: unexpected number set %T", numSet)
	}
	data, err := ss.UserSession.Search(imapserver.NumKindUID, &c, &imap.SearchOptions{})
	if err != nil {
		return nil, err
	}
	var set imap.UIDSet
	for _, uid := range data.AllUIDs() {
		set.AddNum(uid)
	}
	return set, nil
}

func (ss *imapSession) Store(w *imapserver.FetchWriter, numSet imap.NumSet, flags *imap.StoreFlags, options *imap.StoreOptions) error {
	rec := &record{Op: "store", Mailbox: ss.selected, StoreOp: int(flags.Op), Flags: flags.Flags}
	return ss.change(rec, func() (err error) {
		if rec.UIDs, err = ss.uids(numSet); err != nil {
			return err
		}
		if len(rec.UIDs) == 0 {
			rec.Op = "" // names no message: nothing to journal
		}
		return ss.UserSession.Store(w, numSet, flags, options)
	})
}

func (ss *imapSession) Copy(numSet imap.NumSet, dest string) (data *imap.CopyData, err error) {
	rec := &record{Op: "copy", Mailbox: ss.selected, Dest: dest}
	err = ss.change(rec, func() (err error) {
		if rec.UIDs, err = ss.uids(numSet); err != nil {
			return err
		}
		if len(rec.UIDs) == 0 {
			rec.Op = "" // names no message: nothing to journal
		}
		data, err = ss.UserSession.Copy(numSet, dest)
		return err
	})
	return data, err
}

func (ss *imapSession) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	rec := &record{Op: "move", Mailbox: ss.selected, Dest: dest}
	return ss.change(rec, func() (err error) {
		if rec.UIDs, err = ss.uids(numSet); err != nil {
			return err
		}
		if len(rec.UIDs) == 0 {
			rec.Op = "" // names no message: nothing to journal
		}
		return ss.UserSession.Move(w, numSet, dest)
	})
}

// Expunge journals EXPUNGE as every \Deleted message of the mailbox
// (no UIDs), UID EXPUNGE as the UIDs it names now.
func (ss *imapSession) Expunge(w *imapserver.ExpungeWriter, uids *imap.UIDSet) error {
	rec := &record{Op: "expunge", Mailbox: ss.selected}
	return ss.change(rec, func() (err error) {
		if uids != nil {
			if rec.UIDs, err = ss.uids(*uids); err != nil {
				return err
			}
			if len(rec.UIDs) == 0 {
				rec.Op = ""
			}
		}
		return ss.UserSession.Expunge(w, uids)
	})
}
