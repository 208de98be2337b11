// Package mail connects the referee to a mailbox: it parses inbound MIME
// messages into plain text ([Parse], [FreshText]), reads a receiving
// server's Authentication-Results for the sender's verdict
// ([Inbound.Authenticate]), composes
// replies from the parts it is handed ([Compose]: a text part, sent
// format=flowed when asked, and an HTML part with its inline images, drawn
// from their stored description by the one function the Sender is given,
// SenderOptions.Draw, through [ComposeDrawing]),
// polls an IMAP mailbox with IDLE and a fallback poll ([Poller]), delivers
// queued replies over SMTP with retries ([Sender]), and counts what it
// does ([Metrics]). Subpackage embedded runs an in-process
// IMAP and SMTP server for the default setup and the tests; dovecottest runs
// a private Dovecot for integration tests.
//
// The package knows nothing of games. The types it shares with the
// application's store (an [Address], an [Inline] part, the Auto-Submitted
// values) live in subpackage envelope, which both import: the store's
// rows name the same types, not copies. The application plugs in through
// three small interfaces:
//
//   - [Handler] receives each inbound message; returning nil means its
//     effect (including any replies written to the outbox) is durably
//     committed.
//   - [Rejecter] (optional) is told about messages that are moved to the
//     Rejected folder, so that the application can queue a reply.
//   - [Outbox] is the durable queue of replies, implemented on the
//     application's store; the [Sender] drains it.
//
// # Copies
//
// Against any SMTP server that delivers into the referee's mailbox, one
// [Copies] (made once by the application with the copy address, the
// referee's address and its Message-ID mark check, and given to both
// [NewSender] and [NewPoller]) carries the copy protocol: the Sender adds
// the copy address to every reply's transaction, so a copy lands if and
// only if the server took the reply; after a crash it looks up the
// replies in doubt among the copies ([Copies.Find]) before sending any
// again; the Poller never hands a copy to the Handler and expunges it
// once the Sender no longer needs it ([Sender.Settled]).
//
// # Exactly once
//
// Every inbound message is handed to the Handler until the Handler returns
// nil (or a permanent error); only then is it marked \Seen and moved out of
// the inbox. A crash between the Handler's commit and the move re-delivers
// the message on restart, so the Handler must be idempotent: it dedups by
// [Inbound.Key] (the Message-ID, or a hash of the raw message when there is
// none) in the same transaction that applies the effect. Replies are rows in
// the outbox written in that same transaction, with a Message-ID fixed at
// creation; the Sender marks each row sent right after the SMTP server
// accepts it. The one window left is a crash (or a store failure) between
// the server's acceptance and [Outbox.Sent]: that reply is sent again, with
// the same Message-ID, so mail clients that dedup by Message-ID show it once.
package mail
