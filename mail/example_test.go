package mail_test

import (
	"context"

	"fmt"
	"strings"
	"time"

	"pbem/mail"
	"pbem/mail/embedded"
)

func ExampleParse() {
	raw := "From: =?utf-8?q?Al=C3=AFce?= <alice@example.org>\r\n" +
		"Delivered-To: referee+12.k7x9q@pbem.example\r\n" +
		"Subject: =?utf-8?q?Re:_partie_n=C2=B0_12?=\r\n" +
		"Message-ID: <m1@example.org>\r\n" +
		"Content-Type: text/plain; charset=iso-8859-1\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n" +
		"\r\n" +
		"Nf3, caf=E9 ?\r\n" +
		"\r\n" +
		"On Friday, the referee wrote:\r\n" +
		"> Your move.\r\n"
	in, err := mail.Parse([]byte(raw))
	if err != nil {
		panic(err)
	}
	fmt.Println(in.From.Name, in.From.Addr)
	fmt.Println(in.DeliveredTo)
	fmt.Println(in.Subject)
	fmt.Println(in.Key())
	fmt.Println(mail.FreshText(in.Text))
	// Output:
	// Alïce alice@example.org
	// referee+12.k7x9q@pbem.example
	// Re: partie n° 12
	// <m1@example.org>
	// Nf3, café ?
}

func ExampleCompose() {
	raw := mail.Compose(&mail.Outgoing{
		From:      mail.Address{Name: "pbem", Addr: "referee@pbem.example"},
		To:        []mail.Address{{Name: "Alïce", Addr: "alice@example.org"}},
		ReplyTo:   &mail.Address{Addr: "referee+12.k7x9q@pbem.example"},
		Subject:   "Re: partie n° 12",
		Date:      time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC),
		MessageID: "r1@pbem.example",
		InReplyTo: "m1@example.org",
		Text:      "Nf3 accepted.\n-- \npbem\n",
	})
	// CRLF shown as newlines; "·" marks the signature separator's space.
	fmt.Print(strings.NewReplacer("\r\n", "\n", "-- \r\n", "--·\n").Replace(string(raw)))
	// Output:
	// From: "pbem" <referee@pbem.example>
	// To: =?utf-8?q?Al=C3=AFce?= <alice@example.org>
	// Reply-To: <referee+12.k7x9q@pbem.example>
	// Subject: =?utf-8?q?Re:_partie_n=C2=B0_12?=
	// Date: Fri, 01 Mar 2024 12:00:00 +0000
	// Message-Id: <r1@pbem.example>
	// In-Reply-To: <m1@example.org>
	// Mime-Version: 1.0
	// Content-Type: text/plain; charset=utf-8
	// Content-Transfer-Encoding: 7bit
	//
	// Nf3 accepted.
	// --·
	// pbem
}

// This is how a program wires the pieces: the embedded servers (or a real
// mailbox), a Poller handing messages to the application, and a Sender
// draining the application's outbox. app stands for the application's
// adapter; it is not run here.
func Example_wiring() {
	var app interface {
		mail.Handler  // applies a message and queues replies, in one transaction
		mail.Rejecter // queues a reply to an unparsable or rejected message
		mail.Outbox   // the outbox table
	}
	run := func(ctx context.Context) error {
		srv, err := embedded.Start(&embedded.Options{Dir: "pbem-data/mail"}) // mail survives a restart
		if err != nil {
			return err
		}
		defer srv.Close()
		fmt.Print(srv.Instructions())

		metrics := &mail.Metrics{} // serve with metrics.WritePrometheus
		pw, _ := srv.Password("referee")
		snd, err := mail.NewSender(app, &mail.SenderOptions{
			Addr: srv.SMTPAddr(), Security: mail.SecurityPlain, Metrics: metrics,
			Username: srv.RefereeAddress(), Password: pw, // the embedded SMTP wants a login
		})
		if err != nil {
			return err
		}
		p, err := mail.NewPoller(&mail.PollerOptions{
			Addr: srv.IMAPAddr(), Security: mail.SecurityPlain,
			Username: srv.RefereeAddress(), Password: pw,
			Rejecter: mail.RejecterFunc(func(ctx context.Context, m *mail.Inbound, reason error) error {
				err := app.Reject(ctx, m, reason)
				snd.Wake()
				return err
			}),
			Metrics: metrics,
		})
		if err != nil {
			return err
		}
		go snd.Run(ctx)
		return p.Run(ctx, mail.HandlerFunc(func(ctx context.Context, m *mail.Inbound) error {
			err := app.Handle(ctx, m)
			if err == nil {
				snd.Wake() // deliver the replies just committed
			}
			return err
		}))
	}
	_ = run
}
