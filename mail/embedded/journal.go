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
	"os"
	"path/filepath"
	"sync"
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
// Changes to one account are serialized (account.mu), so the journal's
// order is the order in which UIDs were given out. Messages are named by
// UID in the journal, never by sequence number.
//
// A record is framed as: payload length (4 bytes, big-endian), CRC-32 of
// the payload (4 bytes), payload; the payload is the JSON of a record, a
// zero byte, and the message's bytes for an append. A torn record at the
// end (a crash while writing it; it was never acknowledged) is cut off at
// the next start.
//
// A delivery is written and fsynced, then an "ack" record is written (not
// synced: a write survives the process) and only then is the sender told
// 250. At the next start, a delivery without its ack is kept only if the
// machine rebooted since (the ack may have been lost with the page cache
// after the 250 went out); after a mere process crash it is dropped: the
// sender never got its 250 and sends the message again. So a crash of the
// process between the fsync and the 250, the longest step, neither loses
// nor doubles the message; each start notes the boot it happened in. (A
// message for several local recipients is delivered and acknowledged to
// each in turn: a crash between two of them doubles it for the first.)

// maxRecord bounds one journal record: the largest message the SMTP server
// takes and room for its description.
const maxRecord = 11 << 20

// account is one mailbox owner: its in-memory mail and its journal.
type account struct {
	user *imapmemserver.User
	addr string

	mu sync.Mutex // serializes changes and journal appends
	f  *os.File   // nil: memory only
}

// record is one journaled change.
type record struct {
	Op      string      `json:"op"` // append ack boot create delete rename subscribe unsubscribe store copy move expunge
	Mailbox string      `json:"mailbox"`
	Dest    string      `json:"dest,omitempty"` // copy, move: target; rename: new name
	UIDs    imap.UIDSet `json:"uids,omitempty"` // store, copy, move, expunge (none for expunge: every \Deleted)
	Flags   []imap.Flag `json:"flags,omitempty"`
	StoreOp int         `json:"store_op,omitempty"`
	Time    time.Time   `json:"time,omitzero"`
	raw     []byte
}

// openJournal opens (creating) the journal of acct in dir, replays it into
// acct.user and leaves the file open for appending. It reports how many
// records it replayed.
func (acct *account) openJournal(dir, local string) (int, error) {
	path := filepath.Join(dir, local+".journal")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return 0, fmt.Errorf("embedded: journal: %w", err)
	}
	boot := bootID()
	n, good, unacked, err := acct.replay(f, boot)
	if err != nil {
		f.Close()
		return n, fmt.Errorf("embedded: journal %s: %w", path, err)
	}
	// Cut a torn last record, and a delivery dropped for want of its ack,
	// then append after the good ones.
	if unacked.rec != nil && !unacked.kept {
		good = unacked.at
	}
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
	if unacked.kept {
		if err := acct.log(&record{Op: "ack"}); err != nil {
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

// pending is the last delivery of a journal when no ack follows it.
type pending struct {
	rec  *record
	at   int64 // its offset
	kept bool  // applied: the machine rebooted since
}

// replay applies every whole record of r to acct.user and returns how many
// there were, the offset after the last one and the last delivery if no
// ack follows it (applied when the boot that wrote it is not boot).
func (acct *account) replay(r io.Reader, boot string) (n int, good int64, last pending, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var head [8]byte
	lastBoot := ""
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
			return n, good, last, fmt.Errorf("record %d: %w", n+1, err)
		}
		rec.raw = raw
		// A delivery waits for the record after it: its ack.
		if last.rec != nil {
			if err := acct.apply(last.rec); err != nil {
				return n, good, last, fmt.Errorf("record %d (append %s): %w", n, last.rec.Mailbox, err)
			}
			last = pending{}
		}
		switch rec.Op {
		case "append":
			last = pending{rec: &rec, at: good}
		case "ack":
		case "boot":
			lastBoot = rec.Mailbox
		default:
			if err := acct.apply(&rec); err != nil {
				return n, good, last, fmt.Errorf("record %d (%s %s): %w", n+1, rec.Op, rec.Mailbox, err)
			}
		}
		n++
		good += int64(len(head) + len(payload))
	}
	if last.rec != nil && (boot == "" || lastBoot != boot) {
		if err := acct.apply(last.rec); err != nil {
			return n, good, last, fmt.Errorf("record %d (append %s): %w", n, last.rec.Mailbox, err)
		}
		last.kept = true
	}
	return n, good, last, nil
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

// log appends rec to the journal and syncs it. Call it with acct.mu held.
func (acct *account) log(rec *record) error {
	if acct.f == nil {
		return nil
	}
	if err := acct.write(rec); err != nil {
		return err
	}
	if err := acct.f.Sync(); err != nil {
		return fmt.Errorf("embedded: journal %s: %w", acct.addr, err)
	}
	return nil
}

// write appends rec to the journal.
func (acct *account) write(rec *record) error {
	meta, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	size := len(meta) + 1 + len(rec.raw)
	if size > maxRecord {
		return fmt.Errorf("embedded: journal record of %d bytes; the most is %d", size, maxRecord)
	}
	buf := make([]byte, 8, 8+size)
	buf = append(append(append(buf, meta...), 0), rec.raw...)
	binary.BigEndian.PutUint32(buf[:4], uint32(size))
	binary.BigEndian.PutUint32(buf[4:8], crc32.ChecksumIEEE(buf[8:]))
	if _, err := acct.f.Write(buf); err != nil {
		return fmt.Errorf("embedded: journal %s: %w", acct.addr, err)
	}
	return nil
}

// ack writes the ack of the delivery just logged, without syncing it.
// Call it with acct.mu held.
func (acct *account) ack() error {
	if acct.f == nil {
		return nil
	}
	return acct.write(&record{Op: "ack"})
}

// deliver appends raw to a mailbox of acct, durably first.
func (acct *account) deliver(mailbox string, raw []byte, flags []imap.Flag, t time.Time) (*imap.AppendData, error) {
	if t.IsZero() {
		t = time.Now()
	}
	acct.mu.Lock()
	defer acct.mu.Unlock()
	if _, err := acct.user.Status(mailbox, &imap.StatusOptions{}); err != nil {
		return nil, err // no such mailbox: nothing to journal
	}
	if err := acct.log(&record{Op: "append", Mailbox: mailbox, Flags: flags, Time: t, raw: raw}); err != nil {
		return nil, err
	}
	if err := acct.ack(); err != nil {
		return nil, err
	}
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
// succeeds, unless op cleared rec.Op (it changed nothing).
func (ss *imapSession) change(rec *record, op func() error) error {
	ss.acct.mu.Lock()
	defer ss.acct.mu.Unlock()
	if err := op(); err != nil {
		return err
	}
	if rec.Op == "" {
		return nil
	}
	if err := ss.acct.log(rec); err != nil {
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
