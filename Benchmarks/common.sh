# Sourced by the benchmark scripts: checks the tools, builds release binaries (the Swift
# runtime linked statically, as a shipped binary would be) and writes the store of
# $people people once, into $store.
for tool in hyperfine sqlite3 /usr/bin/time python3; do
    command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install hyperfine sqlite3 time python3)" >&2; exit 1; }
done

out=Benchmarks/out
mkdir -p "$out"
store="$out/people-$people.sqlite"

echo "== building (release, static Swift runtime, as the README installs it)" >&2
# The compiler flags are the install's; both products take them, or each build would
# recompile what the other built. The C++ runtime the Swift runtime is written against is
# linked in with it (the README's design notes say why): the swift driver asks for
# -lstdc++ itself, so a folder holding only the static library, searched before gcc's own,
# is what makes that name find it.
cxx="$(pwd)/.build-bench/static-libstdc++"
libstdcxx=$(gcc -print-file-name=libstdc++.a)
[ -f "$libstdcxx" ] || { echo "no static libstdc++ (apt-get install libstdc++-12-dev, or the one of your gcc)" >&2; exit 1; }
mkdir -p "$cxx" && ln -sf "$libstdcxx" "$cxx/libstdc++.a"
flags="-Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors -Xswiftc -L$cxx -Xswiftc -Xclang-linker -Xswiftc -static-libgcc"
swift build -c release --static-swift-stdlib -Xlinker -no-pie $flags --disable-local-rpath --build-path .build-bench --product cdinspect >&2
swift build -c release --static-swift-stdlib $flags --build-path .build-bench --product cdi-example-store >&2
# Run as the README installs them: copied by install(1). The copy starts faster than the
# file the linker wrote (0.3-0.5 ms of a 5 ms count, same bytes, `perf stat -r 100`),
# which is not what a user runs.
bin="$out/bin"
install -d "$bin" && install -m 755 .build-bench/release/cdinspect .build-bench/release/cdi-example-store "$bin/"
if ldd "$bin/cdinspect" | grep -q 'libstdc++'; then
    echo "$bin/cdinspect loads the shared libstdc++: the static one was not linked in" >&2
    exit 1
fi

if [ ! -f "$store" ]; then
    echo "== writing $people people to $store" >&2
    "$bin/cdi-example-store" "$store" --people "$people" --model Examples/People.xcdatamodeld >&2
fi

# Start both tools from the store as it is read from disk, the way an existing store is
# inspected: dropped from the page cache here, read back by the first (warm-up) runs. Pages
# written moments ago stay cached in 4 KiB pieces, which a memory map (cdinspect reads
# through one) faults in one at a time; read from disk they come back in larger pieces.
# The sqlite3 shell reads with pread(2) and is the same either way. CACHE=as-written skips
# this, to measure the other case.
if [ "${CACHE:-}" != "as-written" ]; then
    for file in "$store" "$store-wal"; do
        # An `if`, not `[ … ] &&`: a store without a -wal would end the loop, and the
        # script under `set -e`, with a failure.
        if [ -f "$file" ]; then dd if="$file" iflag=nocache count=0 status=none; fi
    done
fi
