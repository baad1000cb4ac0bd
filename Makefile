# unitrace: build images, boot them, test everything. `make help` lists targets.
#
# Variables (make run APP=examples/hello MACHINE=q35 MEM=512M ARGS="a b"):
#   APP      main package directory to build and boot (default examples/hello)
#   ARCH     guest architecture: amd64 (default) or arm64
#   MACHINE  QEMU machine: microvm (default), q35, pc; virt on arm64
#   MEM      guest memory, QEMU -m syntax (default 256M)
#   ACCEL    tcg (default) or kvm
#   TIMEOUT  kill the guest after this long (default 10m)
#   ENV      KEY=VALUE words for the guest: environment and unitrace.* options
#   ARGS     the program's arguments (os.Args[1:])
#   FUZZTIME how long `make test` fuzzes each fuzz target (default 8s: about 40 targets fit in
#            the time 31 took at 10s; scripts/fuzz.sh 5m for a long run)
#   CHECK_ARCHES  GOARCH values `make check` vets (default amd64 arm64)

SHELL := /bin/bash
GO ?= go
APP ?= examples/hello
ARCH ?= amd64
MACHINE ?=
MEM ?= 256M
ACCEL ?= tcg
TIMEOUT ?= 10m
ENV ?=
ARGS ?=
FUZZTIME ?= 8s
CHECK_ARCHES ?= amd64 arm64

UNITRACE := build/unitrace
RUNFLAGS = -arch $(ARCH) $(if $(MACHINE),-machine $(MACHINE)) -m $(MEM) -accel $(ACCEL) -timeout $(TIMEOUT)
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
# HOST_PACKAGES are the packages with files only the host build compiles (build tag
# unitrace_host: the tracer's and the unwinder's host machine hooks); check vets them and test
# tests them in that build too.
HOST_PACKAGES := $(sort $(dir $(shell grep -rl --include='*.go' '^//go:build.*unitrace_host' .)))

.PHONY: help image run run-sampler test deps check launcher bench

help:
	@echo "make run-sampler   boot the demo with the sampling profiler; print and write its profile"
	@echo "make test          install QEMU if needed, run the checks, all tests and brief fuzzing"
	@echo "make image         build build/<app>-<arch>.elf from APP (default examples/hello)"
	@echo "make run           build APP and boot it in QEMU (MACHINE= MEM= ACCEL= ENV= ARGS=)"
	@echo "make check         gofmt, go vet and the kernel-mode check"
	@echo "make deps          install QEMU with apt-get when qemu-system-x86_64 or -aarch64 is missing"
	@echo "make bench         fixed-work workloads under unitrace and Debian's Linux in the same QEMU (docs/measurements.md)"

image:
	$(GO) run ./cmd/mkimage -arch $(ARCH) $(APP)

launcher:
	@mkdir -p build
	$(GO) build -o $(UNITRACE) ./cmd/unitrace

# The launcher exits with the guest's status, so make reports a program's
# non-zero exit status as an error.
run: deps launcher
	$(UNITRACE) run $(RUNFLAGS) $(APP) $(ENV) -- $(ARGS)

# Boots examples/demo with the sampling profiler, prints the top functions and the call tree,
# and writes cpu.pb.gz, sampler.folded and sampler.svg (scripts/run-sampler.sh).
run-sampler: deps launcher
	UNITRACE=$(UNITRACE) ARCH=$(ARCH) scripts/run-sampler.sh

# bench: examples/bench under unitrace and under Debian's Linux in the same QEMU (scripts/bench.sh);
# the table goes into docs/measurements.md.
bench: deps
	DOC=docs/measurements.md scripts/bench.sh

deps:
	@if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || ! command -v qemu-system-aarch64 >/dev/null 2>&1; then \
		echo "deps: qemu-system-x86_64 or qemu-system-aarch64 is missing; installing qemu-system-x86 and qemu-system-arm with apt-get"; \
		$(SUDO) apt-get update && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends qemu-system-x86 qemu-system-arm; \
	fi

check:
	@unformatted=$$(gofmt -l .); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	@for arch in $(CHECK_ARCHES); do echo "go vet (GOARCH=$$arch)"; GOOS=linux GOARCH=$$arch $(GO) vet ./... || exit 1; done
	$(GO) vet -tags unitrace_host $(HOST_PACKAGES)
	$(GO) run ./cmd/kernelcheck
	$(GO) run ./cmd/kernelcheck -arch arm64

# The VM tests run on their own, after the rest: the sampler's ground-truth profiles are
# measured in guest time, which is host time under TCG, so other test binaries competing for the
# cores would show up in them. -count=1: the VM tests build the kernel in a child go command,
# which go test's cache cannot see, so a cached pass could hide a kernel change.
test: deps check
	$(GO) test -timeout 30m $$($(GO) list ./... | grep -v /tests/vm)
	$(GO) test -count=1 -timeout 30m ./tests/vm
	$(GO) test -tags unitrace_host $(HOST_PACKAGES)
	scripts/fuzz.sh $(FUZZTIME)
