package web

import (
	"fmt"
	"strings"

	"pbem/notation"
	ncastles "pbem/notation/castles"
	nelevation "pbem/notation/elevation"
	nrpp "pbem/notation/rpp"
	nziggurat "pbem/notation/ziggurat"
	nziggurat43 "pbem/notation/ziggurat43"
)

// catalog is the tests' game catalog: the package takes one from its
// caller (the program passes the referee's).
var catalog = []notation.Codec{ncastles.New(), nziggurat.New(), nelevation.New(), nziggurat43.New(), nrpp.New()}

func lookup(id string) (notation.Codec, error) {
	for _, c := range catalog {
		if strings.EqualFold(c.Rules().ID(), id) {
			return c, nil
		}
	}
	return nil, fmt.Errorf("unknown game %q", id)
}
