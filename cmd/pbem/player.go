package main

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"pbem/mail"
)

// player is a minimal mail client, as a person at a mail program would use
// it: send by SMTP, read the inbox by IMAP. `pbem demo` and the serve tests
// play through it.
type player struct {
	addr, pass         string
	imapAddr, smtpAddr string
	lastUID            imap.UID
	inbox              []*mail.Inbound // everything read so far
	next               int             // inbox[next:] not yet taken by wait
	since              int             // inbox[since:] arrived after the last skip
}

// send mails text to the referee (to), answering m when it is not nil
// (threading headers, "Re:" subject, the Reply-To address).
func (p *player) send(to, subject, text string, m *mail.Inbound) error {
	o := &mail.Outgoing{
		From: mail.Address{Addr: p.addr}, Subject: subject, Date: time.Now(),
		MessageID: mail.NewMessageID(domainOf(p.addr)), Text: text,
	}
	if m != nil {
		if len(m.ReplyTo) > 0 {
			to = m.ReplyTo[0].Addr
		}
		o.Subject = "Re: " + strings.TrimPrefix(m.Subject, "Re: ")
		o.InReplyTo = m.MessageID
		o.References = append(append([]string{}, m.References...), m.MessageID)
	}
	o.To = []mail.Address{{Addr: to}}
	c, err := smtp.Dial(p.smtpAddr)
	if err != nil {
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("AUTH"); ok {
		// The embedded server takes mail only from a logged-in account.
		if err := c.Auth(sasl.NewPlainClient("", p.addr, p.pass)); err != nil {
			return err
		}
	}
	if err := c.SendMail(p.addr, []string{to}, bytes.NewReader(mail.Compose(o))); err != nil {
		return err
	}
	return c.Quit()
}

func domainOf(addr string) string {
	_, d, _ := strings.Cut(addr, "@")
	return d
}

// fetch reads the messages that arrived since the last fetch.
func (p *player) fetch() ([]*mail.Inbound, error) {
	c, err := imapclient.DialInsecure(p.imapAddr, nil)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.Login(p.addr, p.pass).Wait(); err != nil {
		return nil, err
	}
	sel, err := c.Select("INBOX", &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil || sel.NumMessages == 0 {
		return nil, err
	}
	var set imap.UIDSet
	set.AddRange(p.lastUID+1, 0)
	msgs, err := c.Fetch(set, &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
	if err != nil {
		return nil, err
	}
	sort.Slice(msgs, func(i, j int) bool { return msgs[i].UID < msgs[j].UID })
	var out []*mail.Inbound
	for _, m := range msgs {
		if m.UID <= p.lastUID || len(m.BodySection) == 0 {
			continue
		}
		p.lastUID = m.UID
		in, err := mail.Parse(m.BodySection[0].Bytes)
		if err != nil {
			return out, err
		}
		out = append(out, in)
		p.inbox = append(p.inbox, in)
	}
	return out, nil
}

// wait returns the next message not taken yet whose subject or text
// contains want (any message when want is ""), fetching until one arrives;
// the messages it passes over are taken too.
func (p *player) wait(ctx context.Context, want string) (*mail.Inbound, error) {
	for {
		for p.next < len(p.inbox) {
			m := p.inbox[p.next]
			p.next++
			if want == "" || strings.Contains(m.Subject, want) || strings.Contains(m.Text, want) {
				return m, nil
			}
		}
		if _, err := p.fetch(); err != nil {
			return nil, err
		}
		if p.next < len(p.inbox) {
			continue
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: no mail containing %q: %w", p.addr, want, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// skip marks everything already in the mailbox as taken.
func (p *player) skip() error {
	if _, err := p.fetch(); err != nil {
		return err
	}
	p.next = len(p.inbox)
	p.since = len(p.inbox)
	return nil
}
