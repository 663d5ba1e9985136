# powersweep quick start:
#   make demo   install dependencies, build, run the quickstart sweep on a local virtual fleet
#   make test   install dependencies, build, run every test (ctest) and
#               Clang's thread-safety analysis of the sources
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: deps build demo test clean

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

clean:
	rm -rf $(BUILD_DIR)
