package mail

import (
	"context"
	"errors"
	"net"
	"net/textproto"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// The delivery lanes: SendDue shares a batch among SMTP connections
// (lanes), each sending its replies in order over its connection.

// split shares items among n connections: the replies to one recipient
// all go to one connection, in order. When a reply's recipients are
// already given to two connections, the batch is cut before it (cut is
// true): it goes in the next batch, after these.
func (s *Sender) split(items []Outgoing, n int) (parts [][]Outgoing, cut bool) {
	parts = make([][]Outgoing, n)
	if n == 1 {
		parts[0] = items
		return parts, false
	}
	laneOf := map[string]int{}
	for _, o := range items {
		l := -1
		for _, r := range o.Recipients() {
			if k, ok := laneOf[strings.ToLower(r)]; ok && k != l {
				if l >= 0 {
					return parts, true
				}
				l = k
			}
		}
		if l < 0 {
			l = 0
			for k := range parts {
				if len(parts[k]) < len(parts[l]) {
					l = k
				}
			}
		}
		for _, r := range o.Recipients() {
			laneOf[strings.ToLower(r)] = l
		}
		parts[l] = append(parts[l], o)
	}
	return parts, false
}

// lane is one SMTP connection of SendDue, and what it did with its part of
// a batch.
type lane struct {
	s        *Sender
	ctx      context.Context
	c        *smtp.Client
	reused   bool // c was kept from an earlier SendDue: check it first
	items    []Outgoing
	next     time.Time // the earliest retry it scheduled
	progress bool      // some item left the due set
	err      error     // from the outbox
	// synced is the fsync of the AcceptedLog that covers the note of
	// the lane's last reply (nil: none runs), and noted that reply.
	synced <-chan error
	noted  string
}

// composeAhead composes the lane's mails (ComposeDrawing: their pictures drawn)
// in order, up to two ahead of the one being sent, so that drawing the
// next overlaps the server's wait for the disk: next returns each in
// turn; stop ends the composing (call it when the lane ends).
func (l *lane) composeAhead() (next func() []byte, stop func()) {
	out := make(chan []byte, 2)
	quit := make(chan struct{})
	items := l.items
	go func() {
		defer close(out)
		for i := range items {
			raw := ComposeDrawing(&items[i], l.s.draw(&items[i]))
			select {
			case out <- raw:
			case <-quit:
				return
			}
		}
	}()
	return func() []byte { return <-out }, sync.OnceFunc(func() { close(quit) })
}

// draw is SenderOptions.Draw for o, telling the log of a failed drawing
// (nil without Draw).
func (s *Sender) draw(o *Outgoing) func(picture []byte) ([]byte, error) {
	if s.opts.Draw == nil {
		return nil
	}
	return func(picture []byte) ([]byte, error) {
		data, err := s.opts.Draw(picture)
		if err != nil {
			// a bug in drawing: the reply goes as text only
			s.log.Error("inline picture not drawn; the reply goes as text only", "id", o.ID, "err", err)
		}
		return data, err
	}
}

// accept marks a reply the server accepted (Sender.accept); the fsync of
// its note, if one is needed, is waited for by settle, before the lane's
// next reply is committed.
func (l *lane) accept(id string) error {
	l.settle()
	synced, err := l.s.accept(l.ctx, id)
	l.synced, l.noted = synced, id
	if synced == nil && err == nil {
		l.s.accepted1(id)
	}
	return err
}

// settle waits for the fsync of the note of the lane's last reply: it is
// called before the next reply's final dot (the server's moment of
// acceptance), so that a crash of the machine can cost at most one reply
// a connection, and when the lane ends.
func (l *lane) settle() {
	if l.synced == nil {
		return
	}
	if err := <-l.synced; err != nil {
		l.s.log.Error("accepted log: a crash of the machine now would send this reply again", "id", l.noted, "err", err)
	}
	l.synced = nil
	l.s.accepted1(l.noted)
}

func (l *lane) close() {
	if l.c != nil {
		l.c.Quit()
		l.c.Close()
		l.c = nil
	}
}

// run sends the lane's items over its connection, dialling it if needed
// (once per batch: when the server is down, every reply of the lane is
// rescheduled with that error).
func (l *lane) run() {
	s, ctx := l.s, l.ctx
	defer l.settle()
	next, stop := l.composeAhead()
	defer stop()
	var connErr error
	for i := range l.items {
		o := &l.items[i]
		raw := next()
		if ctx.Err() != nil {
			return
		}
		marked, accepted := s.state(o.ID)
		if marked {
			continue // recorded as sent after Due read it
		}
		if accepted {
			if err := s.markSent(ctx, o.ID); err != nil {
				l.err = err
				return
			}
			l.progress = true
			continue
		}
		rcpts := s.recipients(o)
		if len(rcpts) == 0 {
			// Every recipient holds it already (a crash's note lost, or
			// an attempt that failed after the server took it).
			s.log.Info("reply found delivered; not sent again", "id", o.ID, "message_id", o.MessageID)
			s.setAccepted(o.ID)
			if err := l.accept(o.ID); err != nil {
				l.err = err
				return
			}
			l.progress = true
			continue
		}
		if l.reused && l.c != nil {
			// A connection kept idle may have been closed by the
			// server meanwhile: check it, else dial afresh.
			l.reused = false
			if err := l.c.Noop(); err != nil {
				l.c.Close()
				l.c = nil
			}
		}
		sendErr := connErr
		if l.c == nil && connErr == nil && s.opts.Direct == nil {
			l.c, connErr = s.connect()
			sendErr = connErr
		}
		if sendErr == nil {
			s.fly(o.MessageID, 1)
			s.noteSending(o, rcpts)
			commit := func() { l.settle(); s.noteDot(o) }
			if s.opts.Direct != nil {
				sendErr = s.sendDirect(o, raw, rcpts, commit)
			} else {
				sendErr = s.send(l.c, o, raw, rcpts, commit)
			}
			if sendErr == nil {
				s.setAccepted(o.ID)
			}
			s.sent()
		}
		if sendErr == nil {
			s.opts.Metrics.Sent.Add(1)
			s.log.Debug("reply sent", "id", o.ID, "message_id", o.MessageID, "to", o.Recipients())
			err := l.accept(o.ID)
			s.fly(o.MessageID, -1) // noted as accepted: its copy may go
			if err != nil {
				l.err = err
				return
			}
			l.progress = true
			continue
		}
		if connErr == nil {
			s.fly(o.MessageID, -1)
		}
		at, err := s.failed(ctx, o, sendErr)
		if err != nil {
			l.err = err
			return
		}
		l.progress = true
		if at != never && (l.next.IsZero() || at.Before(l.next)) {
			l.next = at
		}
		var smtpErr *smtp.SMTPError
		if errors.As(sendErr, &smtpErr) && l.c != nil {
			// The server refused this reply; the connection is still good.
			if err := l.c.Reset(); err == nil {
				continue
			}
		}
		if l.c != nil {
			l.c.Close()
			l.c = nil
		}
	}
}

func (s *Sender) connect() (*smtp.Client, error) {
	var c *smtp.Client
	var err error
	switch s.sec {
	case SecurityTLS:
		c, err = smtp.DialTLS(s.opts.Addr, s.opts.TLSConfig)
	case SecurityStartTLS:
		c, err = smtp.DialStartTLS(s.opts.Addr, s.opts.TLSConfig)
	default:
		c, err = smtp.Dial(s.opts.Addr)
	}
	if err != nil {
		return nil, err
	}
	c.CommandTimeout = s.opts.Timeout
	c.SubmissionTimeout = s.opts.Timeout
	if err := c.Hello(s.opts.Helo); err != nil {
		c.Close()
		return nil, err
	}
	if s.opts.Username != "" {
		if err := c.Auth(sasl.NewPlainClient("", s.opts.Username, s.opts.Password)); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// send submits o over c to rcpts. commit is called before the final dot,
// the server's moment of acceptance, once MAIL, RCPT and DATA are
// answered and the message is written.
func (s *Sender) send(c *smtp.Client, o *Outgoing, raw []byte, rcpts []string, commit func()) error {
	if len(rcpts) == 0 {
		return Permanent(errors.New("no recipients"))
	}
	if o.From.Addr == "" {
		return Permanent(errors.New("no From address"))
	}
	var opts *smtp.MailOptions
	if !ascii(o.From.Addr) || slices.ContainsFunc(rcpts, func(r string) bool { return !ascii(r) }) {
		opts = &smtp.MailOptions{UTF8: true}
	}
	if err := c.Mail(o.From.Addr, opts); err != nil {
		return err
	}
	for _, r := range rcpts {
		if err := c.Rcpt(r, nil); err != nil {
			return err
		}
	}
	if s.opts.Copies != nil {
		// The copy is the Sender's own record of the server's
		// acceptance: a refusal of it (a full mailbox) must not hold the
		// reply back.
		if err := c.Rcpt(s.opts.Copies.opts.To, nil); err != nil {
			var smtpErr *smtp.SMTPError
			if !errors.As(err, &smtpErr) {
				return err
			}
			s.log.Warn("the server refused the copy of a reply; a crash now could send it twice", "copy_to", s.opts.Copies.opts.To, "message_id", o.MessageID, "err", err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	commit()
	return w.Close()
}

// sendDirect hands o to SenderOptions.Direct for rcpts; commit is called
// just before, where send calls it before the final dot.
func (s *Sender) sendDirect(o *Outgoing, raw []byte, rcpts []string, commit func()) error {
	if len(rcpts) == 0 {
		return Permanent(errors.New("no recipients"))
	}
	if o.From.Addr == "" {
		return Permanent(errors.New("no From address"))
	}
	commit()
	return s.opts.Direct(o.From.Addr, rcpts, raw)
}

// ascii reports whether s is plain ASCII (else MAIL asks for SMTPUTF8, as
// smtp.Client.SendMail does).
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// recipients returns the recipients to send o to: all of o's, or those
// that did not hold it after a crash, less those that hold it now if
// Delivered says.
func (s *Sender) recipients(o *Outgoing) []string {
	s.mu.Lock()
	rcpts, ok := s.partial[o.ID]
	s.mu.Unlock()
	if !ok {
		rcpts = o.Recipients()
	}
	if s.opts.Delivered == nil || len(rcpts) == 0 {
		return rcpts
	}
	left := rcpts[:0:0]
	for _, r := range rcpts {
		if !s.opts.Delivered(o.From.Addr, r, o.MessageID) {
			left = append(left, r)
		}
	}
	return left
}

// SMTPPermanent reports whether err is a permanent delivery failure: an
// SMTP 5xx reply, or an error marked [Permanent]. Connection failures,
// timeouts and 4xx replies are temporary.
func SMTPPermanent(err error) bool {
	var smtpErr *smtp.SMTPError
	if errors.As(err, &smtpErr) {
		return smtpErr.Code/100 == 5
	}
	var tpErr *textproto.Error
	if errors.As(err, &tpErr) {
		return tpErr.Code/100 == 5
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return false
	}
	return IsPermanent(err)
}
