package tournament

// berger returns the pairs of round c (1 to m) of the single round robin of
// n players numbered 1..n (n even, m = n-1) on the Berger tables, board
// by board, the first number of a pair having White. Player n meets p,
// where 2p = c+1 (mod m), White in even rounds; the other boards pair
// p-k with p+k (mod m, k = 1, 2, ...), and of those two the one from
// which the other lies an odd number of steps ahead (mod m) has White.
// This reproduces FIDE's published Berger tables (round 1: 1-n, 2-(n-1),
// ...; round 2: n-(n/2+1), ...) and gives every player at most one more
// White than Black.
func berger(n, c int) [][2]int {
	m := n - 1
	mod := func(x int) int {
		x %= m
		if x <= 0 {
			x += m
		}
		return x
	}
	p := mod((c + 1) * (m + 1) / 2)
	if m == 1 {
		p = 1
	}
	pairs := [][2]int{{p, n}}
	if c%2 == 0 {
		pairs[0] = [2]int{n, p}
	}
	for k := 1; k < n/2; k++ {
		a, b := mod(p-k), mod(p+k)
		if mod(b-a)%2 == 0 { // b-a even: a lies an odd number of steps from b
			a, b = b, a
		}
		pairs = append(pairs, [2]int{a, b})
	}
	return pairs
}

// pairRoundRobin returns round r of a (double) round robin. Players are
// numbered by seed; an odd field adds a dummy whose opponent has the bye.
// The second cycle of a double round robin repeats the first with sides
// swapped. A game against a withdrawn player is forfeited to the other
// (two withdrawn players: no game); a withdrawn player gets no bye.
func (e *Event) pairRoundRobin(r int) *Round {
	n := len(e.Players)
	nn := n + n%2
	m := nn - 1
	c := (r-1)%m + 1
	swap := r > m
	out := &Round{Number: r}
	var forfeits [][2]string
	for _, pr := range berger(nn, c) {
		if swap {
			pr[0], pr[1] = pr[1], pr[0]
		}
		if pr[0] > n || pr[1] > n { // the dummy: a bye
			id := e.Players[min(pr[0], pr[1])-1].ID
			if !e.withdrawn(id) {
				out.Byes = append(out.Byes, id)
			}
			continue
		}
		w, b := e.Players[pr[0]-1].ID, e.Players[pr[1]-1].ID
		switch wd, bd := e.withdrawn(w), e.withdrawn(b); {
		case wd && bd:
		case wd || bd:
			forfeits = append(forfeits, [2]string{w, b})
		default:
			out.Games = append(out.Games, Game{Round: r, Board: len(out.Games) + 1, Players: []string{w, b}})
		}
	}
	for _, f := range forfeits {
		players := []string{f[0], f[1]}
		out.Forfeited = append(out.Forfeited, Game{
			Round: r, Board: len(out.Games) + len(out.Forfeited) + 1, Players: players,
			Ranks: forfeitRanks(players, e.withdrawn), Forfeit: true,
		})
	}
	return out
}
