# Homebrew formula: builds cdinspect from source with `make install`.
#
#   brew tap OWNER/cdinspect https://github.com/OWNER/cdinspect
#   brew install cdinspect
#
# `url` and `sha256` name a release's source archive (a tag's tarball); `head` builds main.
class Cdinspect < Formula
  desc "Inspect and change Core Data and SwiftData SQLite stores from the command line"
  homepage "https://github.com/cdinspect/cdinspect"
  url "https://github.com/cdinspect/cdinspect/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "MIT"
  head "https://github.com/cdinspect/cdinspect.git", branch: "main"

  # Swift 6.2 is the floor: swift-log, which the MCP server's transport needs, declares tools 6.2.
  depends_on xcode: ["26.0", :build] if OS.mac?

  uses_from_macos "libedit"
  uses_from_macos "sqlite"
  uses_from_macos "zlib"

  on_linux do
    depends_on "swift" => :build
    depends_on "curl"
  end

  def install
    # libedit on both systems: the installed binary is MIT throughout.
    # SwiftPM's own sandbox cannot start inside Homebrew's build sandbox.
    args = ["PREFIX=#{prefix}"]
    args << "TRAITS=Editline" if OS.mac?
    args << (OS.mac? ? "EXTRA_SWIFT_FLAGS=--disable-sandbox" : "EXTRA_SWIFT_FLAGS=--traits Editline --disable-sandbox")
    system "make", "install", *args
  end

  test do
    assert_match "line editor: libedit", shell_output("#{bin}/cdinspect --version")
    # A store the tool can read: one table, as any SQLite file opens (each table an entity).
    system "sqlite3", testpath/"t.sqlite", "CREATE TABLE note (id INTEGER PRIMARY KEY, title TEXT); " \
                                            "INSERT INTO note (title) VALUES ('hello');"
    assert_match "hello", shell_output("#{bin}/cdinspect fetch #{testpath}/t.sqlite note --format csv")
  end
end
