#!/bin/sh
# Installs the depot binary for this machine (or --platform), checked against its SHA-256.
#
#   sh install.sh --server https://depot.example.com      # from a running depot (GET /client/depot)
#   sh install.sh --repo OWNER/NAME [--version v1.2.3]    # from a GitHub release (npm run build:all)
#
# Options (or their variables):
#   --server URL     DEPOT_URL            a depot to fetch from; it serves its own platform's binary,
#                                         others when its operator set CLIENT_BINARIES_DIR
#   --repo O/N       DEPOT_REPO           a GitHub repository whose releases carry depot-<platform>
#                                         and SHA256SUMS (.github/workflows/release.yml)
#   --version TAG    DEPOT_VERSION        the release tag (default: the latest release)
#   --releases URL   DEPOT_RELEASES_URL   where a release's files are, instead of GitHub's address
#   --platform P     DEPOT_PLATFORM       linux-x64, linux-arm64, darwin-x64, darwin-arm64, windows-x64
#                                         (default: this machine's)
#   --dir DIR        DEPOT_INSTALL_DIR    where to put it (default: /usr/local/bin as root,
#                                         else ~/.local/bin)
#
# Needs curl or wget, and sha256sum, shasum or openssl. A checksum that does not match installs nothing.
set -eu

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

while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || fail "$1 needs a value"
  case "$1" in
    --server) server="$2" ;;
    --repo) repo="$2" ;;
    --version) version="$2" ;;
    --releases) releases="$2" ;;
    --platform) platform="$2" ;;
    --dir) dir="$2" ;;
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

# download URL FILE [HEADERS]: the body into FILE, and the response headers into HEADERS when given
# (every response's on the way through redirects, the last one's last). curl, else wget (GNU's or
# BusyBox's, which print the headers indented on stderr).
if command -v curl >/dev/null 2>&1; then
  download() { curl -fsSL --proto '=https,http' ${3:+-D "$3"} -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  download() {
    if [ -n "${3:-}" ]; then wget -q -S -O "$2" "$1" 2>"$3"; else wget -q -O "$2" "$1"; fi
  }
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

work="$(mktemp -d "${TMPDIR:-/tmp}/depot-install.XXXXXX")"
trap 'rm -rf "$work"' EXIT INT TERM

if [ -n "$server" ]; then
  server="${server%/}"
  url="$server/client/depot?platform=$platform"
  echo "install.sh: fetching $file from $server"
  download "$url" "$work/$file" "$work/headers" ||
    fail "$url could not be fetched (a depot without CLIENT_BINARIES_DIR serves only its own platform)"
  # The last response's header (after any redirect), without its CR or wget's indent.
  expected="$(tr -d '\r' <"$work/headers" | sed -n 's/^ *[Xx]-[Dd]epot-[Ss]ha256: *//p' | tail -n 1)"
  [ -n "$expected" ] || fail "$server sent no X-Depot-Sha256: is it a depot?"
elif [ -n "$repo" ] || [ -n "$releases" ]; then
  if [ -z "$releases" ]; then
    if [ -n "$version" ]; then
      releases="https://github.com/$repo/releases/download/$version"
    else
      releases="https://github.com/$repo/releases/latest/download"
    fi
  fi
  releases="${releases%/}"
  echo "install.sh: fetching $file from $releases"
  download "$releases/SHA256SUMS" "$work/SHA256SUMS" || fail "$releases/SHA256SUMS could not be fetched"
  download "$releases/$file" "$work/$file" || fail "$releases/$file could not be fetched"
  expected="$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")"
  [ -n "$expected" ] || fail "SHA256SUMS lists no $file"
else
  fail "pass --server URL (a running depot) or --repo OWNER/NAME (GitHub releases)"
fi

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
