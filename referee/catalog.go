// Package referee is the application: the game catalog, and (as a pure
// function of a request and the stored game) the correspondence referee.
package referee

import (
	"fmt"
	"slices"
	"strings"

	"pbem/notation"
	castles "pbem/notation/castles"
	elevation "pbem/notation/elevation"
	rpp "pbem/notation/rpp"
	ziggurat "pbem/notation/ziggurat"
	ziggurat43 "pbem/notation/ziggurat43"
)

// catalog is the one explicit list of the games pbem plays. Adding a game is
// engine/<game> + notation/<game> + one line here; TestCatalogListsEveryGame
// names a missing line.
var catalog = []notation.Codec{
	castles.New(),
	ziggurat.New(),
	elevation.New(),
	ziggurat43.New(),
	rpp.New(),
}

// planned are game ids that are specified (RULES.md) but not yet in the
// catalog; records naming them are reported as not implemented yet.
var planned = []string{}

// Games lists the games in catalog order.
func Games() []notation.Codec { return slices.Clone(catalog) }

// Lookup finds a game by id (case-insensitive). Its errors are written for
// users: an unknown id lists the known ones.
func Lookup(id string) (notation.Codec, error) {
	for _, c := range catalog {
		if strings.EqualFold(c.Rules().ID(), id) {
			return c, nil
		}
	}
	for _, p := range planned {
		if strings.EqualFold(p, id) {
			return nil, fmt.Errorf("game %q is not implemented yet", id)
		}
	}
	ids := make([]string, len(catalog))
	for i, c := range catalog {
		ids[i] = c.Rules().ID()
	}
	return nil, fmt.Errorf("unknown game %q; expected one of %s", id, strings.Join(ids, ", "))
}
