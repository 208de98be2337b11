package referee

import (
	"fmt"
	"slices"
	"strings"

	"pbem/archive"
	"pbem/engine"
)

// Takeover (issue 41, RULES.md rpp "Leaving"): a player still in a game of
// three or more seats may invite someone to take the seat of a player who
// left (its pieces still on the board), until the others have each played
// once since the seat left; the invitee's accept brings the seat back with
// the new player (the record's Y:takeover).

// takeoverOpen reports whether seat, which left g, may still be taken
// over: some seat still in has not played since it left.
func (g *game) takeoverOpen(seat int) bool {
	left := -1
	for i, m := range g.moves {
		if l, ok := m.(engine.Leave); ok && l.Seat == seat {
			left = i
		}
	}
	if left < 0 {
		return false
	}
	if _, err := g.state().Apply(engine.Rejoin{Seat: seat}); err != nil {
		return false
	}
	played := map[int]bool{}
	lines := g.b.Game().Lines
	for i := left + 1; i < len(g.moves); i++ {
		switch g.moves[i].(type) {
		case engine.Leave, engine.Rejoin:
			continue
		}
		played[lines[i].State().ToMove()] = true
	}
	for j := range g.Seats {
		if j != seat && !g.isOut(j) && !played[j] {
			return true
		}
	}
	return false
}

// takeovers are g's pending takeover offers.
func (g *game) takeovers() []archive.Offer {
	var out []archive.Offer
	for _, o := range g.Offers {
		if o.Kind == "takeover" {
			out = append(out, o)
		}
	}
	return out
}

// dropTakeover removes the takeover of seat and its invitee's entry.
func (g *game) dropTakeover(seat int) {
	for _, o := range g.takeovers() {
		if o.Seat == seat {
			g.Observers = slices.DeleteFunc(g.Observers, func(x archive.Observer) bool {
				return !x.Confirmed && tokenEqual(x.Token, o.Token)
			})
		}
	}
	g.Offers = slices.DeleteFunc(g.Offers, func(o archive.Offer) bool { return o.Kind == "takeover" && o.Seat == seat })
}

// lapseTakeovers drops the takeovers whose seat play has passed.
func (s *session) lapseTakeovers(g *game) {
	for _, o := range g.takeovers() {
		if !g.takeoverOpen(o.Seat) {
			g.dropTakeover(o.Seat)
			s.tell(g, false, "The takeover of seat %s lapsed: every seat still in has played since it left.", g.Seats[o.Seat].Side)
		}
	}
}

// takeoverCmd: takeover GAMEID SIDE ADDRESS.
func (s *session) takeoverCmd(c *cmd) error {
	const form = "takeover GAMEID SIDE ADDRESS: invite ADDRESS to take the seat of a player who left (SIDE as the game names it)"
	g, f, err := s.gameWords(c, form, 3, "takeover needs a game number, a side and an address")
	if err != nil {
		return err
	}
	by, err := s.authorize(g)
	if err != nil {
		return err
	}
	if err := playing(g); err != nil {
		return err
	}
	if g.isOut(by) {
		return mistake(g, "", "you have left game #%d: the seats still in invite", g.ID)
	}
	seat := g.sideArg(f[1])
	switch {
	case seat < 0:
		return mistake(g, form, "%q is not a side of game #%d (its sides: %s)", f[1], g.ID, strings.Join(g.sides, ", "))
	case !g.isOut(seat):
		return mistake(g, form, "seat %s is still in game #%d", g.Seats[seat].Side, g.ID)
	case !g.takeoverOpen(seat):
		return mistake(g, "a takeover before every seat still in has played once since the seat left", "seat %s cannot be taken over any more: it was eliminated, or every seat still in has played since it left", g.Seats[seat].Side)
	}
	to := normAddr(f[2])
	switch {
	case !validAddr(to) || s.r.ownAddress(to):
		return mistake(g, form, "%q is not an address a player can have", f[2])
	case g.seatOf(to) >= 0:
		return mistake(g, form, "%s plays game #%d already", to, g.ID)
	}
	if slices.ContainsFunc(g.takeovers(), func(o archive.Offer) bool { return o.Seat == seat }) {
		return mistake(g, "", "a takeover of seat %s is pending already", g.Seats[seat].Side)
	}
	token, err := s.r.newToken()
	if err != nil {
		return err
	}
	g.Observers = slices.DeleteFunc(g.Observers, func(x archive.Observer) bool { return normAddr(x.Addr) == to })
	g.Observers = append(g.Observers, archive.Observer{Address: Address{Addr: to}, Token: token})
	g.Offers = append(g.Offers, archive.Offer{Kind: "takeover", By: by, Seat: seat, To: to, Token: token, Ply: g.plies()})
	s.touch(g)
	d := &draft{to: Address{Addr: to}, game: g, seat: -1, kind: "takeover"}
	d.add("%s invites you to take over seat %s in game #%d of %s: its player left the game, and the seat's pieces wait on the board as they stand. To play the seat from here, reply \"accept\" to this mail (its subject carries your token); \"decline\" refuses. The offer lapses once every seat still in has played.",
		g.who(by), g.Seats[seat].Side, g.ID, g.kind())
	d.blocks = []*game{g}
	s.extra = append(s.extra, d)
	s.tell(g, false, "%s invited %s to take over seat %s.", g.who(by), to, g.Seats[seat].Side)
	s.mine.add("You invited %s to take over seat %s: the seat comes back when they accept, unless every seat still in has played once by then.", to, g.Seats[seat].Side)
	s.mine.show(g)
	return nil
}

// answerTakeover handles accept or decline from the invitee of a pending
// takeover of g; ok is false when the sender is none.
func (s *session) answerTakeover(g *game, verb string) (bool, error) {
	if g.seatOf(s.from.Addr) >= 0 {
		return false, nil
	}
	var offer *archive.Offer
	for _, o := range g.takeovers() {
		if o.To == s.from.Addr && s.hasToken(g.ID, o.Token) {
			offer = &o
		}
	}
	if offer == nil {
		return false, nil
	}
	seat := offer.Seat
	side := g.Seats[seat].Side
	if verb == "decline" {
		g.dropTakeover(seat)
		s.touch(g)
		s.tell(g, false, "%s declined to take over seat %s.", s.from.Addr, side)
		s.mine.add("You declined to take over seat %s in game #%d.", side, g.ID)
		return true, nil
	}
	if err := playing(g); err != nil {
		return true, err
	}
	if !g.takeoverOpen(seat) {
		g.dropTakeover(seat)
		s.touch(g)
		return true, mistake(g, "", "the takeover of seat %s lapsed: every seat still in has played since it left", side)
	}
	if err := g.play(engine.Rejoin{Seat: seat}); err != nil {
		return true, err
	}
	g.dropTakeover(seat)
	token, err := s.r.newToken()
	if err != nil {
		return true, err
	}
	old := g.Seats[seat]
	g.Seats[seat] = archive.Seat{Side: side, Player: Address{Name: s.from.Name, Addr: s.from.Addr}, Token: token, Joined: true}
	was := old.Player.Addr
	name := s.from.Addr
	if s.from.Name != "" {
		name = fmt.Sprintf("%s <%s>", s.from.Name, s.from.Addr)
	}
	for i := range g.tags {
		if g.tags[i].Name == side {
			was, g.tags[i].Value = g.tags[i].Value, name
		}
	}
	g.b.Game().Record.SetTag(side, name)
	g.comment(fmt.Sprintf("%s: %s takes over from %s", side, name, was))
	if err := s.register(s.from); err != nil {
		return true, err
	}
	s.tell(g, true, "%s takes over seat %s: the seat is back in the game.", g.who(seat), side)
	s.mine.add("You took over seat %s in game #%d: the seat is back in the game with its pieces as they stand. Reply to this game's mails with your plies; the subject carries your token.", side, g.ID)
	s.mine.show(g)
	s.touch(g)
	return true, nil
}
