package embedded

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"time"
)

// Online compaction. The journal of a running server grows with every
// delivery and expunge, while the mail it holds stays bounded (the
// players' mail by Options.MaxBytes, the referee's mailbox emptied by its
// poller): without compaction a start after a crash would replay, and a
// stop compact, every record since the last stop. So the journal keeps the
// state of its mail as records are written (journal.sim: per message its
// place in the file, not its bytes), and once the file is both onlineMin
// and onlineRatio times that mail, it is rewritten as a snapshot while the
// servers run: a delivery waits for it (the gate; a snapshot of a bounded
// mail takes tens of milliseconds), an IMAP change too (wmu).
//
// The snapshot is the one compact writes at a stop, and is written the
// same way: beside the journal, synced, renamed over it, the directory
// synced; a crash leaves the one or the other whole. Offsets given out
// before it stay valid (journal.base).

// onlineMin is the smallest journal compacted while it runs, onlineRatio
// how many times the mail it holds it must be, and onlineStep how much it
// grows between two looks at it.
var (
	onlineMin  int64 = 64 << 20 // variables for tests
	onlineStep int64 = 8 << 20
)

const onlineRatio = 4

// compactor runs a journal's online compactions, one at a time, in a
// goroutine of its own.
type compactor struct {
	j    *journal
	log  *slog.Logger
	kick chan struct{}
	stop chan struct{}
	done chan struct{}
	next int64 // the file size to look again at (under j.wmu)
}

// startCompactor starts the online compaction of j.
func (j *journal) startCompactor(log *slog.Logger) {
	if j.sim == nil {
		log.Debug("embedded: the journal holds what a snapshot cannot reproduce: compacted at stop and start only")
		return
	}
	c := &compactor{j: j, log: log, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		next: max(onlineMin, j.end.Load()+onlineStep)}
	j.wmu.Lock()
	j.comp = c
	j.wmu.Unlock()
	go c.run()
}

// wrote notes that the file is size bytes now (under j.wmu).
func (c *compactor) wrote(size int64) {
	if size < c.next {
		return
	}
	c.next = size + onlineStep
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

func (c *compactor) run() {
	defer close(c.done)
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		}
		start := time.Now()
		before, after, err := c.j.compactOnline()
		switch {
		case err != nil:
			c.log.Warn("embedded: journal not compacted", "err", err)
		case after < before:
			c.log.Debug("embedded: journal compacted while running", "before", before, "after", after, "took", time.Since(start))
		}
	}
}

// close stops the compactor, waiting for a compaction under way.
func (c *compactor) close() {
	if c == nil {
		return
	}
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	<-c.done
}

// compactOnline rewrites the file as a snapshot of j.sim when it is at
// least onlineMin and onlineRatio times the mail; it reports the file's
// sizes before and after (equal: left as it is).
func (j *journal) compactOnline() (before, after int64, err error) {
	j.gate.Lock()
	defer j.gate.Unlock()
	j.wmu.Lock()
	defer j.wmu.Unlock()
	if err := j.failed(); err != nil {
		return 0, 0, nil // closed, or stopped for a reason of its own
	}
	sim := j.sim
	before = j.end.Load() - j.base.Load()
	if sim == nil || len(sim.pending) > 0 {
		return before, before, nil
	}
	if before < onlineMin || before < onlineRatio*sim.live() {
		return before, before, nil
	}
	var msgs []*simMessage
	for _, a := range sim.accts {
		for _, mb := range a.mailboxes {
			msgs = append(msgs, mb.msgs...)
		}
	}
	defer func() {
		for _, m := range msgs {
			m.raw = nil // kept by their place again
		}
	}()
	// the bytes of every message, from the file (written, maybe not yet
	// synced: the page cache has them)
	r, err := os.Open(j.path)
	if err != nil {
		return before, before, err
	}
	for _, m := range msgs {
		m.raw = make([]byte, m.n)
		if _, err := r.ReadAt(m.raw, m.off); err != nil {
			r.Close()
			return before, before, fmt.Errorf("read a message back at %d: %w", m.off, err)
		}
	}
	r.Close()
	// the places are those of the file until it is replaced
	places := make([][2]int64, len(msgs))
	for i, m := range msgs {
		places[i] = [2]int64{m.off, int64(m.n)}
	}
	restore := func() {
		for i, m := range msgs {
			m.off, m.n = places[i][0], int(places[i][1])
		}
	}
	tmp := j.path + ".compact"
	out, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return before, before, err
	}
	snap := &journal{f: out, path: tmp}
	err = writeSnapshot(sim.accts, sim.keys, snap.write)
	if err == nil {
		// what follows was written by this boot, as the file's own
		// boot record said
		_, _, err = snap.write(&record{Op: "boot", Mailbox: j.boot})
	}
	if err == nil {
		err = out.Sync()
	}
	if err == nil {
		err = os.Rename(tmp, j.path)
	}
	if err != nil {
		out.Close()
		os.Remove(tmp)
		restore()
		return before, before, err
	}
	// From here the file is the snapshot: the old one, unlinked, takes
	// no more records.
	after = snap.end.Load()
	f := journalFile(out)
	if j.wrap != nil {
		f = j.wrap(f)
	}
	j.smu.Lock()
	for j.syncDone != nil {
		done := j.syncDone
		j.smu.Unlock()
		<-done
		j.smu.Lock()
	}
	old := j.f
	j.f = f
	j.base.Store(j.end.Load() - after)
	j.durable = j.end.Load() // the snapshot holds it all, synced
	j.smu.Unlock()
	old.Close()
	if j.comp != nil {
		j.comp.next = max(onlineMin, after+onlineStep)
	}
	if err := syncDir(filepath.Dir(j.path)); err != nil {
		// the rename may not last a crash: nothing more is journaled
		err = fmt.Errorf("embedded: journal %s: sync its directory after a compaction: %w", j.path, err)
		j.fail(err)
		return before, after, err
	}
	return before, after, nil
}
