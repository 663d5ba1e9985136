# powersweep quick start:
#   make demo   install dependencies, build, run the quickstart sweep on a local virtual fleet
#   make test   install dependencies, build, run every test (ctest) and
#               Clang's thread-safety analysis of the sources
#   make vm-image    the guest of vm runs into $(BUILD_DIR)/vm-guest (make
#               build does it too; docs/vm.md)
#   make cross-test  cross-build the agent for aarch64 (Jetson) into
#               $(BUILD_DIR)-aarch64 and run it under qemu-user
#               (tests/cross/aarch64_agent_test.sh)
BUILD_DIR ?= build
# Release: -O2, no debug information (CMakeLists.txt); RelWithDebInfo adds -g.
BUILD_TYPE ?= Release
JOBS ?= $(shell nproc)

.PHONY: deps build vm-image demo test cross-test clean

deps:
	./infra/scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)
	cmake --build $(BUILD_DIR) -j $(JOBS)
	./infra/vm/build-guest-image.sh $(BUILD_DIR)/vm-guest

# The guest of vm runs (docs/vm.md): Debian's kernel and an initramfs,
# from Debian's packages, into $(BUILD_DIR)/vm-guest (the agent finds it).
vm-image: deps
	./infra/vm/build-guest-image.sh $(BUILD_DIR)/vm-guest

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
