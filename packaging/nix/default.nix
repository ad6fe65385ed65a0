# retry as a Nix derivation, named retry-backoff as every package of it
# is (nixpkgs' "retry" is another program).  Written, not built here:
# there is no Nix on this machine.  Build it from a checkout with
#   nix-build packaging/nix
# or from the release tarball by replacing `src` with a fetchurl of it
# (its sha256 is in the release's SHA256SUMS).
# The fleet's stores are optional: built where hiredis's static archive
# is (pkgconfig(hiredis)), redis:// is in, and rediss:// where OpenSSL's
# or wolfSSL's headers are (libwolfssl is loaded first at run time,
# libssl otherwise).  Without them --budget and --breaker keep their
# state in local files, and a redis:// or rediss:// store is refused with
# one line.  This recipe asks for none of them.
{ pkgs ? import <nixpkgs> { } }:

pkgs.stdenv.mkDerivation {
  pname = "retry-backoff";
  version = "1.0.0";

  src = ../..;

  nativeBuildInputs = [ pkgs.pkg-config ];
  buildInputs = pkgs.lib.optionals pkgs.stdenv.isLinux [ pkgs.libbsd ];

  # The portable build on macOS (README.md, "Platforms").
  makeFlags = [
    "PREFIX=${placeholder "out"}"
  ] ++ pkgs.lib.optionals pkgs.stdenv.isDarwin [ "PORTABLE=1" ];

  doCheck = true;
  nativeCheckInputs = [ pkgs.bats pkgs.perl pkgs.procps ];
  checkTarget = "check-core";

  meta = with pkgs.lib; {
    description = "Rerun a failing command with exponential backoff and jitter";
    homepage = "https://github.com/OWNER/retry";
    license = licenses.isc;
    mainProgram = "retry";
    platforms = platforms.unix;
  };
}
