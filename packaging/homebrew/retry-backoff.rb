# Homebrew formula for retry, named retry-backoff: homebrew-core's "retry"
# is a different program that also installs bin/retry.  The url is the
# tarball of `make dist` as a release publishes it; sha256 is its line in
# the release's SHA256SUMS.  Checked here with `ruby -c` only
# (build-aux/ci-release.sh): there is no Homebrew to build it with.
# The fleet's stores are optional: built where hiredis's static archive
# is (pkgconfig(hiredis)), redis:// is in, and rediss:// where OpenSSL's
# or wolfSSL's headers are (libwolfssl is loaded first at run time,
# libssl otherwise).  Without them --budget and --breaker keep their
# state in local files, and a redis:// or rediss:// store is refused with
# one line.  This recipe asks for none of them.
class RetryBackoff < Formula
  desc "Rerun a failing command with exponential backoff and jitter"
  homepage "https://github.com/OWNER/retry"
  url "https://github.com/OWNER/retry/releases/download/v1.0.0/retry-backoff-1.0.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "ISC"

  on_linux do
    depends_on "pkg-config" => :build
    depends_on "libbsd"
  end

  conflicts_with "retry", because: "both install a `retry` binary"

  def install
    # macOS: the portable build (README.md, "Platforms"); its libc has the
    # BSD interfaces.  Linux: the Linux build, with Homebrew's libbsd.
    args = %W[PREFIX=#{prefix} MANDIR=#{man}
              BASHCOMPDIR=#{bash_completion}
              ZSHCOMPDIR=#{zsh_completion}
              FISHCOMPDIR=#{fish_completion}]
    args << "PORTABLE=1" if OS.mac?
    system "make", *args
    system "make", "install", *args
  end

  test do
    # A command that fails twice and then succeeds: three attempts, exit 0.
    (testpath/"flaky.sh").write <<~SH
      #!/bin/sh
      n=$(cat count 2>/dev/null || echo 0)
      n=$((n + 1))
      echo "$n" > count
      [ "$n" -ge 3 ]
    SH
    chmod 0755, testpath/"flaky.sh"
    output = shell_output("#{bin}/retry -n 5 -b 0 -- ./flaky.sh 2>&1")
    assert_match "succeeded on attempt 3/5", output
    assert_equal "3", (testpath/"count").read.strip
    # The final attempt's status is retry's.
    shell_output("#{bin}/retry -n 2 -b 0 -- sh -c 'exit 7' 2>&1", 7)
  end
end
