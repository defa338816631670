#!/bin/sh
# Installs the depot binary for this machine (or --platform), once the release's SHA256SUMS is proved
# to be signed by depot's release key and the binary's SHA-256 is the one it lists.
#
#   sh install.sh --server https://depot.example.com      # from a running depot (GET /client/depot)
#   sh install.sh --repo OWNER/NAME [--version v1.2.3]    # from a GitHub release (npm run build:all)
#
# Options (or their variables):
#   --server URL      DEPOT_URL            a depot to fetch from: it serves its own platform's binary,
#                                          others and the release's SHA256SUMS and SHA256SUMS.minisig
#                                          from CLIENT_BINARIES_DIR (a copy of the release's files)
#   --repo O/N        DEPOT_REPO           a GitHub repository whose releases carry depot-<platform>,
#                                          SHA256SUMS and SHA256SUMS.minisig (.github/workflows/release.yml)
#   --version TAG     DEPOT_VERSION        the release tag (default: the latest release)
#   --releases URL    DEPOT_RELEASES_URL   where a release's files are, instead of GitHub's address
#   --platform P      DEPOT_PLATFORM       linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64
#                                          (default: this machine's)
#   --dir DIR         DEPOT_INSTALL_DIR    where to put it (default: /usr/local/bin as root,
#                                          else ~/.local/bin)
#   --public-key KEY  DEPOT_PUBLIC_KEY     the release key's minisign public key (RW…), or a .pub file
#                                          holding it, instead of the one pinned below
#   --insecure                             allow plain http:// addresses (the signature is still checked)
#
# Needs curl or wget; sha256sum, shasum or openssl; and minisign, or else openssl 1.1.1 or newer, to
# check the signature. Anything that does not check out installs nothing.
set -eu

# The minisign public key of depot's releases. The copy of this script a release publishes has it
# filled in (npm run build:all with DEPOT_RELEASE_KEY_FILE writes dist/install.sh); in the repository
# it stays empty until the project pins its key (docs/operators.md: Releasing).
PINNED_PUBLIC_KEY=""

fail() {
  echo "install.sh: $*" >&2
  exit 1
}

server="${DEPOT_URL:-}"
repo="${DEPOT_REPO:-}"
version="${DEPOT_VERSION:-}"
releases="${DEPOT_RELEASES_URL:-}"
platform="${DEPOT_PLATFORM:-}"
dir="${DEPOT_INSTALL_DIR:-}"
public_key="${DEPOT_PUBLIC_KEY:-$PINNED_PUBLIC_KEY}"
insecure=""

while [ $# -gt 0 ]; do
  if [ "$1" = --insecure ]; then
    insecure=1
    shift
    continue
  fi
  [ $# -ge 2 ] || fail "$1 needs a value"
  case "$1" in
    --server) server="$2" ;;
    --repo) repo="$2" ;;
    --version) version="$2" ;;
    --releases) releases="$2" ;;
    --platform) platform="$2" ;;
    --dir) dir="$2" ;;
    --public-key) public_key="$2" ;;
    *) fail "unknown option $1 (see the top of this script)" ;;
  esac
  shift 2
done

if [ -z "$platform" ]; then
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW* | MSYS* | CYGWIN*) os=windows ;;
    *) fail "no depot binary for $(uname -s); pass --platform" ;;
  esac
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) fail "no depot binary for $(uname -m); pass --platform" ;;
  esac
  platform="$os-$arch"
fi
case "$platform" in
  linux-x64 | linux-arm64 | darwin-x64 | darwin-arm64) name=depot ;;
  windows-x64) name=depot.exe ;;
  *) fail "unknown platform $platform (linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64)" ;;
esac
file="depot-$platform"
[ "$platform" = windows-x64 ] && file="$file.exe"

if [ -z "$dir" ]; then
  if [ "$(id -u)" = 0 ]; then dir=/usr/local/bin; else dir="$HOME/.local/bin"; fi
fi

# source_name says where the binary comes from, the repository by name: the first line printed.
if [ -n "$server" ]; then
  source_url="${server%/}"
  source_name="the depot at $source_url"
elif [ -n "$repo" ] || [ -n "$releases" ]; then
  if [ -z "$releases" ]; then
    if [ -n "$version" ]; then
      releases="https://github.com/$repo/releases/download/$version"
    else
      releases="https://github.com/$repo/releases/latest/download"
    fi
    source_name="the GitHub repository $repo, release ${version:-latest} (${releases})"
  else
    source_name="${releases%/}"
  fi
  source_url="${releases%/}"
else
  fail "pass --server URL (a running depot) or --repo OWNER/NAME (GitHub releases)"
fi
case "$source_url" in
  https://*) ;;
  http://*)
    [ -n "$insecure" ] ||
      fail "$source_url is plain http: anyone on the way can change what it sends. Use https, or pass --insecure"
    ;;
  *) fail "$source_url is not an http(s) address" ;;
esac

# The public key as minisign's base64 (RW…, 42 bytes: "Ed", the key id, the Ed25519 key), from the
# option's value or from a .pub file's last line.
[ -n "$public_key" ] || fail "no public key to check the release's signature: this copy of install.sh pins none; use the install.sh published with the release, or pass --public-key KEY|FILE"
if [ -f "$public_key" ]; then
  public_key="$(grep -v '^untrusted comment:' "$public_key" | tr -d '\r' | grep . | tail -n 1)"
fi
case "$public_key" in
  RW*) ;;
  *) fail "--public-key: expected a minisign public key (RW…) or a file holding one" ;;
esac
[ "${#public_key}" -eq 56 ] || fail "--public-key: expected a minisign public key (RW…, 56 characters)"

# download URL FILE: the body into FILE. curl, else wget (GNU's or BusyBox's). Without --insecure curl
# follows no redirect to plain http; wget cannot be told so everywhere, which the signature makes harmless.
if command -v curl >/dev/null 2>&1; then
  if [ -n "$insecure" ]; then protocols='=https,http'; else protocols='=https'; fi
  download() { curl -fsSL --proto "$protocols" --proto-redir "$protocols" -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  download() { wget -q -O "$2" "$1"; }
else
  fail "needs curl or wget"
fi
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then
    openssl dgst -sha256 "$1" | sed 's/^.*= *//'
  else
    fail "needs sha256sum, shasum or openssl to check the download"
  fi
}

# openssl that can verify Ed25519 over raw input (pkeyutl -rawin): OpenSSL 1.1.1 or newer.
openssl_verifies() {
  command -v openssl >/dev/null 2>&1 || return 1
  case "$(openssl version 2>/dev/null)" in
    "OpenSSL 1.1.1"* | "OpenSSL "[3-9].*) return 0 ;;
    *) return 1 ;;
  esac
}

if command -v minisign >/dev/null 2>&1; then
  verifier=minisign
elif openssl_verifies; then
  verifier=openssl
else
  found="$(openssl version 2>/dev/null || echo none)"
  fail "needs minisign (https://jedisct1.github.io/minisign/), or openssl 1.1.1 or newer (found: $found), to check the release's signature; nothing installed"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/depot-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT INT TERM

# Byte ranges of a file: bytes FILE SKIP COUNT.
bytes() { dd if="$1" bs=1 skip="$2" count="$3" 2>/dev/null; }
# Line N of a file, without a CR.
line() { sed -n "$2p" "$1" | tr -d '\r'; }

# verify_with_openssl FILE SIGNATURE: what `minisign -V` checks, with openssl. SIGNATURE's line 2 is
# base64 of the algorithm ("Ed": Ed25519 over FILE; "ED": over its BLAKE2b-512, minisign's default),
# the key id and the signature; line 3 the trusted comment; line 4 the signature of the signature
# and that comment. Prints the trusted comment.
verify_with_openssl() {
  printf '%s' "$public_key" | openssl base64 -d -A >"$work/key.bin" 2>/dev/null || return 1
  line "$2" 2 | openssl base64 -d -A >"$work/sig.bin" 2>/dev/null || return 1
  line "$2" 4 | openssl base64 -d -A >"$work/global.bin" 2>/dev/null || return 1
  comment="$(line "$2" 3)"
  case "$comment" in
    "trusted comment: "*) comment="${comment#trusted comment: }" ;;
    *) return 1 ;;
  esac
  [ "$(wc -c <"$work/key.bin" | tr -d ' ')" = 42 ] || return 1
  [ "$(wc -c <"$work/sig.bin" | tr -d ' ')" = 74 ] || return 1
  [ "$(wc -c <"$work/global.bin" | tr -d ' ')" = 64 ] || return 1
  [ "$(bytes "$work/key.bin" 0 2)" = Ed ] || return 1
  bytes "$work/key.bin" 2 8 >"$work/key.id"
  bytes "$work/sig.bin" 2 8 | cmp -s - "$work/key.id" || return 1
  # The key as PEM: its DER is a fixed 12-byte prefix (base64 MCowBQYDK2VwAyEA) and the 32 bytes.
  {
    echo "-----BEGIN PUBLIC KEY-----"
    printf 'MCowBQYDK2VwAyEA%s\n' "$(bytes "$work/key.bin" 10 32 | openssl base64 -A)"
    echo "-----END PUBLIC KEY-----"
  } >"$work/key.pem"
  bytes "$work/sig.bin" 10 64 >"$work/sig.raw"
  case "$(bytes "$work/sig.bin" 0 2)" in
    Ed) cp "$1" "$work/signed" ;;
    ED) openssl dgst -blake2b512 -binary "$1" >"$work/signed" 2>/dev/null || return 1 ;;
    *) return 1 ;;
  esac
  openssl pkeyutl -verify -pubin -inkey "$work/key.pem" -rawin -in "$work/signed" \
    -sigfile "$work/sig.raw" >/dev/null 2>&1 || return 1
  { cat "$work/sig.raw" && printf '%s' "$comment"; } >"$work/comment.signed"
  openssl pkeyutl -verify -pubin -inkey "$work/key.pem" -rawin -in "$work/comment.signed" \
    -sigfile "$work/global.bin" >/dev/null 2>&1 || return 1
  printf '%s\n' "$comment"
}

# verify FILE SIGNATURE: succeeds when SIGNATURE is the release key's over FILE; prints its trusted comment.
verify() {
  if [ "$verifier" = minisign ]; then
    minisign -V -Q -P "$public_key" -m "$1" -x "$2" 2>/dev/null
  else
    verify_with_openssl "$1" "$2"
  fi
}

if [ -n "$server" ]; then
  sums_url="$source_url/client/SHA256SUMS"
  binary_url="$source_url/client/depot?platform=$platform"
  missing="(its operator puts the release's SHA256SUMS and SHA256SUMS.minisig in CLIENT_BINARIES_DIR)"
else
  sums_url="$source_url/SHA256SUMS"
  binary_url="$source_url/$file"
  missing="(a release made without DEPOT_RELEASE_KEY_FILE is not signed)"
fi
echo "install.sh: fetching $file from $source_name"
download "$sums_url" "$work/SHA256SUMS" || fail "$sums_url could not be fetched $missing; nothing installed"
download "$sums_url.minisig" "$work/SHA256SUMS.minisig" ||
  fail "$sums_url.minisig could not be fetched: the release is not signed $missing; nothing installed"
comment="$(verify "$work/SHA256SUMS" "$work/SHA256SUMS.minisig")" ||
  fail "the signature of SHA256SUMS does not check out with the release key $public_key ($verifier): it was changed, or signed by another key; nothing installed"
# The trusted comment (when it was signed, for which release) on one line: minisign separates with tabs.
echo "install.sh: SHA256SUMS is signed by the release key ($verifier; $(printf '%s' "$comment" | tr '\t' ' '))"
expected="$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")"
[ -n "$expected" ] || fail "SHA256SUMS lists no $file; nothing installed"
download "$binary_url" "$work/$file" ||
  fail "$binary_url could not be fetched (a depot without CLIENT_BINARIES_DIR serves only its own platform); nothing installed"

actual="$(sha256 "$work/$file")"
[ "$actual" = "$expected" ] || fail "checksum mismatch for $file: expected $expected, got $actual; nothing installed"

mkdir -p "$dir"
chmod 755 "$work/$file"
# Moved in whole: a running depot at the same path keeps its old file until it restarts.
cp "$work/$file" "$dir/.$name.new"
chmod 755 "$dir/.$name.new"
mv -f "$dir/.$name.new" "$dir/$name"
echo "install.sh: installed $dir/$name ($platform, sha256 $actual)"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "install.sh: $dir is not on your PATH" ;;
esac
