# Build, install and uninstall cdinspect and its MCP server, with the man page and the shell
# completions. The release build's flags live here alone: Benchmarks/common.sh builds
# through `make build` so that what is measured is what is installed.
#
#   make install                     (PREFIX=/usr/local; DESTDIR for staging)
#   make uninstall                   (removes every file install wrote)
#   make build BUILD_PATH=DIR        (the release binaries only, into DIR/release)

PREFIX ?= /usr/local
DESTDIR ?=
BUILD_PATH ?= .build-release
BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
RELEASE := $(BUILD_PATH)/release

INSTALLED := $(BINDIR)/cdinspect $(BINDIR)/cdinspect-mcp $(MANDIR)/cdinspect.1 \
	$(BASHDIR)/cdinspect $(ZSHDIR)/_cdinspect $(FISHDIR)/cdinspect.fish

ifeq ($(shell uname),Darwin)
# The SDK's libedit by default; TRAITS=Readline for Homebrew's GNU readline.
TRAITS ?= Editline
SWIFT_FLAGS := -c release --traits $(TRAITS)
else
# The Swift runtime and the C++ runtime beneath it linked into the binaries, so that they run
# without a Swift toolchain on the machine (and keep running when it moves or is upgraded).
# The swift driver asks for -lstdc++ itself: a folder holding only gcc's static libstdc++.a,
# searched first, is what makes that name find the static one. The binary is placed at a
# fixed address, generic types are made without a lookup by name, and no symbol is exported
# (the Swift driver exports every one of the program's own, some 11,000, and the dynamic
# loader and the runtime's dladdr(3) search them at every start): each makes it start
# faster (Benchmarks/README.md has the figures).
STATIC_CXX := $(abspath $(BUILD_PATH))/static-libstdc++
SWIFT_FLAGS := -c release --static-swift-stdlib --disable-local-rpath -Xlinker -no-pie -Xlinker --no-export-dynamic \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
	-Xswiftc -L$(STATIC_CXX) -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
endif

.PHONY: build install uninstall flags

build:
ifneq ($(shell uname),Darwin)
	@libstdcxx=$$(gcc -print-file-name=libstdc++.a 2>/dev/null); \
	if [ ! -f "$$libstdcxx" ]; then \
		echo "make: no static libstdc++.a (on Debian and Ubuntu: apt-get install gcc libstdc++-12-dev, or the one of your gcc)" >&2; exit 1; \
	fi; \
	mkdir -p "$(STATIC_CXX)" && ln -sf "$$libstdcxx" "$(STATIC_CXX)/libstdc++.a"
	@[ -f "$$(gcc -print-file-name=libcurl.so)" ] || \
		{ echo "make: the MCP server links libcurl (Foundation's networking): apt-get install libcurl4-openssl-dev" >&2; exit 1; }
endif
	swift build $(SWIFT_FLAGS) --build-path $(BUILD_PATH)
ifneq ($(shell uname),Darwin)
	@if ldd $(RELEASE)/cdinspect | grep -Eq 'libstdc\+\+|libswiftCore'; then \
		echo "make: $(RELEASE)/cdinspect loads a shared Swift or C++ runtime: the static ones were not linked in" >&2; exit 1; \
	fi
endif

install: build
	install -d $(BINDIR) $(MANDIR) $(BASHDIR) $(ZSHDIR) $(FISHDIR)
	install -m 755 $(RELEASE)/cdinspect $(RELEASE)/cdinspect-mcp $(BINDIR)/
	install -m 644 man/cdinspect.1 $(MANDIR)/
	$(RELEASE)/cdinspect --generate-completion-script bash > $(BASHDIR)/cdinspect
	$(RELEASE)/cdinspect --generate-completion-script zsh > $(ZSHDIR)/_cdinspect
	$(RELEASE)/cdinspect --generate-completion-script fish > $(FISHDIR)/cdinspect.fish

uninstall:
	rm -f $(INSTALLED)

# The swift build arguments of a release build, for scripts that build on their own.
flags:
	@echo $(SWIFT_FLAGS)
