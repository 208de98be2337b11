package referee

import (
	"pbem/engine"
	"pbem/notation"
)

// maxMailSuggestions is the most suggestions a reply to an illegal or
// unreadable move offers.
const maxMailSuggestions = 3

// withSuggestions adds to the reply to a ply that could not be played in
// before the legal plies closest to what was written (notation.Suggest):
// "the legal plies closest to it are Hc1-d3 and Hc1-b3" (the reply ends
// the sentence). A reply that is not a *userError, or
// a ply with nothing close, is returned as it was.
func withSuggestions(codec notation.Codec, before engine.State, text string, err error) error {
	ue, ok := err.(*userError)
	if !ok || before == nil {
		return err
	}
	var plies []string
	for _, s := range notation.Suggest(codec, before, text, maxMailSuggestions) {
		plies = append(plies, s.Ply)
	}
	if len(plies) == 0 {
		return err
	}
	if len(plies) == 1 {
		ue.reason += "; the legal ply closest to it is " + plies[0]
	} else {
		ue.reason += "; the legal plies closest to it are " + andList(plies)
	}
	return ue
}

// andList writes "a and b", "a, b and c".
func andList(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}
