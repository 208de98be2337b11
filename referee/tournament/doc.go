// Package tournament holds the rules of tournaments as pure functions:
// who meets whom in each round (round robin on Berger tables, double round
// robin, Swiss, and multi-seat tables), the standings with their
// tie-breaks, which games a withdrawal forfeits and when a round opens. It
// does no I/O and keeps no state of its own: the caller (the referee)
// stores an Event, asks Pair for the next round, starts its games, records
// their results in the Event and asks again.
//
// Scores are exact integers: points in half points, Sonneborn-Berger in
// quarter points, as archive.Crosstable counts them.
//
// # Swiss pairing (the FIDE Dutch system)
//
// Swiss rounds are paired by the Dutch system of the FIDE Handbook
// (C.04.3, as in force from 2025), so that a director can check a round
// with the engines they already use (see ReadTRF and WriteTRF). Players
// who have not withdrawn, and have not asked to sit out the round (a
// half-point bye, TRF H, or an absence, TRF Z: see Bye), are ranked by
// score (a win 1, a draw 1/2, the pairing-allocated bye or a forfeit win
// 1, a half-point bye 1/2, an absence 0; UnscoredByes makes the
// pairing-allocated bye 0), plus the virtual points of an accelerated
// event (Acceleration; FIDE C.04.5.1, the Baku method, or the XXA lines
// of a report), then by seed, which is the pairing number. A player's colour history is the sides of the games
// actually played (not byes, not forfeits); White moves first (seat 0).
//
// Absolute criteria: no two players meet twice (C1; a forfeited game
// counts as a meeting); no player gets a second bye or a bye after a
// point scored without play (C2); two players who must both have one
// colour, at a colour difference of 2 or after two games in a row with
// that colour, do not meet (C3), unless one of them is a topscorer (more
// than half the possible score) pairing the last round. When no pairing
// obeys them, Pair returns an error wrapping ErrNoValidPairing.
//
// The rest is the Dutch system as written: score brackets paired from the
// top down, each with its moved-down players; the completion criterion
// (the rest of the field can still be paired); the pairing-allocated bye
// to the lowest score possible, among those of that score to one who has
// played the most games; as many pairs as possible in the bracket, then
// the highest scores paired, then as many pairs as possible in the next
// bracket; the colour preferences (C10-C13); no player floating the same
// way twice in a row or two rounds apart, and the scores of those who do
// (C14-C21); then the prescribed order of S1/S2 transpositions and
// exchanges; the colours by E.1-E.5 (White goes to the higher ranked
// player with an odd pairing number when nothing else decides, as XXC
// white1; Black with InitialBlack, XXC black1; the pairing numbers counted
// among the players paired so far or now, as the engines count them).
// A requested bye is not the pairing-allocated bye: it neither uses up
// nor prevents that one (C2), and a half-point bye counts as a downfloat
// for C14-C21, as a pairing bye does. Each bracket is paired by maximum-weight matchings of the whole
// field (Edmonds' blossom algorithm) whose edge weights stack these
// criteria one above the other, the method of bbpPairings, the
// FIDE-endorsed engine: on 1,419 reference rounds it pairs exactly as
// that engine does, and on 214 more with half-point byes, absences,
// XXC black1 and the Baku acceleration (testdata/customs).
//
// Boards are ordered by the higher score of the pair, then the lower
// score, then the rank of the higher ranked player.
package tournament
