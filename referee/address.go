package referee

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"pbem/archive"
)

const (
	// addressExpiry is how long a change of address waits for the new
	// address's confirmation.
	addressExpiry = 48 * time.Hour
	// maxPendingAddresses bounds the changes a player may have waiting:
	// each mails a stranger's address once.
	maxPendingAddresses = 3
	// maxAddedAddresses bounds the addresses added to one player.
	maxAddedAddresses = 5
)

func (s *session) astore() Store {
	return s.r.store
}

// mainSender makes mail from an address a player added to theirs count
// as the player's: the sender becomes the player's main address (tokens
// still decide what the mail may do), and so does the reply's recipient.
func (s *session) mainSender() error {
	as := s.store // in a batch, its view answers from the prefetch
	if s.from.Addr == "" {
		return nil
	}
	main, err := as.MainAddress(s.ctx, s.from.Addr)
	if err != nil {
		return err
	}
	if main != s.from.Addr {
		s.from.Addr = main
		if s.mine != nil {
			s.mine.to.Addr = main
		}
	}
	return nil
}

// addressCmd: address (the sender's addresses), address NEW (move
// everything to NEW), address add NEW (mail from NEW counts as the
// sender's), address remove ADDR. Moving and adding wait for NEW's
// confirmation (confirmCmd) with a code mailed there. Each changes the
// sender's account, so it needs the sender's token of one of its games,
// as tz and vacation do.
func (s *session) addressCmd(c *cmd) error {
	const form = "address NEW@DOMAIN (your games move there), address add NEW@DOMAIN, address remove ADDRESS, or address alone (your addresses)"
	as := s.astore()
	f := strings.Fields(c.rest)
	action, arg := archive.AddressMove, ""
	switch {
	case len(f) == 0:
		action = "list"
	case len(f) == 1:
		arg = f[0]
	case len(f) == 2 && strings.EqualFold(f[0], "add"):
		action, arg = archive.AddressAdd, f[1]
	case len(f) == 2 && strings.EqualFold(f[0], "remove"):
		action, arg = "remove", f[1]
	default:
		return mistake(nil, form, "address takes an address, add ADDRESS or remove ADDRESS, not %q", c.rest)
	}
	arg = normAddr(strings.Trim(arg, "<>"))
	if action != "list" && !validAddr(arg) {
		return mistake(nil, form, "%q is not a mail address", arg)
	}
	p, err := s.ownPlayer()
	if err != nil {
		return err
	}
	me := normAddr(p.Address.Addr)
	added, err := as.AddedAddresses(s.ctx, me)
	if err != nil {
		return err
	}
	s.mine.label = "address"
	switch action {
	case "list":
		if len(added) == 0 {
			s.mine.add("Your address is %s; you added no other.", me)
		} else {
			s.mine.add("Your address is %s; mail from %s counts as yours too.", me, strings.Join(added, ", "))
		}
		return nil
	case "remove":
		for _, a := range added {
			if a == arg {
				s.addresses().Remove = append(s.addresses().Remove, arg)
				s.mine.add("Mail from %s no longer counts as yours.", arg)
				return nil
			}
		}
		return mistake(nil, form, "%s is not an address you added (yours: %s)", arg, strings.Join(append([]string{me}, added...), ", "))
	}
	if arg == me {
		return mistake(nil, form, "%s is your address already", arg)
	}
	if action == archive.AddressAdd && len(added) >= maxAddedAddresses {
		return mistake(nil, "address remove ADDRESS first", "you have added %d addresses, as many as a player may", len(added))
	}
	known, err := as.AddressKnown(s.ctx, arg)
	if err != nil {
		return err
	}
	if known || s.r.ownAddress(arg) {
		return mistake(nil, form, "%s is in use already (a player's, or the referee's): choose an address the referee does not know", arg)
	}
	n, err := as.PendingAddresses(s.ctx, me, s.now)
	if err != nil {
		return err
	}
	if n >= maxPendingAddresses {
		return mistake(nil, "", "you have %d changes of address waiting for confirmation, as many as a player may: confirm one, or wait until they expire (%s after they were asked)", n, duration(addressExpiry))
	}
	a, err := s.r.newToken()
	if err != nil {
		return err
	}
	b, err := s.r.newToken()
	if err != nil {
		return err
	}
	code := a + b
	expires := s.now.Add(addressExpiry)
	s.addresses().Pending = append(s.addresses().Pending, &archive.AddressPending{Code: code, Player: me, Address: arg, Action: action, Expires: expires})
	what := "move your games, ratings, tokens and settings from " + me + " to this address"
	if action == archive.AddressAdd {
		what = "make mail from this address count as that of " + me
	}
	d := &draft{to: Address{Addr: arg}, seat: -1, kind: "address", label: "confirm your address"}
	d.add("A player of this referee asks to %s. To confirm it, send from this address a mail to %s with this line (in the body or as the subject):", what, s.r.opts.Address)
	d.addPre("confirm " + code)
	d.add("If you did not ask for it, ignore this mail: nothing changes, and the code expires on %s.", stamp(expires))
	s.extra = append(s.extra, d)
	s.mine.add("A code went to %s; send \"confirm CODE\" from there by %s to %s. Until then nothing changes.", arg, stamp(expires),
		map[string]string{archive.AddressMove: "move your games there", archive.AddressAdd: "add it"}[action])
	return nil
}

// addresses is the session's change of addresses, made on first use.
func (s *session) addresses() *archive.AddressChange {
	if s.addressChange == nil {
		s.addressChange = &archive.AddressChange{}
	}
	return s.addressChange
}

// confirmCmd: confirm CODE, from the new address of a change of address
// (addressCmd): the code, mailed only there, proves the mail comes from
// whoever reads that address. A move takes the player's games (seats and
// their tokens), ratings and settings to it, and both addresses get a
// notice; an addition makes mail from it count as the player's.
func (s *session) confirmCmd(c *cmd) error {
	const form = "confirm CODE, from the address the code was mailed to"
	as := s.astore()
	f := strings.Fields(c.rest)
	if len(f) != 1 {
		return mistake(nil, form, "confirm takes the code that was mailed, alone")
	}
	p, err := as.PendingAddress(s.ctx, f[0], s.now)
	// The same refusal for an unknown code, an expired one and a code of
	// another address: a refusal must not confirm a code to a stranger.
	if errors.Is(err, archive.ErrNotFound) || err == nil && p.Address != normAddr(s.req.From.Addr) {
		return mistake(nil, form, "no change of address waits for this code from %s (codes expire after %s)", normAddr(s.req.From.Addr), duration(addressExpiry))
	}
	if err != nil {
		return err
	}
	known, err := as.AddressKnown(s.ctx, p.Address)
	if err != nil {
		return err
	}
	ch := s.addresses()
	ch.Done = append(ch.Done, p.Code)
	if known {
		s.mine.label = "address"
		s.mine.add("%s came into use since the change was asked: nothing changed. Ask again from %s with another address.", p.Address, p.Player)
		return nil
	}
	s.mine.label = "address changed"
	if p.Action == archive.AddressAdd {
		ch.Add = append(ch.Add, archive.PlayerAddress{Address: p.Address, Player: p.Player})
		s.mine.add("Mail from %s now counts as that of %s (answers go there); \"address remove %s\" undoes it.", p.Address, p.Player, p.Address)
		return nil
	}
	ch.Move = append(ch.Move, archive.PlayerAddress{Address: p.Player, Player: p.Address})
	text := fmt.Sprintf("The games, ratings, tokens and settings of %s moved to %s: the games' mail goes there from now on. Your calendar has a new address (send \"calendar\" for it).", p.Player, p.Address)
	s.mine.add(text)
	s.extra = append(s.extra, &draft{to: Address{Addr: p.Player}, seat: -1, kind: "address", label: "address changed",
		paras: []string{text + " If you did not ask for it, write to the referee's operator."}})
	return nil
}
