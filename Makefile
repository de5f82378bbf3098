# llmload: build, test, lint, benchmarks and the simulator calibration.
# Every target needs only Go (and make).

GO      ?= go
PKGS    := ./...
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo none)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
BIN     := bin/llmload
FUZZTIME ?= 10s
# Each test that skips for want of ../shared appends a line here (see
# internal/testshared); `make test` ends by counting them.
SKIPLOG := $(CURDIR)/bin/shared-skips.log
DIST    := dist
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64

.PHONY: all build test test-busy unit race freshclone conformance fuzz-short shared-skips lint fmt-check vet bench bench-memory bench-streams bench-dataset bench-python calibrate quickstart release clean

all: build test

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/llmload

## test: what CI runs (README's test command): lint, unit tests (the
## fresh-clone test among them), the race detector on the packages that run
## goroutines, a short fuzz of each parser, then the count of tests skipped
## for want of ../shared.
test: lint unit race freshclone fuzz-short shared-skips

## test-busy: the unit and end-to-end tests (the fresh-clone test among
## them) while a busy loop at normal priority occupies every core, as a
## build or another test run beside them does. No test's outcome may depend
## on how busy the machine is; CI runs this once after `make test`.
## Packages run one at a time (-p 1), each beside the busy loops as it
## would be beside a build: the most sensitive form (measured: 2eff046's
## tests failed it 2 times of 3, and their cmd/llmload alone 2 of 2, while
## `make -k unit` beside the same loops passed on it).
## It ends with one line counting the packages that passed and failed.
test-busy:
	@mkdir -p bin && rm -f $(SKIPLOG)
	@bash -o pipefail -c 'LLMLOAD_SHARED_SKIPLOG=$(SKIPLOG) bash tools/busy.sh $(GO) test -count=1 -p 1 $$($(GO) list $(PKGS) | grep -v /engines/conformance) 2>&1 | tee bin/busy.log'; \
	status=$$?; \
	echo "busy: $$(grep -cE '^ok\s' bin/busy.log) passed, $$(grep -cE '^FAIL\s' bin/busy.log) failed"; \
	exit $$status

unit:
	@mkdir -p bin && rm -f $(SKIPLOG)
	LLMLOAD_SHARED_SKIPLOG=$(SKIPLOG) $(GO) test -count=1 $$($(GO) list $(PKGS) | grep -v -e /internal/freshclone -e /engines/conformance)

## conformance: llmload against real engines (llama.cpp's llama-server and
## Ollama) serving a generated tiny model, built by .ci/engines.sh into a
## cache outside the repository (docs/engines.md). Each engine's tests skip
## when it is not built, unless LLMLOAD_REQUIRE_ENGINES=1 (CI sets it).
conformance:
	$(GO) test -count=1 -v -timeout 30m ./engines/conformance

## freshclone: clone the repository into an empty folder and run the
## examples there. It runs on its own, after the unit tests: its quickstart
## is a real-time run judged for validity (dispatch lag, client CPU), which
## a machine busy with other test packages can break.
freshclone:
	LLMLOAD_SHARED_SKIPLOG=$(SKIPLOG) $(GO) test -count=1 ./internal/freshclone

## shared-skips: one line saying how many unit tests skipped because ../shared
## is absent (CI sets LLMLOAD_REQUIRE_SHARED=1, which fails them instead).
shared-skips:
	@n=0; [ -f $(SKIPLOG) ] && n=$$(wc -l < $(SKIPLOG) | tr -d ' '); \
	if [ "$$n" = 0 ]; then echo "shared-data tests skipped: 0"; \
	else echo "shared-data tests skipped: $$n (../shared is absent; they are listed in $(SKIPLOG))"; fi

race:
	$(GO) test -count=1 -race ./executor/... ./metrics/... ./sim/... ./internal/e2e

fuzz-short:
	bash tools/fuzz.sh $(GO) FuzzParse ./scenario $(FUZZTIME)
	bash tools/fuzz.sh $(GO) FuzzSSE ./executor $(FUZZTIME)
	bash tools/fuzz.sh $(GO) FuzzMessagesEvent ./executor $(FUZZTIME)
	bash tools/fuzz.sh $(GO) FuzzLoadShareGPT ./dataset $(FUZZTIME)
	bash tools/fuzz.sh $(GO) FuzzLoadJSONL ./dataset $(FUZZTIME)
	bash tools/fuzz.sh $(GO) FuzzLoadTrace ./dataset $(FUZZTIME)

lint: vet fmt-check

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## bench: parser, client, tokenizer and recorder benchmarks.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./executor/... ./tokenizer/... ./metrics/... ./dataset/...

## bench-memory: 1,000,000 closed-loop requests of 256 tokens against a
## zero-delay fake server in its own process; fails when llmload's peak RSS
## passes 200 MiB or the requests file misses a line (REQUESTS=n to change).
bench-memory: build
	$(GO) build -o bin/fakeserver ./tools/fakeserver
	bash bench/memory.sh

## bench-streams: many concurrent streams against a fake server in its own
## process that records what it delivered; prints TTFT and ITL errors against
## it, connection phases, client CPU per thousand events and peak RSS.
## STREAMS=1000 (three runs; RUNS=n) or STREAMS=10000 (ramped, rate inf, and
## rate inf prewarmed); PROFILE=DIR keeps CPU and allocation profiles.
bench-streams: build
	$(GO) build -o bin/fakeserver ./tools/fakeserver
	bash bench/streams.sh

## bench-python: the Python asyncio/aiohttp baselines against the same fake server
## as the client benchmarks (not run by CI; needs python3, and python3-aiohttp
## for vLLM's client loop).
bench-python:
	$(GO) test -c -o bin/executor.test ./executor
	bash bench/run-python.sh

## bench-dataset: load + sample 1000 prompts from a generated ~650 MB ShareGPT file.
bench-dataset:
	$(GO) test -run='^$$' -bench='ShareGPT650MB' -benchtime=1x -timeout=20m ./dataset

## calibrate: the simulator's a100-llama3-8b profile against the reference
## figures (about 4 minutes). The run's exit 1 (a check failed) still leaves
## results to compare; any other failure (2 invalid, 3 no result, 130
## interrupted) stops here, loudly.
calibrate: build
	@mkdir -p llmload-results/calibration
	@rm -f llmload-results/calibration/*.json
	@echo "$(BIN) run -quiet -out llmload-results/calibration examples/calibration.hcl > llmload-results/calibration/report.txt"
	@$(BIN) run -quiet -out llmload-results/calibration examples/calibration.hcl > llmload-results/calibration/report.txt; \
	code=$$?; \
	if [ $$code -ne 0 ] && [ $$code -ne 1 ]; then \
		echo "calibrate: llmload run failed with exit $$code (not a check: the calibration has no result to compare)" >&2; \
		exit $$code; \
	fi
	$(GO) run ./tools/calibrate llmload-results/calibration

quickstart:
	$(GO) run ./cmd/llmload run examples/quickstart.hcl

## release: static binaries for linux and darwin on amd64 and arm64 in dist/,
## stamped with the version and commit, and their SHA-256 sums.
release:
	@rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; out=$(DIST)/llmload-$(VERSION)-$$os-$$arch; \
		echo "CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -o $$out ./cmd/llmload"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' -o $$out ./cmd/llmload; \
	done
	@cd $(DIST) && (sha256sum llmload-* 2>/dev/null || shasum -a 256 llmload-*) > SHA256SUMS && cat SHA256SUMS

clean:
	rm -rf bin llmload-results $(DIST)
