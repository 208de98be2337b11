# The Makefile is the interface: build, test, bench, fuzz, fmt, vet, run.
GO       ?= go
FUZZTIME ?= 60s
BENCHTIME ?= 1x

.PHONY: build test bench bench-check bench-serve fuzz fmt vet run check

build:
	$(GO) build -o bin/pbem ./cmd/pbem

# The one test command (README, .ci/run): installs what the tests need
# (Dovecot for the mail integration test, PostgreSQL for the store's tests
# on its second backend, when run as root), then runs every test.
test:
	./.ci/dovecot.sh
	./.ci/postgres.sh
	$(GO) vet ./...
	./.ci/chromium.sh && PBEM_REQUIRE_DOVECOT=1 PBEM_REQUIRE_CHROMIUM=1 PBEM_REQUIRE_POSTGRES=1 $(GO) test ./...

# Benchmarks on one core; figures are reported, never asserted.
bench:
	GOMAXPROCS=1 $(GO) test -run=NONE -bench=. -benchmem -cpu 1 ./...

# pbem check against pgn-extract, plies/s per game (.ci/bench-check.sh);
# fails when a game's ratio falls 10% below .ci/bench-check.baseline
# (./.ci/bench-check.sh --write-baseline writes a new one).
bench-check:
	./.ci/bench-check.sh

# Every fuzz target for FUZZTIME each.
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$target"; \
	    $(GO) test -run=NONE -fuzz="^$$target$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...

# pbem on its embedded defaults.
run:
	$(GO) run ./cmd/pbem serve

# The load driver of pbem serve (cmd/pbem TestLoadServe): N games through the
# embedded IMAP and SMTP servers; prints moves/s, latency percentiles and memory.
# It runs twice: first pbem serve in the driver's process on its own embedded
# servers, as `pbem serve` without a configuration (32 SMTP connections;
# PROFILE=file writes a CPU profile of it all), then pbem serve as a process of
# its own configured for the embedded servers in the driver's process, as for a
# mail server of your own (8 SMTP connections), with its own RSS and CPU time.
# Sizes: PBEM_LOAD_GAMES (1000), PBEM_LOAD_RATE (100/s), PBEM_LOAD_SECONDS
# (10), PBEM_LOAD_STORED (100000), PBEM_LOAD_ACTIVE (10000); PBEM_LOAD_MAIL=memory
# keeps the embedded servers' mail in memory; PBEM_LOAD_CONNECTIONS and
# PBEM_LOAD_BATCH set smtp.connections and imap.batch; PBEM_LOAD_TEXT=1 sends
# plain-text mail only (referee.text_mail), without the HTML part and its picture.
# PBEM_LOAD_STORE=postgres puts the store on PostgreSQL: a private cluster on
# loopback with PostgreSQL's durable defaults (fsync on). PBEM_LOAD_MAIL=dovecot
# runs a private Dovecot with a recording SMTP relay; PBEM_LOAD_BIN reuses a
# built pbem. Figures, paired, with their dates: docs/PERFORMANCE.md.
bench-serve:
	PBEM_LOAD_PROCESS=0 $(GO) test ./cmd/pbem -run '^TestLoadServe$$' -count=1 -v -timeout 60m $(if $(PROFILE),-cpuprofile $(PROFILE)) -args -serve-load
	PBEM_LOAD_PROCESS=1 $(GO) test ./cmd/pbem -run '^TestLoadServe$$' -count=1 -v -timeout 60m -args -serve-load
