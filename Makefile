# Build, install and uninstall cdinspect and its MCP server, with the man page and the shell
# completions. The release build's flags live here alone: Benchmarks/common.sh builds
# through `make build` so that what is measured is what is installed.
#
#   make install                     (PREFIX=/usr/local; DESTDIR for staging)
#   make uninstall                   (removes every file install wrote)
#   make build BUILD_PATH=DIR        (the release binaries only, into DIR/release)
#   make dist                        (a release archive and its SHA-256 into DISTDIR, default dist/)
#   make mcpb                        (DISTDIR/cdinspect.mcpb, the MCP bundle, from dist's server)

PREFIX ?= /usr/local
DESTDIR ?=
BUILD_PATH ?= .build-release
BINDIR := $(DESTDIR)$(PREFIX)/bin
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
BASHDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHDIR := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
RELEASE := $(BUILD_PATH)/release

INSTALLED := $(BINDIR)/cdinspect $(BINDIR)/cdinspect-mcp $(BINDIR)/cdinspect-browse $(MANDIR)/cdinspect.1 \
	$(BASHDIR)/cdinspect $(ZSHDIR)/_cdinspect $(FISHDIR)/cdinspect.fish

ifeq ($(shell uname),Darwin)
# The SDK's libedit by default; TRAITS=Readline for Homebrew's GNU readline.
TRAITS ?= Editline
SWIFT_FLAGS := -c release --traits $(TRAITS) $(EXTRA_SWIFT_FLAGS)
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
SWIFT_FLAGS := -c release $(EXTRA_SWIFT_FLAGS) --static-swift-stdlib --disable-local-rpath -Xlinker -no-pie -Xlinker --no-export-dynamic \
	-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
	-Xswiftc -L$(STATIC_CXX) -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
endif

# The version the binary reports (`cdinspect --version`), read from its one declaration.
VERSION := $(shell sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/cdinspect/CDInspect.swift)
DISTDIR ?= dist

.PHONY: build install uninstall flags dist mcpb

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
	install -m 755 $(RELEASE)/cdinspect $(RELEASE)/cdinspect-mcp $(RELEASE)/cdinspect-browse $(BINDIR)/
	install -m 644 man/cdinspect.1 $(MANDIR)/
	$(RELEASE)/cdinspect --generate-completion-script bash > $(BASHDIR)/cdinspect
	$(RELEASE)/cdinspect --generate-completion-script zsh > $(ZSHDIR)/_cdinspect
	$(RELEASE)/cdinspect --generate-completion-script fish > $(FISHDIR)/cdinspect.fish

uninstall:
	rm -f $(INSTALLED)

# The swift build arguments of a release build, for scripts that build on their own.
flags:
	@echo $(SWIFT_FLAGS)

# A release archive: the binaries, the man page, the completions, the licence and the README,
# under cdinspect-VERSION-PLATFORM/, with a SHA-256 checksum file beside it. The REPL edits
# lines with libedit here, so the archive is MIT throughout (GNU readline is GPL-3). On Linux
# the Swift and C++ runtimes are linked in (libedit, SQLite, zlib and libcurl come from the
# system); on macOS the binaries are universal (arm64 and x86_64).
ifeq ($(shell uname),Darwin)
PLATFORM := macos-universal
DIST_EXTRA := --arch arm64 --arch x86_64
DIST_RELEASE := .build-dist/apple/Products/Release
else
PLATFORM := linux-$(shell uname -m)
DIST_EXTRA := --traits Editline
DIST_RELEASE := .build-dist/release
# The symbol tables are a third of each binary and nothing at run time reads them.
DIST_STRIP := strip
endif
DIST_NAME := cdinspect-$(VERSION)-$(PLATFORM)
# Its own build folder by default; .ci/run shares install's (only the line editor's targets
# are built again), which saves a whole release build.
DIST_BUILD_PATH ?= .build-dist
DIST_MAKE := $(MAKE) BUILD_PATH=$(DIST_BUILD_PATH) EXTRA_SWIFT_FLAGS="$(DIST_EXTRA)" \
	RELEASE=$(subst .build-dist,$(DIST_BUILD_PATH),$(DIST_RELEASE))

dist:
	rm -rf $(DISTDIR)/$(DIST_NAME) && mkdir -p $(DISTDIR)/$(DIST_NAME)
	$(DIST_MAKE) install PREFIX=/ DESTDIR=$(abspath $(DISTDIR)/$(DIST_NAME))
	install -m 644 LICENSE README.md SECURITY.md $(DISTDIR)/$(DIST_NAME)/
	$(if $(DIST_STRIP),$(DIST_STRIP) $(DISTDIR)/$(DIST_NAME)/bin/cdinspect $(DISTDIR)/$(DIST_NAME)/bin/cdinspect-mcp $(DISTDIR)/$(DIST_NAME)/bin/cdinspect-browse)
	tar -C $(DISTDIR) -czf $(DISTDIR)/$(DIST_NAME).tar.gz $(DIST_NAME)
	cd $(DISTDIR) && (command -v sha256sum >/dev/null && sha256sum $(DIST_NAME).tar.gz || shasum -a 256 $(DIST_NAME).tar.gz) \
		> $(DIST_NAME).tar.gz.sha256
	@echo "wrote $(DISTDIR)/$(DIST_NAME).tar.gz"

# The MCP bundle Claude's desktop app installs in one click: manifest.json (manifest v0.4, a
# binary server, the store asked for at install as a file and passed as the server's
# argument; the tools and prompts asked of the server itself), the release archive's
# cdinspect-mcp and the licence, zipped. Packaging/mcpb.py checks the manifest against the
# schema's rules before it is packed.
ifeq ($(shell uname),Darwin)
MCPB_PLATFORM := darwin
else
MCPB_PLATFORM := linux
endif
MCPB_DIR := $(DISTDIR)/mcpb

mcpb: dist
	rm -rf $(MCPB_DIR) && mkdir -p $(MCPB_DIR)/server
	install -m 755 $(DISTDIR)/$(DIST_NAME)/bin/cdinspect-mcp $(MCPB_DIR)/server/
	install -m 644 LICENSE $(MCPB_DIR)/
	python3 Packaging/mcpb.py manifest $(MCPB_DIR)/server/cdinspect-mcp $(VERSION) $(MCPB_PLATFORM) > $(MCPB_DIR)/manifest.json
	python3 Packaging/mcpb.py check $(MCPB_DIR)/manifest.json
	rm -f $(DISTDIR)/cdinspect.mcpb
	python3 Packaging/mcpb.py pack $(MCPB_DIR) $(DISTDIR)/cdinspect.mcpb
	@echo "wrote $(DISTDIR)/cdinspect.mcpb"
