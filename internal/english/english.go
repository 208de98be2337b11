// Package english writes the few English phrases several packages say
// alike: a count with its noun ("1 game", "2 plies") and a byte size for
// people ("10 MiB"). It imports only the standard library, so that every
// package may use it (cmd/pbem/deps_test.go), mail and the games' rules
// included.
package english

import (
	"fmt"
	"strconv"
	"strings"
)

// Plural is n and the noun, in the plural unless n is 1: "1 game",
// "3 games", "2 plies", "4 addresses". The plural follows the spelling
// rules: a consonant and y become "ies", a noun ending in s, x, ch or sh
// takes "es", any other takes "s".
func Plural(n int, noun string) string {
	return Count(n, noun, plural(noun))
}

// Count is "1 " and one when n is 1, else n and many: for a plural the
// rules of [Plural] do not make, or words that agree with the count
// ("1 ply is", "2 plies are").
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// ByteSize writes a byte count for people: "1 MiB", "9.8 MiB",
// "500 KiB", "999 bytes", "1 byte".
func ByteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return Plural(int(n), "byte")
}
