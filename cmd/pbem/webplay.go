package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"pbem/archive"
	"pbem/archive/web"
	"pbem/referee"
)

// webPlayer plays the JSON API's requests (web.Player) on the referee's
// request path: each is a referee.Request as the player's mail with the
// same words would be (from the seat's address, to the game's reply
// address with the seat's token, the command as its body, a sender the
// token proves), handled by the same Handle, so that it commits once with
// the same mails to the others, counts in the same rate-limit window as
// the player's mail with a token, and wakes the same sender and bots. Only
// the reply to the sender is not mailed: the API answers with it
// (referee.Direct).
type webPlayer struct{ s *server }

func (p webPlayer) Play(ctx context.Context, in web.PlayRequest) (web.PlayResult, error) {
	s := p.s
	if leading, _ := s.leadership(); !leading {
		// Only the leader writes (its writes are fenced): a standby
		// would have its commit refused.
		return web.PlayResult{}, web.ErrNotLeader
	}
	ref := s.ref.Address()
	local, domain, _ := strings.Cut(ref.Addr, "@")
	var nonce [12]byte
	rand.Read(nonce[:])
	direct := &referee.Direct{}
	req := referee.Request{
		From:      referee.Address{Name: in.Name, Addr: in.Addr},
		To:        fmt.Sprintf("%s+%d.%s@%s", local, in.Game, in.Token, domain),
		Subject:   fmt.Sprintf("[pbem #%d %s] api", in.Game, in.Token),
		Body:      in.Command,
		MessageID: "api." + hex.EncodeToString(nonce[:]) + "@" + domain,
		Received:  time.Now(),
		// The token proves the sender as a mail server's verdict does.
		Verdict:       referee.VerdictPass,
		VerdictReason: "web API request with the seat's token",
		Direct:        direct,
	}
	hctx, cancel := inHand(ctx)
	defer cancel()
	if err := s.ref.Handle(hctx, req); err != nil {
		if errors.Is(s.refused(err), archive.ErrNotLeader) {
			return web.PlayResult{}, web.ErrNotLeader
		}
		return web.PlayResult{}, err
	}
	if s.sender != nil {
		s.sender.Wake()
	}
	if s.bots != nil {
		s.bots.Wake() // the ply may have given a bot the turn
	}
	return web.PlayResult{Reply: direct.Text, Refused: direct.Refused, Expected: direct.Expected,
		Stale: direct.Stale, Next: direct.Next, LimitedUntil: direct.LimitedUntil,
		Unread: !direct.Answered && direct.LimitedUntil.IsZero()}, nil
}
