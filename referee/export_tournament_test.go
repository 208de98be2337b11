package referee

import (
	"pbem/archive"
	"pbem/referee/tournament"
)

// TournamentEvent is the core's view of a stored tournament, as the
// referee pairs it and computes the standings it mails.
func TournamentEvent(t *archive.Tournament) *tournament.Event { return event(t) }
