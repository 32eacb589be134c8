# Two commands set everything up on a fresh machine: `make demo` and `make test`.
# Both install what is missing first (tools/setup).

SWIFT ?= swift
DEMO_DIR := samples/naperville-water
DEMO_OUT := .build/demo/NapervilleWater.mmpk

.PHONY: all setup build release test demo samples bench clean

all: build

setup:
	@tools/setup

build: setup
	$(SWIFT) build --product mapbook

release: setup
	$(SWIFT) build -c release --static-swift-stdlib --product mapbook

test: setup
	# The code, Package.swift and docs/ARCHITECTURE.md agree (issue 31).
	python3 tools/check/house.py
	$(SWIFT) build --build-tests
	# The portal server's own tests run apart from the rest: Swift's cooperative pool has a
	# thread per core, the command tests wait on it for the processes they start, and an S3
	# download whose reader is not scheduled for 60 s times out (AsyncHTTPClient's read timer
	# runs while a reader lags).
	$(SWIFT) test --skip-build --skip MapbookPortalServerTests
	$(SWIFT) test --skip-build --filter MapbookPortalServerTests
	# The portal's tests again on its production stores, PostgreSQL and an S3 bucket (issue
	# 20; tools/pg/postgres.sh and tools/s3/swift-s3.sh start throwaway servers on loopback
	# and the tests stop them).
	MAPBOOK_TEST_PORTAL_STORE=postgres MAPBOOK_TEST_PORTAL_FILES=s3 $(SWIFT) test --skip-build --filter MapbookPortalServerTests

samples: setup
	python3 tools/samples/naperville.py $(DEMO_DIR)

demo: release samples
	@mkdir -p .build/demo
	.build/release/mapbook create $(DEMO_DIR)/project.yaml -o $(DEMO_OUT)
	.build/release/mapbook validate $(DEMO_OUT)
	.build/release/mapbook inspect $(DEMO_OUT)
	.build/release/mapbook search $(DEMO_OUT) "484 w sprng ave" --max 3
	.build/release/mapbook route $(DEMO_OUT) --from "484 W Spring Ave" --to "451 E Chicago Ave" -o .build/demo/route.png
	.build/release/mapbook legend $(DEMO_OUT)
	.build/release/mapbook render $(DEMO_OUT) --bookmark Downtown --legend -o .build/demo/811-Downtown.png
	@echo "Now look at it in this terminal: .build/release/mapbook view $(DEMO_OUT)   (? lists the keys, q quits)"

bench: release
	tools/bench/inspect-vs-unzip.sh

clean:
	rm -rf .build $(DEMO_DIR)/data $(DEMO_DIR)/images
