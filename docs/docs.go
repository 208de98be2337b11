// Package docs holds the specification texts that ship with pbem: the rules
// of the games (RULES.md) and the notation and record format (NOTATION.md).
// They are public contracts; `pbem help rules` and `pbem help notation`
// print them.
package docs

import _ "embed"

// Rules is RULES.md, the normative rules of every game.
//
//go:embed RULES.md
var Rules string

// Notation is NOTATION.md, the notation of every game and the record format.
//
//go:embed NOTATION.md
var Notation string
