package ziggurat43

import "pbem/engine"

// The texts of the rules a refused move breaks (after "illegal: "). Those
// with a verb take squares or names as arguments.
const (
	ErrGameOver      = "the game is over (%s)"
	ErrNoSuchSquare  = "no such square %v"
	ErrNoPiece       = "no piece on %v"
	ErrNotYours      = "the %v on %v is not yours"
	ErrOwnPiece      = "cannot capture your own piece on %v"
	ErrOnlyArchers   = "only Archers shoot"
	ErrKingStep      = "a Priest-King steps to an adjacent square"
	ErrHorseLeap     = "a Horse leaps two squares one way and one the other"
	ErrChariotMove   = "a Chariot moves one or two squares along a rank or file"
	ErrArcherStep    = "an Archer steps one square along a rank or file"
	ErrArcherCapture = "Archers never capture by moving (an Archer shoots with ^)"
	ErrShotDiagonal  = "an Archer shoots only along a diagonal"
	ErrShotBlocked   = "an Archer shoots only the first piece on a diagonal (%v is in the way)"
	ErrShotFriend    = "an Archer never shoots a friendly piece"
	ErrShotNothing   = "no piece to shoot on %v"
	ErrSpearDown     = "Spearmen never move down"
	ErrSpearBack     = "Spearmen never move backward"
	ErrSpearStep     = "a %s Spearman steps one square up, %s or up-%s"
)

// Mover returns the piece on from when the side to move may move it, else
// the rule that stops it: the game is over, from is no cell, holds no
// piece or holds an enemy piece.
func (s *State) Mover(from Square) (Piece, error) {
	if o, over := s.ended(); over {
		return Empty, engine.Illegal(ErrGameOver, o.Reason)
	}
	if !from.IsCell() {
		return Empty, engine.Illegal(ErrNoSuchSquare, from)
	}
	p := s.board[from]
	if p == Empty {
		return Empty, engine.Illegal(ErrNoPiece, from)
	}
	if p.Side() != int(s.toMove) {
		return Empty, engine.Illegal(ErrNotYours, p.Kind(), from)
	}
	return p, nil
}

// diagnose explains why m, which the generator does not produce, is
// illegal. It runs on the failure path only.
func (s *State) diagnose(m Move) error {
	if !m.To.IsCell() && m.From.IsCell() {
		if _, over := s.ended(); !over {
			return engine.Illegal(ErrNoSuchSquare, m.To)
		}
	}
	p, err := s.Mover(m.From)
	if err != nil {
		return err
	}
	if !m.To.IsCell() {
		return engine.Illegal(ErrNoSuchSquare, m.To)
	}
	side := int(s.toMove)
	if m.Shot && p.Kind() != Archer {
		return engine.Illegal(ErrOnlyArchers)
	}
	df, dr := m.To.File()-m.From.File(), m.To.Rank()-m.From.Rank()
	adf, adr := abs(df), abs(dr)
	target := s.board[m.To]
	own := target != Empty && target.Side() == side
	switch p.Kind() {
	case King:
		if max(adf, adr) != 1 {
			return engine.Illegal(ErrKingStep)
		}
	case Horse:
		if !(adf == 1 && adr == 2 || adf == 2 && adr == 1) {
			return engine.Illegal(ErrHorseLeap)
		}
	case Chariot:
		if adf != 0 && adr != 0 || adf+adr < 1 || adf+adr > 2 {
			return engine.Illegal(ErrChariotMove)
		}
	case Spearman:
		forward := 1
		if side == Gold {
			forward = -1
		}
		switch {
		case dr < 0:
			return engine.Illegal(ErrSpearDown)
		case df*forward < 0:
			return engine.Illegal(ErrSpearBack)
		case adf > 1 || adr > 1 || adf+adr == 0:
			way := "right"
			if side == Gold {
				way = "left"
			}
			return engine.Illegal(ErrSpearStep, sideNames[side], way, way)
		}
	case Archer:
		if !m.Shot {
			if target != Empty && !own {
				return engine.Illegal(ErrArcherCapture)
			}
			if adf+adr != 1 {
				return engine.Illegal(ErrArcherStep)
			}
			break
		}
		if adf != adr || adf == 0 {
			return engine.Illegal(ErrShotDiagonal)
		}
		step := MakeSquare(1+sign(df), 1+sign(dr)) - MakeSquare(1, 1)
		for t := m.From + step; t != m.To; t += step {
			if s.board[t] != Empty {
				return engine.Illegal(ErrShotBlocked, t)
			}
		}
		if target == Empty {
			return engine.Illegal(ErrShotNothing, m.To)
		}
		if own {
			return engine.Illegal(ErrShotFriend)
		}
	}
	if own {
		return engine.Illegal(ErrOwnPiece, m.To)
	}
	// Not reached while the generator and this diagnosis agree.
	return engine.Illegal("%v to %v is not a legal move", m.From, m.To)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
