# powersweep quick start:
#   make demo   install dependencies, build, run the quickstart sweep on a local virtual fleet
#   make test   install dependencies, build, run every test (ctest) and
#               Clang's thread-safety analysis of the sources
#   make cross-test  cross-build the agent for aarch64 (Jetson) into
#               $(BUILD_DIR)-aarch64 and run it under qemu-user
#               (tests/cross/aarch64_agent_test.sh)
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: deps build demo test cross-test clean

deps:
	./infra/scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	./infra/scripts/demo.sh $(BUILD_DIR)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	./infra/scripts/thread-safety-check.sh $(BUILD_DIR)

cross-test: build
	JOBS=$(JOBS) ./infra/cross/build-aarch64.sh $(BUILD_DIR)-aarch64
	./tests/cross/aarch64_agent_test.sh $(BUILD_DIR) $(BUILD_DIR)-aarch64

clean:
	rm -rf $(BUILD_DIR)
