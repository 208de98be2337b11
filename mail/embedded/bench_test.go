package embedded

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
)

// The CPU the embedded servers spend per delivery and per search, without
// the disk: the journal is written (records encoded, framed, checksummed,
// simulated for the online compaction, compacted while running), to
// memory where it can be, and its fsyncs do nothing. Each reports the
// CPU of the whole process per op (cpu-ns/op) beside the time.
//
//	go test -run '^$' -bench 'DeliverPastBound|SearchUnseen|PollerCycle' -count 5 ./mail/embedded

// meter resets b's timer and starts counting the CPU the process spends
// (all its goroutines: the servers', the compactor's, the garbage
// collector's, and an IMAP client's where there is one); the function it
// returns stops both and reports that CPU per op as cpu-ns/op, which on a
// shared machine varies less than the time.
func meter(b *testing.B) (stop func()) {
	start := cpuTime()
	b.ResetTimer()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchDir is a directory for a benchmark's journal, in memory where
// /dev/shm is: writes to the page cache of a disk are throttled by its
// writeback, which is not the servers' CPU.
func benchDir(b *testing.B) string {
	dir, err := os.MkdirTemp("/dev/shm", "pbem-bench-")
	if err != nil {
		return b.TempDir()
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// noSync is a journal file whose fsyncs return at once.
type noSync struct{ journalFile }

func (noSync) Sync() error { return nil }

// benchReply is a reply of about size bytes, shaped like the referee's:
// a dozen header fields, a text part, an HTML part and a picture.
func benchReply(to string, i, size int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: referee@pbem.local\r\nTo: %s\r\nSubject: Re: game %d move %d\r\n", to, i%1000, i)
	fmt.Fprintf(&b, "Date: Mon, 2 Jun 2025 10:%02d:%02d +0000\r\nMessage-ID: <reply.%d.%s>\r\n", i/60%60, i%60, i, to)
	fmt.Fprintf(&b, "In-Reply-To: <move.%d@pbem.local>\r\nReferences: <game.%d@pbem.local> <move.%d@pbem.local>\r\n", i, i%1000, i)
	b.WriteString("Auto-Submitted: auto-replied\r\nX-Pbem-Game: castles\r\nMIME-Version: 1.0\r\n")
	b.WriteString("Content-Type: multipart/alternative; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n")
	b.WriteString(strings.Repeat("a b c d e f g h\r\n", 40))
	b.WriteString("--b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body><pre>board</pre></body></html>\r\n--b1\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\n")
	for b.Len() < size-100 {
		b.WriteString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg\r\n")
	}
	b.WriteString("--b1--\r\n")
	return []byte(b.String())
}

// BenchmarkDeliverPastBound delivers replies of about 12 KB to N players
// in turn, their mail at its bound (DefaultMaxBytes) already: each
// delivery evicts about one message of some other player.
func BenchmarkDeliverPastBound(b *testing.B) {
	for _, n := range []int{100, 2000} {
		b.Run(fmt.Sprintf("accounts=%d", n), func(b *testing.B) {
			players := make([]string, n)
			for i := range players {
				players[i] = fmt.Sprintf("p%d", i)
			}
			s, err := Start(&Options{Dir: benchDir(b), Players: players, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				wrapJournal: func(f journalFile) journalFile { return noSync{f} }})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			const size = 12 << 10
			replies := make([][]byte, 64)
			for i := range replies {
				replies[i] = benchReply("p@pbem.local", i, size)
			}
			bound := s.accts[players[0]].ledger
			i := 0
			deliver := func() {
				to := players[i%n] + "@pbem.local"
				if err := s.Deliver("referee@pbem.local", []string{to}, replies[i%len(replies)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			for range DefaultMaxBytes / size * 5 / 4 {
				deliver()
			}
			if held := bound.bytes(); held < DefaultMaxBytes-2*size || held > DefaultMaxBytes {
				b.Fatalf("the players hold %d bytes, want about %d", held, DefaultMaxBytes)
			}
			stop := meter(b)
			for range b.N {
				deliver()
			}
			stop()
			if held := bound.bytes(); held > DefaultMaxBytes {
				b.Fatalf("the players hold %d bytes, over %d", held, DefaultMaxBytes)
			}
		})
	}
}

// benchInbox starts memory-only servers whose referee's INBOX holds n
// unseen replies.
func benchInbox(b *testing.B, n int) *Servers {
	s, err := Start(&Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	for i := range n {
		if err := s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, benchReply("referee@pbem.local", i, 4<<10)); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkSearchUnseen is the poller's UID SEARCH UNSEEN on a referee's
// INBOX of 1,000 unseen messages: called on the server's session
// (session), and sent over IMAP on loopback (imap).
func BenchmarkSearchUnseen(b *testing.B) {
	const n = 1000
	unseen := &imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}
	b.Run("session", func(b *testing.B) {
		s := benchInbox(b, n)
		ss := &imapSession{s: s}
		if err := ss.Login("referee@pbem.local", "referee"); err != nil {
			b.Fatal(err)
		}
		defer ss.Close()
		if _, err := ss.Select("INBOX", nil); err != nil {
			b.Fatal(err)
		}
		stop := meter(b)
		for range b.N {
			data, err := ss.Search(imapserver.NumKindUID, &imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, &imap.SearchOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if data.Count != n {
				b.Fatalf("%d unseen, want %d", data.Count, n)
			}
		}
		stop()
	})
	b.Run("imap", func(b *testing.B) {
		s := benchInbox(b, n)
		c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if err := c.Login("referee@pbem.local", "referee").Wait(); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Select("INBOX", nil).Wait(); err != nil {
			b.Fatal(err)
		}
		stop := meter(b)
		for range b.N {
			data, err := c.UIDSearch(unseen, nil).Wait()
			if err != nil {
				b.Fatal(err)
			}
			if len(data.AllUIDs()) != n {
				b.Fatalf("%d unseen, want %d", len(data.AllUIDs()), n)
			}
		}
		stop()
	})
}

// BenchmarkPollerCycle is the poller's work on the referee's INBOX for one
// move, over IMAP on loopback: a move arrives among 1,000 unseen, then UID
// SEARCH UNSEEN, UID STORE +FLAGS.SILENT (\Seen) and UID MOVE of the
// oldest to Processed (journaled, fsyncs doing nothing).
func BenchmarkPollerCycle(b *testing.B) {
	const n = 1000
	s, err := Start(&Options{Dir: benchDir(b), Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		wrapJournal: func(f journalFile) journalFile { return noSync{f} }})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	c, err := imapclient.DialInsecure(s.IMAPAddr(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	if err := c.Login("referee@pbem.local", "referee").Wait(); err != nil {
		b.Fatal(err)
	}
	if err := c.Create("Processed", nil).Wait(); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		b.Fatal(err)
	}
	move := benchReply("referee@pbem.local", 0, 2<<10)
	for range n - 1 {
		if err := s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, move); err != nil {
			b.Fatal(err)
		}
	}
	unseen := &imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}
	stop := meter(b)
	for range b.N {
		if err := s.Deliver("alice@pbem.local", []string{"referee@pbem.local"}, move); err != nil {
			b.Fatal(err)
		}
		data, err := c.UIDSearch(unseen, nil).Wait()
		if err != nil {
			b.Fatal(err)
		}
		uids := data.AllUIDs()
		if len(uids) != n {
			b.Fatalf("%d unseen, want %d", len(uids), n)
		}
		oldest := imap.UIDSetNum(uids[0])
		if err := c.Store(oldest, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}, nil).Close(); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Move(oldest, "Processed").Wait(); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}
