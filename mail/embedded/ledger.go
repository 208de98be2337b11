package embedded

import (
	"slices"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"

	"pbem/mail/embedded/internal/imapmemserver"
)

// ledger bounds the bytes of mail the servers keep for the players, all
// mailboxes together: every message added to a player's mailbox (a
// delivery, or one replayed at start) is noted in order, and while the
// noted bytes pass max the oldest are expunged, whoever holds them. The
// servers' memory (and the journal, once compacted) then stays bounded
// however many players there are.
//
// A message a player expunged or moved stays noted until its turn comes:
// the count is then above what is held, and the bound errs on the small
// side until it is.
type ledger struct {
	mu   sync.Mutex
	max  int64
	held int64
	q    []noted // oldest first from head
	head int
}

// noted is one message counted in the ledger.
type noted struct {
	acct    *account
	mailbox string
	uid     imap.UID
	size    int64
	t       time.Time // the message's date (its delivery)
}

// note counts a message added to a player's mailbox. A nil ledger (no
// bound) notes nothing.
func (l *ledger) note(acct *account, mailbox string, uid imap.UID, size int64, t time.Time) {
	if l == nil || uid == 0 {
		return
	}
	l.mu.Lock()
	l.q = append(l.q, noted{acct, mailbox, uid, size, t})
	l.held += size
	l.mu.Unlock()
}

// over takes the oldest messages off the ledger until it is within max,
// and returns them.
func (l *ledger) over() []noted {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []noted
	for l.held > l.max && l.head < len(l.q) {
		n := l.q[l.head]
		l.q[l.head] = noted{}
		l.head++
		l.held -= n.size
		out = append(out, n)
	}
	if l.head > 1024 && l.head*2 > len(l.q) {
		l.q = append(l.q[:0], l.q[l.head:]...)
		l.head = 0
	}
	return out
}

// recount keeps in the ledger only the messages still held, oldest
// first: a start notes every message its journal adds, also those it
// expunges later on, which would count against the bound and push out
// the mail kept.
func (l *ledger) recount() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	type box struct {
		acct    *account
		mailbox string
	}
	there := map[box]map[imap.UID]bool{}
	kept := l.q[:0]
	l.held = 0
	for _, n := range l.q[l.head:] {
		b := box{n.acct, n.mailbox}
		uids, ok := there[b]
		if !ok {
			uids = map[imap.UID]bool{}
			sess := imapmemserver.NewUserSession(n.acct.user)
			if _, err := sess.Select(n.mailbox, nil); err == nil {
				data, err := sess.Search(imapserver.NumKindUID, &imap.SearchCriteria{}, &imap.SearchOptions{})
				if err != nil {
					sess.Close()
					return err
				}
				for _, uid := range data.AllUIDs() {
					uids[uid] = true
				}
			}
			sess.Close()
			there[b] = uids
		}
		if uids[n.uid] {
			delete(uids, n.uid) // noted once
			kept = append(kept, n)
			l.held += n.size
		}
	}
	clear(l.q[len(kept):])
	l.q, l.head = kept, 0
	slices.SortStableFunc(l.q, func(a, b noted) int { return a.t.Compare(b.t) })
	return nil
}

// bytes is what the ledger counts as held.
func (l *ledger) bytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held
}

// evict expunges the messages past the ledger's bound, journaled like a
// trim, one expunge per mailbox in the order of their oldest message.
// Call it without any account's mu held.
func (l *ledger) evict() error {
	old := l.over()
	if len(old) == 1 { // a delivery's: most often one message
		n := old[0]
		return n.acct.expungeLocking(n.mailbox, imap.UIDSetNum(n.uid))
	}
	type box struct {
		acct    *account
		mailbox string
	}
	var order []box
	uids := map[box]*imap.UIDSet{}
	for _, n := range old {
		b := box{n.acct, n.mailbox}
		set := uids[b]
		if set == nil {
			set = new(imap.UIDSet)
			uids[b] = set
			order = append(order, b)
		}
		set.AddNum(n.uid)
	}
	for _, b := range order {
		if err := b.acct.expungeLocking(b.mailbox, *uids[b]); err != nil {
			return err
		}
	}
	return nil
}

// expungeLocking is expunge under acct.mu.
func (acct *account) expungeLocking(mailbox string, uids imap.UIDSet) error {
	acct.mu.Lock()
	defer acct.mu.Unlock()
	return acct.expunge(mailbox, uids)
}

// expunge expunges the messages uids of mailbox (those still there),
// journaled (not synced); acct.mu is held.
func (acct *account) expunge(mailbox string, uids imap.UIDSet) error {
	sess := imapmemserver.NewUserSession(acct.user)
	defer sess.Close()
	if _, err := sess.Select(mailbox, nil); err != nil {
		return nil // the mailbox is gone, and its mail with it
	}
	// only the UIDs still there: a record of others would be replayed
	// over messages that are not
	data, err := sess.Search(imapserver.NumKindUID, &imap.SearchCriteria{UID: []imap.UIDSet{uids}}, &imap.SearchOptions{})
	if err != nil {
		return err
	}
	there := data.AllUIDs()
	if len(there) == 0 {
		return nil
	}
	var set imap.UIDSet
	set.AddNum(there...)
	del := []imap.Flag{imap.FlagDeleted}
	if _, _, err := acct.write(
		&record{Op: "store", Mailbox: mailbox, StoreOp: int(imap.StoreFlagsAdd), Flags: del, UIDs: set},
		&record{Op: "expunge", Mailbox: mailbox, UIDs: set},
	); err != nil {
		return err
	}
	if err := sess.Store(nil, set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: del}, nil); err != nil {
		return err
	}
	return sess.Expunge(nil, &set)
}
