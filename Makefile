# blogbench: `make up APP=<name>`, `make test`. See README.md.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec
.DEFAULT_GOAL := help

APP ?=
# The app names: the Go reference plus one folder under apps/ per app (a crate, a Go module,
# or an app its manifest installs and starts).
APPS := go $(sort $(patsubst apps/%/bench.toml,%,$(wildcard apps/*/bench.toml)))
# Go apps besides the reference, each its own module, built into a binary named after its folder.
GO_APPS := $(patsubst apps/%/go.mod,%,$(wildcard apps/*/go.mod))
# Every Go module: linted and tested one by one.
GO_MODULES := $(patsubst %/go.mod,%,$(wildcard go-shared/go.mod go-reference/go.mod apps/*/go.mod))
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
# The cargo profile every target builds and runs: `release` (thin LTO), what `make up` and
# every measurement use; `make test` uses `ci` (Cargo.toml says why). Its folder holds the
# Go binaries too.
PROFILE ?= release
BUILD_DIR := $(TARGET_DIR)/$(PROFILE)
BLOGBENCH := $(BUILD_DIR)/blogbench

# The load generator, pinned (its `-j` flag was removed in 1.9; this is 1.16).
OHA_VERSION := 1.16.0

.PHONY: help services build tools up parity bench bench-quick null-check sweep sweep-quick profile faults idioms scoreboard test lint go-test apps-check cargo-test

help:
	@echo "make up APP=<name>   services, data, release build, then the app on 127.0.0.1:8080"
	@echo "make test            lint, build, services, Go tests, unit, parity and integration tests, timed per stage"
	@echo "make services        start PostgreSQL and Redis, load the data when it is not there"
	@echo "make build           release build of every app and tool, installs of the other languages' apps (PROFILE=ci: the profile make test builds)"
	@echo "make parity          compare every app's pages with the Go reference's"
	@echo "make bench           the fair benchmark of every app (docs/spec.md §5), results and report in results/"
	@echo "make bench-quick     the same in smoke-test size (1 round, 1 s runs)"
	@echo "make null-check      the A/A check: Go against two twins, 10 rounds of 0.25 s slices; how often the method finds a difference where none is"
	@echo "make sweep           latency at given rates, connection sweep, overload, 512 MiB limit (docs/spec.md §8), in results/"
	@echo "make sweep-quick     the same in smoke-test size"
	@echo "make profile         where each app's time goes on the detail page, in profiles/"
	@echo "make faults          PostgreSQL and Redis restarted under load, bad input, floods (docs/spec.md §7), in results/"
	@echo "make idioms          every app's code for the same concerns side by side, its size, packages, build and run cost, in idioms/"
	@echo "make scoreboard      every app on every question from one commit (docs/spec.md §9; BUDGET=6h), in scoreboard/"

# One build command for everything, always the same, so the tests and every command of one
# profile share one set of artefacts: building one crate alone, or bins without tests
# (dev-dependencies change feature unification), re-resolves features and rebuilds. The
# targets are what `cargo test` builds, plus the bins; not `--all-targets`, whose `--benches` builds every lib and bin
# once more as a benchmark harness (bench = true by default). `--timings` costs next to nothing and leaves a report in target/cargo-timings/, so a cold build (CI's) gives `make
# idioms` each app's compile time.
build:
	cargo build --profile $(PROFILE) --workspace --lib --bins --tests --examples --timings
	cd go-reference && go build -o $(BUILD_DIR)/go-reference .
	@for app in $(GO_APPS); do echo "go build apps/$$app"; (cd apps/$$app && go build -o $(BUILD_DIR)/$$app .) || exit 1; done
	$(BLOGBENCH) apps build

services: build
	scripts/services.sh up
	$(BUILD_DIR)/seed ensure

# oha from crates.io at a pinned version (wrk, the second opinion, is a Debian package). The
# load is plain HTTP: its TLS comes from the system's OpenSSL instead of its default rustls,
# whose aws-lc C build doubled the install time.
tools:
	@oha --version 2>/dev/null | grep -qx "oha $(OHA_VERSION)" || { \
		pkg-config --exists openssl || { echo "make tools: oha needs OpenSSL's headers: apt-get install libssl-dev pkg-config"; exit 1; }; \
		cargo install --locked oha --version $(OHA_VERSION) --no-default-features --features native-tls; }

bench: services tools
	$(BLOGBENCH) bench

bench-quick: services tools
	$(BLOGBENCH) bench --quick

# Go and two twins (the same program): every difference the report finds is false (docs/spec.md §5.12).
null-check: services tools
	$(BLOGBENCH) bench --apps go,go+TWIN=1,go+TWIN=2 --routes home,detail,cached-detail --rounds 10 --duration 5s --warmup 1s

# Every app; under the 512 MiB cgroup also Go with its soft memory limit set (docs/spec.md §8.5).
sweep: services tools
	$(BLOGBENCH) sweep --memory-limit 512MiB --memory-variants go+GOMEMLIMIT=384MiB

sweep-quick: services tools
	$(BLOGBENCH) sweep --quick --apps go,axum-sqlx --memory-limit 512MiB

# actix-sqlx twice more with 4 workers (the reference report's count), so its two pool modes
# differ even where the app gets one CPU.
profile: services tools
	$(BLOGBENCH) profile --routes detail \
		--apps all,actix-sqlx+WORKERS=4,actix-sqlx+POOL_MODE=shared+WORKERS=4

# Restarts the local PostgreSQL and Redis under load (root), one app at a time.
faults: services
	$(BLOGBENCH) faults

# Each app's code for the same concerns, side by side, and what it costs to build and run;
# rebuilds the workspace (timed, after a change to each app's route file) and starts each app.
idioms: services
	$(BLOGBENCH) idioms

# Every app on every question from one commit (docs/spec.md §9); BUDGET=6h plans to fit it,
# and `blogbench scoreboard --resume <id>` continues an interrupted one.
scoreboard: services tools
	$(BLOGBENCH) scoreboard $(if $(BUDGET),--budget $(BUDGET))

up:
	@case " $(APPS) " in *" $(APP) "*) ;; *) echo "make up: unknown APP='$(APP)'; valid names: $(APPS)"; exit 2;; esac
	@$(MAKE) --no-print-directory services
	@$(BLOGBENCH) run --app $(APP)

parity: services
	$(BLOGBENCH) parity --apps all

lint:
	cargo fmt --all --check
	cargo clippy --profile $(PROFILE) --workspace --all-targets -- -D warnings
	@for module in $(GO_MODULES); do \
		echo "gofmt, go vet: $$module"; \
		unformatted=$$(cd $$module && gofmt -l .); \
		test -z "$$unformatted" || { echo "gofmt: these files in $$module need formatting: $$unformatted"; exit 1; }; \
		(cd $$module && go vet ./...) || exit 1; \
	done

# The apps in other languages: each one's formatter, linter and tests, as its manifest names
# them (`[check]`), in its folder.
apps-check: build
	$(BLOGBENCH) apps lint
	$(BLOGBENCH) apps test

go-test: services
	@for module in $(GO_MODULES); do echo "go test: $$module"; (cd $$module && go test -count=1 ./...) || exit 1; done

# Each integration test adds its wall time here (bench/tests/integration/common.rs).
TEST_SECONDS := $(TARGET_DIR)/tmp/integration-test-seconds.tsv

# Ends with the slowest integration tests, then one line summing every cargo test binary's
# results, for CI and for people.
cargo-test: services tools
	@rm -f $(TEST_SECONDS)
	cargo test --profile $(PROFILE) --workspace 2>&1 | tee $(TARGET_DIR)/cargo-test.log
	@if [ -f $(TEST_SECONDS) ]; then echo "cargo-test: seconds per integration test, slowest first"; \
		sort -t$$'\t' -k2,2nr $(TEST_SECONDS) | awk -F'\t' '{ printf "  %7.1f  %s\n", $$2, $$1 }'; fi
	@awk '/^test result:/ { passed += $$4; failed += $$6 } END { printf "tests: %d passed, %d failed\n", passed, failed }' \
		$(TARGET_DIR)/cargo-test.log | tee $(TARGET_DIR)/test-summary.txt

# The stages of `make test`, in order, each timed: the table at the end says where the time
# went. A stage's prerequisites are done by then, so its own make finds them up to date.
TEST_STAGES := lint build services go-test apps-check cargo-test
STAGE_SECONDS := $(TARGET_DIR)/test-stage-seconds.tsv
# Tests check behaviour, not speed: the `ci` profile (release without cross-crate LTO) builds
# in 58–66 % of the time (docs/build-profiles.md). `make up` and `make bench` build `release`
# beside it.
TEST_PROFILE := ci

test:
	@mkdir -p $(TARGET_DIR) && : > $(STAGE_SECONDS)
	@failed=; for stage in $(TEST_STAGES); do \
		started=$$(date +%s); \
		$(MAKE) --no-print-directory $$stage PROFILE=$(TEST_PROFILE) || failed=$$stage; \
		printf '%s\t%s\n' "$$stage$${failed:+ (failed)}" "$$(( $$(date +%s) - started ))" >> $(STAGE_SECONDS); \
		test -z "$$failed" || break; \
	done; \
	awk -F'\t' 'BEGIN { print "make test: seconds per stage" } { printf "  %-20s %6d\n", $$1, $$2; total += $$2 } \
		END { printf "  %-20s %6d\n", "total", total }' $(STAGE_SECONDS); \
	test -z "$$failed"
