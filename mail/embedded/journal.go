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

	"pbem/mail/embedded/internal/imapmemserver"
)

// An account's mail lives in memory (imapmemserver) and, when Options.Dir
// is set, in an append-only journal beside it, one for all the accounts
// (the file "journal"): every change to an account (a delivery, an APPEND, a
// flag change, a copy, a move, an expunge, a mailbox created, deleted or
// renamed) is one record naming the account, fsynced before the change is
// acknowledged, to the SMTP client (250) or the IMAP client (OK). At start
// the journal is replayed in order into fresh in-memory accounts, which
// gives the same mailboxes, messages, flags, UIDs and UIDVALIDITY.
//
// Changes to one account are serialized (account.mu): a change is made in
// memory and its record written under the lock, so the journal's order is,
// account by account, the order in which UIDs were given out. Messages are
// named by UID in the journal, never by sequence number. No fsync is made
// under the lock: a writer waits for its record to be synced
// (journal.synced) after releasing it, and one fsync covers every record
// written so far, of every account, so changes that arrive together share
// one fsync (group sync): the deliveries of many SMTP sessions, to the
// referee and to the players, and the referee's IMAP changes. The IMAP
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
// account's lock, an "ack" record naming the delivery's offset is written
// (not synced: a write survives the process) and the message added to the
// mailbox (which gives it its UID), and only then is the sender told 250.
// The replay adds a delivery to its mailbox where its ack stands, so UIDs
// come out in the order the servers gave them, however the deliveries'
// records and their fsyncs interleaved. A delivery that failed after its
// fsync (its mailbox was deleted meanwhile) is followed by a "drop" record
// instead.
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
// between two of them doubles it for the first.)
//
// A delivery over SMTP carries its key (envelope sender, recipient,
// Message-ID); the last few thousand delivered, replayed ones included,
// answer Servers.Delivered.
//
// Earlier versions kept one journal per account (<local>.journal), whose
// records name no account and whose acks name no offset (each follows its
// delivery, and acks the record just before it). Such a journal is
// replayed before the journal of all, settled as above, and not written
// again. (The journal of all is named "journal", with no extension, so
// that no account's local part can name it too.)

// maxRecord bounds one journal record: the largest message the SMTP server
// takes and room for its description.
const maxRecord = 11 << 20

// journalName is the file of the journal in Options.Dir.
const journalName = "journal"

// journalFile is the open journal. It is an interface so that tests can
// count and hold its fsyncs (Options.wrapJournal).
type journalFile interface {
	io.Writer
	Sync() error
	Close() error
}

// errClosed is the error of a change made after Close.
var errClosed = errors.New("embedded: journal closed")

// journal is the append-only file of every account's changes.
type journal struct {
	f    journalFile
	path string

	wmu sync.Mutex   // serializes writes
	end atomic.Int64 // offset after the last record written

	smu      sync.Mutex    // guards the fields below
	durable  int64         // offset up to which the file is fsynced
	syncDone chan struct{} // closed when the running fsync ends; nil: none runs
	err      error         // a write or fsync failed, or Close: nothing more is journaled

	// Offsets given out (end, durable, a delivery's) go on growing
	// across the compactions of a running journal (online.go): base is
	// the offset of the file's first byte. The file's own records (an
	// ack's At) hold offsets in the file.
	base atomic.Int64
	// gate is held read by a delivery from its record to its ack, and
	// for writing by an online compaction, which so finds none under way.
	gate sync.RWMutex
	boot string // the machine's boot that writes the journal
	// sim is the mail the file holds (under wmu), kept as records are
	// written, for the online compaction (nil: not kept).
	sim  *simState
	wrap func(journalFile) journalFile // the file's wrapper (tests)
	comp *compactor                    // nil: no online compaction
}

// account is one mailbox owner: its in-memory mail and the journal.
type account struct {
	user  *imapmemserver.User
	addr  string
	local string

	mu     sync.Mutex // serializes the account's changes and their journal writes
	j      *journal   // nil: memory only; set before the servers start
	recent *recent    // the servers' last SMTP deliveries (nil: memory only)
	// max bounds the messages of a mailbox a delivery adds to: the
	// oldest beyond it are expunged (0: no bound; the referee's own
	// mailbox has none, its poller empties it).
	max int
	// ledger bounds the bytes of all players' mail together (nil: no
	// bound, and none for the referee's mailbox).
	ledger *ledger
}

// record is one journaled change.
type record struct {
	Op      string      `json:"op"`             // append ack drop boot create delete rename subscribe unsubscribe store copy move expunge; put skip recent (compact.go)
	Acct    string      `json:"acct,omitempty"` // the account's local part (none in a journal of one account, and for boot)
	Mailbox string      `json:"mailbox"`
	Dest    string      `json:"dest,omitempty"` // copy, move: target; rename: new name
	UIDs    imap.UIDSet `json:"uids,omitempty"` // store, copy, move, expunge (none for expunge: every \Deleted)
	Flags   []imap.Flag `json:"flags,omitempty"`
	StoreOp int         `json:"store_op,omitempty"`
	Time    time.Time   `json:"time,omitzero"`
	At      *int64      `json:"at,omitempty"`   // ack, drop: the offset of the delivery's record
	Key     string      `json:"key,omitempty"`  // append over SMTP: its deliveryKey, for Servers.Delivered
	Keys    []string    `json:"keys,omitempty"` // recent: the keys of the last deliveries (compact.go)
	raw     []byte
	// rawOff and rawLen, in a simulated state that keeps messages by
	// their place (simState.refs), are where raw was in the file.
	rawOff int64
	rawLen int
}

// openJournal replays the journals in dir into accts (the journals of
// single accounts first, then the journal of all), and returns the latter
// open for appending, through wrap when it is not nil, and how many
// records it replayed. Records of accounts not in accts are skipped.
func openJournal(dir string, accts map[string]*account, wrap func(journalFile) journalFile) (*journal, int, error) {
	boot := bootID()
	total := 0
	for _, local := range slices.Sorted(maps.Keys(accts)) {
		acct := accts[local]
		path := filepath.Join(dir, local+".journal")
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		j, n, err := openFile(path, boot, func(*record) *account { return acct }, "", nil)
		total += n
		if err != nil {
			return nil, total, err
		}
		j.close()
	}
	path := filepath.Join(dir, journalName)
	if _, _, err := compact(path); err != nil {
		return nil, total, fmt.Errorf("embedded: journal %s: compact: %w", path, err)
	}
	j, n, err := openFile(path, boot, func(rec *record) *account { return accts[rec.Acct] }, "shared", newSimState(true))
	total += n
	if err != nil {
		return nil, total, err
	}
	if wrap != nil {
		j.f, j.wrap = wrap(j.f), wrap
	}
	return j, total, nil
}

// openFile opens (creating) the journal at path, replays it, routing each
// record to the account route gives (nil: skipped), cuts a torn tail,
// settles the deliveries left without an ack and returns the journal open
// for appending. Acks written name their account when shared is not "".
// With sim, the journal keeps the state of its mail from then on (see
// journal.sim), unless the file holds what a snapshot cannot reproduce.
func openFile(path, boot string, route func(*record) *account, shared string, sim *simState) (*journal, int, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("embedded: journal: %w", err)
	}
	var feed func(at, next int64, rec *record) error
	if sim != nil {
		feed = sim.feed
	}
	n, good, kept, simErr, err := replay(f, boot, route, feed)
	if simErr != nil {
		sim = nil
	}
	if err == nil {
		// Cut a torn last record, then append after the good ones.
		err = f.Truncate(good)
	}
	if err == nil {
		_, err = f.Seek(good, io.SeekStart)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		return nil, n, fmt.Errorf("embedded: journal %s: %w", path, err)
	}
	j := &journal{f: f, path: path, durable: good, boot: boot, sim: sim}
	j.end.Store(good)
	// The deliveries kept for a reboot were added last: their acks say
	// so. The boot record settles the ones left without (dropped).
	for _, k := range kept {
		ack := &record{Op: "ack", At: &k.at}
		if shared != "" {
			ack.Acct = k.acct.local
		}
		if _, _, err := j.write(ack); err != nil {
			j.close()
			return nil, n, err
		}
	}
	if err := j.log(&record{Op: "boot", Mailbox: boot}); err != nil {
		j.close()
		return nil, n, err
	}
	return j, n, nil
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

// delivery is a delivery's record and its account.
type delivery struct {
	at   int64
	rec  *record
	acct *account // nil: an account not served now
}

// replay applies every whole record of r to the account route gives it
// (nil: skipped) and returns how many there were and the offset after the
// last one. A delivery is applied where its ack stands. The deliveries
// left without an ack at the end are applied last, in order, if the boot
// that wrote them is not boot (kept lists them), and dropped otherwise.
// One that cannot be applied any more (its mailbox is gone) is dropped
// too.
//
// feed, if set, is given each record as well, with its offset and the
// offset after it, until it fails (simErr).
func replay(r io.Reader, boot string, route func(*record) *account, feed func(at, next int64, rec *record) error) (n int, good int64, kept []delivery, simErr, err error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var head [8]byte
	lastBoot := ""
	pending := map[int64]delivery{} // deliveries without an ack yet, by offset
	prev := int64(-1)               // the previous record's offset
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
			return n, good, nil, nil, fmt.Errorf("record %d: %w", n+1, err)
		}
		rec.raw = raw
		if feed != nil && simErr == nil {
			simErr = feed(good, good+int64(len(head)+len(payload)), &rec)
		}
		switch rec.Op {
		case "append":
			pending[good] = delivery{good, &rec, route(&rec)}
		case "ack", "drop":
			at := prev // an ack of a journal of one account: the delivery just before
			if rec.At != nil {
				at = *rec.At
			}
			d, ok := pending[at]
			if !ok {
				return n, good, nil, nil, fmt.Errorf("record %d (%s of offset %d): no delivery without an ack there", n+1, rec.Op, at)
			}
			delete(pending, at)
			if rec.Op == "ack" && d.acct != nil {
				if err := d.acct.apply(d.rec); err != nil {
					return n, good, nil, nil, fmt.Errorf("record %d (ack of append %s %s at offset %d): %w", n+1, d.rec.Acct, d.rec.Mailbox, at, err)
				}
			}
		case "boot":
			clear(pending) // the start that wrote it settled them: dropped
			lastBoot = rec.Mailbox
		default:
			if acct := route(&rec); acct != nil {
				if err := acct.apply(&rec); err != nil {
					return n, good, nil, nil, fmt.Errorf("record %d (%s %s %s): %w", n+1, rec.Op, rec.Acct, rec.Mailbox, err)
				}
			}
		}
		n++
		prev = good
		good += int64(len(head) + len(payload))
	}
	if len(pending) > 0 && (boot == "" || lastBoot != boot) {
		for _, at := range slices.Sorted(maps.Keys(pending)) {
			if d := pending[at]; d.acct != nil && d.acct.apply(d.rec) == nil {
				kept = append(kept, d)
			}
		}
	}
	if simErr == nil && feed != nil && len(kept) > 0 {
		// the kept deliveries are acked after the records read
		simErr = errNoCompact{"deliveries kept from before a reboot"}
	}
	return n, good, kept, simErr, nil
}

// apply redoes one journaled change on the in-memory account.
func (acct *account) apply(rec *record) error {
	u := acct.user
	switch rec.Op {
	case "append", "put":
		data, err := u.Append(rec.Mailbox, literal{bytes.NewReader(rec.raw), int64(len(rec.raw))}, &imap.AppendOptions{Flags: rec.Flags, Time: rec.Time})
		if err == nil {
			acct.ledger.note(acct, rec.Mailbox, data.UID, int64(len(rec.raw)), rec.Time)
			if rec.Op == "append" {
				acct.recent.add(rec.Key)
			}
		}
		return err
	case "skip":
		return acct.skip(rec.Mailbox, *rec.At)
	case "recent":
		for _, k := range rec.Keys {
			acct.recent.add(k)
		}
		return nil
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

// skip gives n UIDs of mailbox to messages expunged at once (an empty
// message added n times, then expunged), as the UIDs of messages expunged
// before a compaction were.
func (acct *account) skip(mailbox string, n int64) error {
	if n <= 0 {
		return nil
	}
	u := acct.user
	st, err := u.Status(mailbox, &imap.StatusOptions{UIDNext: true})
	if err != nil {
		return err
	}
	for range n {
		if _, err := u.Append(mailbox, literal{bytes.NewReader(nil), 0}, &imap.AppendOptions{Flags: []imap.Flag{imap.FlagDeleted}}); err != nil {
			return err
		}
	}
	var gone imap.UIDSet
	gone.AddRange(st.UIDNext, st.UIDNext+imap.UID(n)-1)
	sess := imapmemserver.NewUserSession(u)
	defer sess.Close()
	if _, err := sess.Select(mailbox, nil); err != nil {
		return err
	}
	return sess.Expunge(nil, &gone)
}

// log appends rec to the journal and waits until it is synced. Call it
// only where nothing else runs (at start, in tests): changes under way
// use write and then synced, without their account's lock.
func (j *journal) log(rec *record) error {
	_, end, err := j.write(rec)
	if err != nil {
		return err
	}
	return j.synced(end)
}

// write appends rec to the journal, without syncing it, and returns its
// offset and the offset after it. After a failed write the journal's
// tail is unknown: every later change fails.
func (j *journal) write(rec *record) (at, end int64, err error) {
	return j.writeAll(rec)
}

// framePool holds the buffers writeAll frames records in (a file's Write
// keeps none).
var framePool = sync.Pool{New: func() any { return new([]byte) }}

// writeAll appends recs to the journal in one write, without syncing
// them, and returns the offset of the first and the offset after the
// last.
func (j *journal) writeAll(recs ...*record) (at, end int64, err error) {
	size := 0
	for _, rec := range recs {
		size += 8 + 256 + len(rec.raw)
	}
	bp := framePool.Get().(*[]byte)
	buf := *bp
	if cap(buf) < size {
		buf = make([]byte, 0, max(size, 16<<10))
	}
	defer func() {
		if cap(buf) <= 64<<10 { // a larger one goes, not kept for all
			*bp = buf[:0]
			framePool.Put(bp)
		}
	}()
	var ends [4]int64 // where each record ends in buf
	ended := ends[:0]
	cloned := false
	for i, rec := range recs {
		if rec.At != nil && (rec.Op == "ack" || rec.Op == "drop") {
			// the delivery's offset as given out, in the file: no
			// compaction runs between a delivery and its ack (gate)
			if b := j.base.Load(); b != 0 {
				r := *rec
				inFile := *rec.At - b
				r.At = &inFile
				if !cloned {
					recs, cloned = slices.Clone(recs), true
				}
				recs[i] = &r
				rec = &r
			}
		}
		if buf, err = appendFrame(buf, rec); err != nil {
			return 0, 0, err
		}
		ended = append(ended, int64(len(buf)))
	}
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if err := j.failed(); err != nil {
		return 0, 0, err
	}
	at = j.end.Load()
	if _, err := j.f.Write(buf); err != nil {
		err = fmt.Errorf("embedded: journal %s: %w", j.path, err)
		j.fail(err)
		return 0, 0, err
	}
	end = at + int64(len(buf))
	j.end.Store(end)
	if j.sim != nil {
		base := j.base.Load()
		from := at - base
		for i, rec := range recs {
			next := at - base + ended[i]
			if err := j.sim.feed(from, next, rec); err != nil {
				j.sim = nil // a journal a snapshot cannot reproduce: left as it is
				break
			}
			from = next
		}
		if j.sim != nil && j.comp != nil {
			j.comp.wrote(end - base)
		}
	}
	return at, end, nil
}

// failed returns the error that stopped the journal, if any.
func (j *journal) failed() error {
	j.smu.Lock()
	defer j.smu.Unlock()
	return j.err
}

// fail stops the journal with err unless it is stopped already.
func (j *journal) fail(err error) {
	j.smu.Lock()
	defer j.smu.Unlock()
	if j.err == nil {
		j.err = err
	}
}

// synced returns once the journal is fsynced up to offset end. If no
// fsync runs, the caller makes one for every record written so far, for
// all who wait; if one runs, the caller waits for it and then looks again
// (it may have started before the caller's record was written). So
// however many changes wait, one fsync at a time runs and each covers all
// the records written while the one before ran.
func (j *journal) synced(end int64) error {
	j.smu.Lock()
	defer j.smu.Unlock()
	for j.err == nil && j.durable < end {
		if done := j.syncDone; done != nil {
			j.smu.Unlock()
			<-done
			j.smu.Lock()
			continue
		}
		done := make(chan struct{})
		j.syncDone = done
		upTo := j.end.Load() // every write before it has returned
		j.smu.Unlock()
		err := j.f.Sync()
		j.smu.Lock()
		j.syncDone = nil
		close(done)
		if err != nil {
			if j.err == nil {
				j.err = fmt.Errorf("embedded: journal %s: %w", j.path, err)
			}
		} else if upTo > j.durable {
			j.durable = upTo
		}
	}
	if j.err != nil && j.durable < end {
		return j.err
	}
	return nil
}

// close waits for a running write and fsync, closes the file and stops
// the journal.
func (j *journal) close() {
	j.comp.close()
	j.wmu.Lock()
	defer j.wmu.Unlock()
	j.smu.Lock()
	for j.syncDone != nil {
		done := j.syncDone
		j.smu.Unlock()
		<-done
		j.smu.Lock()
	}
	closed := j.err == errClosed
	if j.err == nil {
		j.err = errClosed
	}
	j.smu.Unlock()
	if !closed {
		j.f.Close()
	}
}

// write journals recs as changes of acct, in one write, without syncing
// them, and returns the offset of the first and the offset after the
// last. Call it with acct.mu held (but for a delivery's own record).
// Without a journal it does nothing.
func (acct *account) write(recs ...*record) (at, end int64, err error) {
	if acct.j == nil {
		return 0, 0, nil
	}
	for _, rec := range recs {
		rec.Acct = acct.local
	}
	return acct.j.writeAll(recs...)
}

// synced returns once the journal is fsynced up to end. Call it without
// acct.mu.
func (acct *account) synced(end int64) error {
	if acct.j == nil {
		return nil
	}
	return acct.j.synced(end)
}

// log journals rec as a change of acct and waits for its fsync (at start,
// in tests).
func (acct *account) log(rec *record) error {
	_, end, err := acct.write(rec)
	if err != nil {
		return err
	}
	return acct.synced(end)
}

// deliver appends raw to a mailbox of acct, durably first: its record is
// written and synced, together with whatever else was written meanwhile
// to any account; then, under acct.mu, the delivery's ack is written and
// the message added to the mailbox, so that it is visible only once it is
// on disk and takes its UID in the order of the acks. (The delivery's own
// record needs no lock: where it stands among the account's changes does
// not matter, its ack's place does.) key, for a delivery over SMTP, is
// journaled with it and remembered once it is acked (Servers.Delivered).
// The mailbox keeps raw itself: the caller hands it over.
func (acct *account) deliver(mailbox string, raw []byte, flags []imap.Flag, t time.Time, key string) (*imap.AppendData, error) {
	if t.IsZero() {
		t = time.Now()
	}
	if acct.j != nil {
		// no online compaction between the record and its ack
		acct.j.gate.RLock()
		defer acct.j.gate.RUnlock()
	}
	if _, err := acct.user.Status(mailbox, &imap.StatusOptions{}); err != nil {
		return nil, err // no such mailbox: nothing to journal
	}
	at, end, err := acct.write(&record{Op: "append", Mailbox: mailbox, Flags: flags, Time: t, Key: key, raw: raw})
	if err != nil {
		return nil, err
	}
	if err := acct.synced(end); err != nil {
		return nil, err
	}
	// Past the bound of all players' mail, the oldest goes, once acct.mu
	// is released (deferred first, run last). A journal that cannot
	// record that fails the next delivery, not this one, which is made.
	defer acct.ledger.evict()
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
	data, err := acct.user.AppendBytes(mailbox, raw, &imap.AppendOptions{Flags: flags, Time: t})
	if err == nil {
		acct.ledger.note(acct, mailbox, data.UID, int64(len(raw)), t)
		acct.recent.add(key)
		if err := acct.trim(mailbox); err != nil {
			return nil, err
		}
	}
	return data, err
}

// trim expunges the oldest messages of mailbox beyond acct.max, journaled
// (not synced: a trim lost with the machine is made by the next
// delivery); acct.mu is held.
func (acct *account) trim(mailbox string) error {
	if acct.max <= 0 {
		return nil
	}
	st, err := acct.user.Status(mailbox, &imap.StatusOptions{NumMessages: true})
	if err != nil || st.NumMessages == nil || int(*st.NumMessages) <= acct.max {
		return err
	}
	sess := imapmemserver.NewUserSession(acct.user)
	defer sess.Close()
	if _, err := sess.Select(mailbox, nil); err != nil {
		return err
	}
	data, err := sess.Search(imapserver.NumKindUID, &imap.SearchCriteria{}, &imap.SearchOptions{})
	if err != nil {
		return err
	}
	all := data.AllUIDs()
	var old imap.UIDSet
	old.AddNum(all[:len(all)-acct.max]...)
	return acct.expunge(mailbox, old)
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
	data, err := ss.acct.deliver(mailbox, raw, o.Flags, o.Time, "")
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
