package referee

import (
	"strings"

	"pbem/archive"
)

// calendarCmd: calendar mails the sender the address of its calendar of
// deadlines on the web (archive.CalendarPath, opened by a key only the
// store's secret makes); calendar revoke moves the key's generation on,
// so that every address mailed before stops working, and mails the new
// one. The player is stored, so that the web finds it by name.
func (s *session) calendarCmd(c *cmd) error {
	const form = "calendar (the address of your deadlines' calendar) or calendar revoke (a new address; the old one stops working)"
	arg := strings.ToLower(strings.TrimSpace(c.rest))
	if arg != "" && arg != "revoke" {
		return mistake(nil, form, "calendar takes revoke or nothing, not %q", c.rest)
	}
	p, err := s.ownPlayer()
	if err != nil {
		return err
	}
	if arg == "revoke" {
		p.Calendar++
	}
	s.touchPlayer(p)
	s.mine.label = "calendar"
	if arg == "revoke" {
		s.mine.add("Your calendar has a new address: the one mailed before no longer opens it.")
	}
	base := strings.TrimRight(s.r.opts.WebBaseURL, "/")
	if base == "" {
		s.mine.add("This referee serves no web pages (its operator has set no web.base_url), so there is no calendar to subscribe to.")
		return nil
	}
	key := archive.CalendarKey(s.r.opts.CalendarSecret, p.Address.Addr, p.Calendar)
	s.mine.add("Your deadlines, as a calendar to subscribe to (the games where you have the move, each ending when your time runs out):")
	s.mine.addPre(base + archive.CalendarPath(archive.CalendarName(p), key))
	s.mine.add("Keep the address to yourself: it opens your calendar, private games too. \"calendar revoke\" makes a new one and stops this one.")
	return nil
}
