# llmload: build, test, lint, benchmarks and the simulator calibration.
# Every target needs only Go (and make).

GO      ?= go
PKGS    := ./...
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
BIN     := bin/llmload
FUZZTIME ?= 10s

.PHONY: all build test unit race fuzz-short lint fmt-check vet bench bench-memory bench-dataset bench-python calibrate quickstart clean

all: build test

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/llmload

## test: what CI runs (README's test command): lint, unit tests, the race
## detector on the packages that run goroutines, and a short fuzz of each parser.
test: lint unit race fuzz-short

unit:
	$(GO) test -count=1 $(PKGS)

race:
	$(GO) test -count=1 -race ./executor/... ./metrics/... ./sim/... ./internal/e2e

fuzz-short:
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) ./scenario
	$(GO) test -run='^$$' -fuzz='^FuzzSSE$$' -fuzztime=$(FUZZTIME) ./executor
	$(GO) test -run='^$$' -fuzz='^FuzzLoadShareGPT$$' -fuzztime=$(FUZZTIME) ./dataset
	$(GO) test -run='^$$' -fuzz='^FuzzLoadJSONL$$' -fuzztime=$(FUZZTIME) ./dataset

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
	$(GO) build -o bin/fakeserver ./internal/fakeserver
	bash bench/memory.sh

## bench-python: the Python asyncio/aiohttp baselines against the same fake server
## as the client benchmarks (not run by CI; needs python3, and python3-aiohttp
## for vLLM's client loop).
bench-python:
	$(GO) test -c -o bin/executor.test ./executor
	bash bench/run-python.sh

## bench-dataset: load + sample 1000 prompts from a generated ~650 MB ShareGPT file.
bench-dataset:
	$(GO) test -run='^$$' -bench='ShareGPT650MB' -benchtime=1x -timeout=20m ./dataset

## calibrate: the simulator's a100-llama3-8b profile against the reference figures.
calibrate: build
	@mkdir -p llmload-results/calibration
	-$(BIN) run -quiet -out llmload-results/calibration examples/calibration.hcl > llmload-results/calibration/report.txt
	$(GO) run ./internal/calibrate llmload-results/calibration

quickstart:
	$(GO) run ./cmd/llmload run examples/quickstart.hcl

clean:
	rm -rf bin llmload-results
