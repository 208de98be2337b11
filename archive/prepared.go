package archive

import (
	"context"
	"database/sql"
	"sync"
)

// maxPrepared bounds the statements a Store keeps prepared; queries beyond
// it run unprepared (only constant query texts go through the cache, so it
// is never reached in practice).
const maxPrepared = 256

// prepared keeps the statements of the hot queries (the commit path, the
// referee's reads, the outbox) prepared for the store's life: SQLite then
// parses each once per connection instead of on every call.
type prepared struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// stmt returns the prepared statement of query, preparing it the first
// time; nil if it cannot be prepared or the cache is full (the caller then
// runs the query unprepared, which reports any error).
func (s *Store) stmt(ctx context.Context, query string) *sql.Stmt {
	p := &s.prep
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.m[query]; ok {
		return st
	}
	if len(p.m) >= maxPrepared {
		return nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if p.m == nil {
		p.m = map[string]*sql.Stmt{}
	}
	p.m[query] = st
	return st
}

// closePrepared closes every prepared statement.
func (s *Store) closePrepared() {
	p := &s.prep
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, st := range p.m {
		st.Close()
	}
	p.m = nil
}

// pq is a querier that runs its queries as the Store's prepared
// statements, on the database or within a transaction.
type pq struct {
	s  *Store
	tx *sql.Tx // nil: the database
}

// q returns the prepared querier of the database (tx nil) or of tx.
func (s *Store) q(tx *sql.Tx) pq { return pq{s, tx} }

func (p pq) stmt(ctx context.Context, query string) *sql.Stmt {
	st := p.s.stmt(ctx, query)
	if st == nil || p.tx == nil {
		return st
	}
	return p.tx.StmtContext(ctx, st)
}

func (p pq) plain() querier {
	if p.tx != nil {
		return p.tx
	}
	return p.s.db
}

func (p pq) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return p.plain().QueryContext(ctx, query, args...)
}

func (p pq) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := p.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return p.plain().QueryRowContext(ctx, query, args...)
}

func (p pq) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := p.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	return p.plain().ExecContext(ctx, query, args...)
}
