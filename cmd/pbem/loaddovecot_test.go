package main

import (
	"bufio"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"pbem/mail/dovecottest"
)

// dovecotLoad is the mail side of TestLoadServe with PBEM_LOAD_MAIL=dovecot,
// a club's deployment on one host: the referee's mailbox on a private
// Dovecot (IMAP, IDLE), the players' moves delivered into it over LMTP,
// and an SMTP relay of the driver's own that records every reply (to a
// spool file, unsynced, as a relay queues it) and hands the referee's
// copies (smtp.copies) to Dovecot over LMTP after its 250, from a queue,
// as an MTA would. A reply counts as answered at the relay's 250.
type dovecotLoad struct {
	dv      *dovecottest.Server
	ln      net.Listener
	srv     *smtp.Server
	onReply func(from, rcpt string, raw []byte)

	spoolMu sync.Mutex
	spool   *bufio.Writer
	file    *os.File

	copies chan copyMail
	wg     sync.WaitGroup

	replies, replyBytes atomic.Int64 // SMTP transactions taken, their bytes
}

// meanReply is the mean size in bytes of the mails the relay took.
func (l *dovecotLoad) meanReply() float64 {
	n := l.replies.Load()
	if n == 0 {
		return 0
	}
	return float64(l.replyBytes.Load()) / float64(n)
}

type copyMail struct {
	from string
	to   []string
	raw  []byte
}

// copyWorkers is how many LMTP deliveries of copies run at once.
const copyWorkers = 4

// startDovecot starts Dovecot, the recording relay and pbem serve as a
// process of its own configured for them.
func (d *loadDriver) startDovecot() {
	t := d.t
	dir := t.TempDir()
	dv := dovecottest.Start(t, "referee")
	f, err := os.Create(filepath.Join(dir, "relay.spool"))
	if err != nil {
		t.Fatal(err)
	}
	l := &dovecotLoad{dv: dv, onReply: d.delivered, file: f, spool: bufio.NewWriterSize(f, 1<<20),
		copies: make(chan copyMail, 1<<16)}
	for range copyWorkers {
		l.wg.Go(func() {
			for c := range l.copies {
				if err := dv.TryDeliver(c.from, c.to, c.raw); err != nil {
					t.Errorf("relay: copy into Dovecot: %v", err)
				}
			}
		})
	}
	if l.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	l.srv = smtp.NewServer(l)
	l.srv.Domain, l.srv.AllowInsecureAuth = "localhost", true
	l.srv.MaxMessageBytes = 1 << 24
	l.srv.MaxRecipients = 1000
	go l.srv.Serve(l.ln)
	t.Cleanup(l.close)
	d.dv = l
	ref := "referee@" + dovecottest.Domain
	d.runProcess(dir, dv.IMAPAddr, l.ln.Addr().String(), ref, dv.Password(ref))
}

// deliver puts a player's mail into Dovecot over LMTP.
func (l *dovecotLoad) deliver(from string, to []string, raw []byte) error {
	return l.dv.TryDeliver(from, to, raw)
}

func (l *dovecotLoad) close() {
	l.srv.Close()
	close(l.copies)
	l.wg.Wait()
	l.spool.Flush()
	l.file.Close()
}

func (l *dovecotLoad) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &recordingSession{l: l}, nil
}

// recordingSession is one SMTP transaction at the recording relay; it
// takes any login.
type recordingSession struct {
	l    *dovecotLoad
	from string
	to   []string
}

func (s *recordingSession) AuthMechanisms() []string { return []string{sasl.Plain} }
func (s *recordingSession) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(string, string, string) error { return nil }), nil
}
func (s *recordingSession) Mail(from string, _ *smtp.MailOptions) error { s.from = from; return nil }
func (s *recordingSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *recordingSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.l.replies.Add(1)
	s.l.replyBytes.Add(int64(len(raw)))
	s.l.spoolMu.Lock()
	s.l.spool.WriteString("From " + s.from + " " + strings.Join(s.to, ",") + "\r\n")
	s.l.spool.Write(raw)
	s.l.spoolMu.Unlock()
	var copies []string
	for _, rcpt := range s.to {
		if local, _, _ := strings.Cut(rcpt, "@"); strings.HasPrefix(local, "referee+") {
			copies = append(copies, rcpt) // into the referee's own mailbox
			continue
		}
		s.l.onReply(s.from, rcpt, raw)
	}
	if len(copies) > 0 {
		s.l.copies <- copyMail{from: s.from, to: copies, raw: raw}
	}
	return nil
}

func (s *recordingSession) Reset()        { s.from, s.to = "", nil }
func (s *recordingSession) Logout() error { return nil }
