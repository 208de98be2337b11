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
// # Swiss pairing (a simplified Dutch system)
//
// Ranking. Players who have not withdrawn are ranked by score (a win 1, a
// draw 1/2, a bye or a forfeit win 1; UnscoredByes makes a bye 0), then
// by seed. A score group is the players of one score, in that order.
//
// Colours. A player's colour history is the sides of the games actually
// played (not byes, not forfeits): White moves first (seat 0). The colour
// difference is Whites minus Blacks. A player needs Black at +1 or more
// and White at -1 or less (to keep within +/-1); at 0, the colour other
// than that of the last two games when those had one colour (no three in a
// row). A need is strong at +2 or -2 (a third colour more would make
// +/-3), and firm when it also avoids a third game in a row with one
// colour. A player with no need prefers the colour other than the last one
// played, and has no preference before the first game.
//
// Absolute rules (never broken):
//
//	A1. No two players meet twice (a forfeited game counts as a meeting).
//	A2. A player gets at most one bye; withdrawn players are not paired.
//
// Among all the pairings that obey A1 and A2 (with an odd number of
// players, one player has the bye), Pair picks the one that is best by
// these criteria, each counting only when all earlier ones tie:
//
//	C1. The bye goes to a player of the lowest score possible, and within
//	    it to the lowest ranked possible.
//	C2. As few pairs as possible where both players strongly need the
//	    same colour (no colour difference ever goes beyond +/-2).
//	C3. As few pairs as possible where both need the same colour, both
//	    strongly or firmly.
//	C4. The smallest total of score differences over the pairs (so players
//	    meet their own score group wherever the groups can be paired).
//	C5. The fewest pairs across score groups (floaters).
//	C6. As few pairs as possible where both need the same colour, for
//	    any of the reasons above (so colour differences stay within +/-1
//	    wherever the score groups allow it).
//	C7. The fewest players who do not get the colour they prefer (sides
//	    alternate as far as possible).
//	C8. The Dutch order: in a score group of g players split into an upper
//	    half S1 (the g/2 best ranked, rounded down) and a lower half S2,
//	    the i-th of S1 meets the i-th of S2; a pair of group positions i < j
//	    costs |j - i - g/2|. A pair across groups costs how far the upper
//	    player is from the bottom of their group plus how far the lower
//	    player is from the top of theirs (the lowest of a group floats down
//	    to meet the highest of the next). The total is the smallest.
//
// The best pairing is found exactly, not greedily: every pair of players
// who may meet is an edge weighted by C1-C8 (each criterion scaled past
// the largest total of those after it), the bye is an extra player, and a
// maximum-weight perfect matching (Edmonds' blossom algorithm, polynomial
// in the field size) gives the pairing. So a valid pairing is found
// whenever one exists, and the criteria hold "as far as possible" in the
// exact sense of the order above.
//
// Sides. A player who needs a colour gets it; when both need the same,
// the stronger need wins, and between equal needs the higher ranked. Otherwise a colour preferred
// by only one player, or by both differently, is given; when both prefer
// the same colour, the histories are compared from the latest game back
// and, at the first game where the two had different colours, each gets
// the colour other than the one they had then; when the histories never
// differ, the higher ranked player gets the preference. With no preference
// at all (round 1), the higher ranked player has White on odd boards and
// Black on even ones.
//
// Boards are ordered by the higher score of the pair, then the lower
// score, then the rank of the higher ranked player.
package tournament
