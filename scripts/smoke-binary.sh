#!/usr/bin/env bash
# Drives the compiled depot binary as a user would (docs/reference/cli.md, CLI): from an empty directory,
# with no DATABASE_URL, so it runs on the PGlite database embedded in the binary.
#
#   scripts/smoke-binary.sh dist/depot
#
# Checks: first start (the database the binary carries, unpacked) and /api/health; the setup link it prints
# (never logged), a new one from `depot setup:link`, and the first admin created with it through POST
# /api/setup; token:create / user:create --json while `serve` runs (done by the
# server through its control socket); migrate refused while `serve` holds the data directory (exit 1,
# "in use"); `healthcheck`; SIGTERM exits 0; demo:seed; the token authenticates GET /api/users/1 after a restart and its absence
# gives 401; a product reads with the API's string types, a demo license validates, a multipart release
# publishes and downloads whole and by range, refused publishes leave no file behind (a received file
# removes itself: `await using` in the compiled code), `depot publish` (fetched from GET /client/depot)
# publishes through resumable uploads, scripts/install.sh installs it from there (its SHA256SUMS signed, refused over http
# without --insecure), and `depot versions` / `depot download` list and fetch
# it, also with only what `depot login` stored; /docs and the UI script it names (embedded in the binary, same-origin) answer 200, and so do the
# dashboard at / and its script and stylesheet; `backup`
# while serve runs, `restore` into another directory and a server there that serves the release;
# `healthcheck` fails once the server is gone.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 PATH_TO_DEPOT_BINARY" >&2
  exit 2
fi
if [[ ! -x "$1" ]]; then
  echo "smoke: $1 is not an executable file" >&2
  exit 2
fi
BIN="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
SCRIPTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Every setting comes from the environment: make sure none leaks in from the caller.
unset DATABASE_URL TEST_DATABASE_URL DATA_DIR STORAGE_DIR APP_KEY APP_URL PORT HOST

WORK="$(mktemp -d "${TMPDIR:-/tmp}/depot-smoke.XXXXXX")"
NAME=smoke
# What the server hands out beside its own binary: a release's signed SHA256SUMS (install.sh step).
CLIENT_DIR="$WORK/client"
SERVER_ENV=(CLIENT_BINARIES_DIR="$CLIENT_DIR")
# shellcheck source=scripts/lib/binary.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/binary.sh"

cd "$WORK"
[[ -z "$(ls -A)" ]] || fail "working directory $WORK is not empty"
mkdir "$CLIENT_DIR"

# expect_refused NAME ARGS...: the command must exit 1 with an "in use" message on stderr.
expect_refused() {
  local name="$1"
  shift
  local code=0
  depot "$@" >"$WORK/out" 2>"$WORK/err" || code=$?
  if [[ $code -ne 1 ]]; then
    cat "$WORK/out" "$WORK/err" >&2
    fail "$name while serve runs: exit $code (expected 1)"
  fi
  grep -q "in use" "$WORK/err" || {
    cat "$WORK/err" >&2
    fail "$name while serve runs: stderr does not say the database is in use"
  }
  [[ ! -s "$WORK/out" ]] || {
    cat "$WORK/out" >&2
    fail "$name while serve runs: printed something on stdout"
  }
}

# json_field FIELD: reads one JSON object on stdin, prints the field.
json_field() {
  run_js -e 'let s="";process.stdin.on("data",(d)=>{s+=d});process.stdin.on("end",()=>{const v=JSON.parse(s)[process.argv.at(-1)];if(v===undefined||v===null)process.exit(1);process.stdout.write(String(v))})' "$1"
}

# http_code URL [CURL_ARGS...]: prints the status code; the body goes to $WORK/body.
http_code() {
  local url="$1"
  shift
  curl -sS --max-time 10 -o "$WORK/body" -w '%{http_code}' "$@" "$url"
}

step "binary: $BIN, work dir: $WORK, port: $PORT"
depot --version

step "first start of depot serve (embedded database unpacked from the binary)"
start_server "$WORK/serve-1.log"

step "the first start prints the setup link (APP_URL/setup?code=...) on stderr; its log line has no code"
printed_url="$(grep -Eo "^  http://localhost:$PORT/setup\?code=[A-Za-z0-9_-]{43}$" "$WORK/serve-1.log" | tr -d ' ')" ||
  fail "no setup link on depot serve's stderr"
printed_code="${printed_url##*code=}"
grep -q '"setup_link_expires_at":"' "$WORK/serve-1.log" || fail "the log does not say a setup link was printed"
if grep '^{' "$WORK/serve-1.log" | grep -qF "$printed_code"; then fail "the setup code is in the JSON log"; fi
echo "  $printed_url"

step "depot setup:link makes a new link through the running server; the printed one stops working"
setup_url="$(depot setup:link --json | json_field url)" || fail "setup:link --json printed no url"
setup_code="${setup_url##*code=}"
[[ "$setup_url" == "http://localhost:$PORT/setup?code=$setup_code" && "$setup_code" != "$printed_code" ]] ||
  fail "setup:link: unexpected link $setup_url"
echo "  $setup_url"

step "GET /setup is the dashboard; POST /api/setup refuses the replaced code, then creates the first admin"
code="$(http_code "$BASE/setup?code=$setup_code")"
[[ "$code" == "200" ]] && grep -q '/dashboard/assets/' "$WORK/body" || fail "GET /setup: HTTP $code"
code="$(http_code "$BASE/api/setup" -H 'Content-Type: application/json' \
  -d "{\"code\":\"$printed_code\",\"name\":\"Admin\",\"email\":\"admin@example.com\",\"password\":\"admin password\"}")"
[[ "$code" == "422" ]] && grep -q '"code":\["The setup code is invalid."\]' "$WORK/body" || {
  cat "$WORK/body" >&2
  fail "POST /api/setup with the replaced code: HTTP $code (expected 422 on code)"
}
code="$(http_code "$BASE/api/setup" -D "$WORK/headers" -H 'Content-Type: application/json' \
  -d "{\"code\":\"$setup_code\",\"name\":\"Admin\",\"email\":\"admin@example.com\",\"password\":\"admin password\"}")"
[[ "$code" == "201" ]] && grep -q '"email":"admin@example.com","role":{"id":1,"name":"admin"' "$WORK/body" || {
  cat "$WORK/body" >&2
  fail "POST /api/setup: HTTP $code (expected 201 with the admin)"
}
grep -qi '^set-cookie: depot_session=' "$WORK/headers" || fail "POST /api/setup: no session cookie"
[[ "$(json_path 'd.data.user.id' "$WORK/body")" == "1" ]] || fail "POST /api/setup: the admin is not user 1"
code="$(http_code "$BASE/api/setup")"
[[ "$code" == "404" ]] || fail "GET /api/setup once the admin exists: HTTP $code (expected 404)"
code="$(http_code "$BASE/setup?code=$setup_code")"
[[ "$code" == "404" ]] || fail "GET /setup once the admin exists: HTTP $code (expected 404)"

step "token:create --json while serve runs: done by the server, through its control socket"
token_json="$(depot token:create --user 1 --json)"
token_id="$(json_field id <<<"$token_json")" || fail "token:create: no id in $token_json"
token="$(json_field token <<<"$token_json")" || fail "token:create: no token in $token_json"
[[ "$token_id" =~ ^[0-9]+$ ]] || fail "token:create: id is not a number in $token_json"
[[ "$token" == "$token_id|"?* ]] || fail "token:create: token does not look like \"$token_id|…\""
echo "  {\"id\":$token_id,\"token\":\"$token_id|…\"}"

step "user:create --json while serve runs: done by the server too"
user_json="$(depot user:create --name Vera --email vera@example.com --role vendor --json)"
echo "  $user_json"
[[ "$(json_field id <<<"$user_json")" == "2" ]] || fail "user:create: expected \"id\":2 in $user_json"
[[ "$(json_field role <<<"$user_json")" == "vendor" ]] || fail "user:create: expected \"role\":\"vendor\" in $user_json"

step "migrate is refused while serve holds the embedded database"
expect_refused migrate migrate

step "depot healthcheck succeeds against the running server"
depot healthcheck --url "$BASE/api/health"

step "SIGTERM stops serve with exit 0"
stop_server
ran="$(grep -o '"msg":"control command","command":"[^"]*"' "$WORK/serve-1.log" | sed 's/.*"command":"//; s/"$//' | tr '\n' ' ')"
[[ "$ran" == "setup:link token:create user:create " ]] ||
  fail "the server did not log the three commands it ran for the CLI (it logged: $ran)"

step "demo:seed --json"
depot demo:seed --json >"$WORK/demo.json"
demo_admin="$(json_path 'd.users.admin.token' "$WORK/demo.json")" || fail "demo:seed: no admin token"
vendor="$(json_path 'd.users.vendors[0].token' "$WORK/demo.json")" || fail "demo:seed: no vendor token"
product="$(json_path 'd.products[0].id' "$WORK/demo.json")" || fail "demo:seed: no product"
license_key="$(json_path 'd.licenses[0].key' "$WORK/demo.json")" || fail "demo:seed: no license"

step "second start of depot serve"
start_server "$WORK/serve-2.log"

step "GET /api/products/{id} -> 200 with string flags"
code="$(http_code "$BASE/api/products/$product" -H "Authorization: Bearer $demo_admin")"
[[ "$code" == "200" ]] && grep -q '"featured":"1"' "$WORK/body" || {
  cat "$WORK/body" >&2
  fail "GET /api/products/$product: HTTP $code"
}

step "POST /api/v1/licenses/validate with a demo key -> VALID"
code="$(http_code "$BASE/api/v1/licenses/validate" -H 'Content-Type: application/json' -d "{\"key\":\"$license_key\"}")"
[[ "$code" == "200" ]] && grep -q '"code":"VALID"' "$WORK/body" || {
  cat "$WORK/body" >&2
  fail "validate: HTTP $code"
}

step "publish a version by multipart, then download it whole and by range"
head -c 300000 /dev/urandom >"$WORK/release.jar"
code="$(http_code "$BASE/api/products/$product/versions" -H "Authorization: Bearer $vendor" \
  -F version_name=9.9.9 -F title=Smoke -F changelog=smoke -F "file=@$WORK/release.jar")"
[[ "$code" == "201" ]] || {
  cat "$WORK/body" >&2
  fail "publish: HTTP $code (expected 201)"
}
download_url="$(json_path 'd.data.download_url.replace(/^https?:\/\/[^/]+/, "")' "$WORK/body")"
code="$(http_code "$BASE$download_url" -H "Authorization: Bearer $vendor")"
[[ "$code" == "200" ]] && cmp -s "$WORK/body" "$WORK/release.jar" || fail "download: HTTP $code or different bytes"
code="$(http_code "$BASE$download_url" -H "Authorization: Bearer $vendor" -H 'Range: bytes=0-9')"
[[ "$code" == "206" && "$(wc -c <"$WORK/body")" -eq 10 ]] || fail "ranged download: HTTP $code"

step "a differential download's Range: 1,000 ranges in a 31 KiB header -> 206 multipart/byteranges"
# Zero-padded offsets make the header longer than one for a 100 MiB file: the binary must start with
# Bun's header limit raised (scripts/build.ts), or Bun answers 431 before depot sees the request.
ranges="$(run_js -e 'console.log(Array.from({ length: 1000 }, (_, i) => `00000000${i * 290}-00000000${i * 290 + 99}`).join(", "))')"
code="$(http_code "$BASE$download_url" -H "Authorization: Bearer $vendor" -H "Range: bytes=$ranges" \
  -D "$WORK/headers")"
[[ "$code" == "206" ]] && grep -qi '^content-type: multipart/byteranges; boundary=' "$WORK/headers" || \
  fail "multi-range download: HTTP $code ($(grep -i '^content-type' "$WORK/headers"))"
[[ "$(grep -ac '^Content-Range: bytes ' "$WORK/body")" -eq 1000 ]] || fail "multi-range download: not 1,000 parts"

step "refused publishes (a missing field; a field too long for the multipart reader) leave no file behind"
releases_before="$(find "$WORK/data/releases" -type f | wc -l)"
code="$(http_code "$BASE/api/products/$product/versions" -H "Authorization: Bearer $vendor" \
  -F version_name=9.9.10 -F changelog=smoke -F "file=@$WORK/release.jar")"
[[ "$code" == "422" ]] && grep -q '"title":\["The title field is required."\]' "$WORK/body" || {
  cat "$WORK/body" >&2
  fail "publish without a title: HTTP $code (expected 422 on title)"
}
head -c 4194305 /dev/zero | tr '\0' x >"$WORK/long-changelog.txt"
code="$(http_code "$BASE/api/products/$product/versions" -H "Authorization: Bearer $vendor" \
  -F version_name=9.9.10 -F title=Smoke -F "changelog=<$WORK/long-changelog.txt" -F "file=@$WORK/release.jar")"
[[ "$code" == "422" ]] && grep -q '"changelog":\["The changelog field is too long."\]' "$WORK/body" || {
  cat "$WORK/body" >&2
  fail "publish with a changelog over 4 MiB: HTTP $code (expected 422 on changelog)"
}
releases_after="$(find "$WORK/data/releases" -type f | wc -l)"
[[ "$releases_after" == "$releases_before" ]] ||
  fail "refused publishes left files behind: $(find "$WORK/data/releases" -type f)"

step "depot versions and depot download (the client commands) list and fetch that release"
DEPOT_URL="$BASE" DEPOT_TOKEN="$vendor" depot versions --product "$product" --json >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/err" >&2
  fail "depot versions exited non-zero"
}
grep -q '"version_number":"9.9.9"' "$WORK/out" || fail "depot versions: 9.9.9 not listed: $(cat "$WORK/out")"
DEPOT_URL="$BASE" DEPOT_TOKEN="$vendor" depot download --product "$product" --version 9.9.9 \
  -o "$WORK/client-download.jar" --json >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/err" >&2
  fail "depot download exited non-zero"
}
cmp -s "$WORK/client-download.jar" "$WORK/release.jar" || fail "depot download: different bytes"
[[ "$(json_field sha256 <"$WORK/out")" == "$(sha256sum "$WORK/release.jar" | cut -d' ' -f1)" ]] ||
  fail "depot download: unexpected sha256 in $(cat "$WORK/out")"
rm "$WORK/client-download.jar"

step "depot login keeps the server and token (0600): depot versions then needs neither"
echo "$vendor" | DEPOT_CONFIG_DIR="$WORK/config" depot login --server "$BASE" --with-token >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/err" >&2
  fail "depot login exited non-zero"
}
[[ "$(stat -c %a "$WORK/config/login.json")" == "600" ]] || fail "depot login: login.json is not 0600"
DEPOT_CONFIG_DIR="$WORK/config" depot versions --product "$product" --json >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/err" >&2
  fail "depot versions after depot login exited non-zero"
}
grep -q '"version_number":"9.9.9"' "$WORK/out" || fail "depot versions after login: 9.9.9 not listed"

step "the binary a CI job fetches from GET /client/depot publishes through resumable uploads"
code="$(http_code "$BASE/client/depot")"
[[ "$code" == "200" ]] && cmp -s "$WORK/body" "$BIN" || fail "GET /client/depot: HTTP $code or not the binary"
mv "$WORK/body" "$WORK/depot-client" && chmod +x "$WORK/depot-client"
head -c 3000000 /dev/urandom >"$WORK/release-10.jar"
(cd "$WORK" && DEPOT_URL="$BASE" DEPOT_TOKEN="$vendor" ./depot-client publish release-10.jar --product "$product" \
  --version 10.0.0 --title Resumable --changelog smoke --chunk-size 1048576 --json) >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/err" >&2
  fail "depot publish exited non-zero"
}
[[ "$(json_path 'd.version.sha256' "$WORK/out")" == "$(sha256sum "$WORK/release-10.jar" | cut -d' ' -f1)" ]] ||
  fail "depot publish: unexpected result $(cat "$WORK/out")"
echo "  $(json_path 'd.status + " " + d.version.version_number + " (" + d.version.file_size + " bytes)"' "$WORK/out")"

step "scripts/install.sh --server installs this platform's binary from the running depot, signed and checked"
# The release's own SHA256SUMS, its signature and the install.sh pinning its key when the binary
# comes from a signed build (npm run build:all with DEPOT_RELEASE_KEY_FILE) that lists it; else a
# throwaway key (minisign) signs a SHA256SUMS listing it, as build:all would.
case "$(uname -m)" in aarch64 | arm64) arch=arm64 ;; *) arch=x64 ;; esac
listed="$(sha256sum "$BIN" | cut -d' ' -f1)  depot-linux-$arch"
dist_dir="$(dirname "$BIN")"
if [[ -f "$dist_dir/SHA256SUMS.minisig" && -f "$dist_dir/install.sh" ]] && grep -qxF "$listed" "$dist_dir/SHA256SUMS"; then
  cp "$dist_dir/SHA256SUMS" "$dist_dir/SHA256SUMS.minisig" "$CLIENT_DIR/"
  installer=("$dist_dir/install.sh")
  echo "  the release's signed SHA256SUMS and install.sh"
else
  minisign -G -W -p "$WORK/release.pub" -s "$WORK/release.key" >/dev/null || fail "minisign -G failed"
  echo "$listed" >"$CLIENT_DIR/SHA256SUMS"
  minisign -S -l -s "$WORK/release.key" -m "$CLIENT_DIR/SHA256SUMS" >/dev/null || fail "minisign -S failed"
  installer=("$SCRIPTS/install.sh" --public-key "$WORK/release.pub")
  echo "  a SHA256SUMS signed by a throwaway key"
fi
# Plain http: refused unless --insecure.
if sh "${installer[@]}" --server "$BASE" --dir "$WORK/bin" >"$WORK/out" 2>"$WORK/err"; then
  fail "install.sh installed over plain http without --insecure"
fi
grep -q "is plain http" "$WORK/err" || fail "install.sh over http: $(cat "$WORK/err")"
sh "${installer[@]}" --server "$BASE" --insecure --dir "$WORK/bin" >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/out" "$WORK/err" >&2
  fail "install.sh exited non-zero"
}
grep -o 'SHA256SUMS is signed .*' "$WORK/out" | sed 's/^/  /'
cmp -s "$WORK/bin/depot" "$BIN" || fail "install.sh: the installed file is not the binary"
[[ -x "$WORK/bin/depot" ]] || fail "install.sh: the installed file is not executable"
"$WORK/bin/depot" --version >/dev/null || fail "install.sh: the installed binary does not run"
grep -o 'installed .*' "$WORK/out" | sed 's/^/  /'

step "depot backup --json while serve runs (through its control socket)"
depot backup "$WORK/backup.tar.gz" --json >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/err" >&2
  fail "backup while serve runs exited non-zero"
}
[[ "$(json_field release_files <"$WORK/out")" == "2" ]] || fail "backup: expected 2 release files (multipart and resumable): $(cat "$WORK/out")"
echo "  $(wc -c <"$WORK/backup.tar.gz") bytes"

step "a CI matrix with the fetched client: two runners add their files to one draft, depot release publishes it"
head -c 20000 /dev/urandom >"$WORK/App-Setup-11.0.0-x64.exe"
head -c 20000 /dev/urandom >"$WORK/App-11.0.0-arm64.dmg"
for file in App-Setup-11.0.0-x64.exe App-11.0.0-arm64.dmg; do
  (cd "$WORK" && DEPOT_URL="$BASE" DEPOT_TOKEN="$vendor" ./depot-client publish "$file" --product "$product" \
    --version 11.0.0 --title Matrix --changelog smoke --draft --json) >"$WORK/out" 2>"$WORK/err" || {
    cat "$WORK/err" >&2
    fail "depot publish --draft $file exited non-zero"
  }
done
[[ "$(json_path 'd.status' "$WORK/out")" == "added" ]] || fail "the second runner did not add to the draft: $(cat "$WORK/out")"
(cd "$WORK" && DEPOT_URL="$BASE" DEPOT_TOKEN="$vendor" ./depot-client release 11.0.0 --product "$product" --json) \
  >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/err" >&2
  fail "depot release exited non-zero"
}
[[ "$(json_path 'd.status + " " + d.version.status + " " + d.version.artifacts.map((a) => a.platform + "/" + a.arch).join(",")' "$WORK/out")" == \
  "released published windows/x86_64,darwin/aarch64" ]] || fail "depot release: unexpected result $(cat "$WORK/out")"
echo "  $(json_path 'd.status + " " + d.version.version_number + " (" + d.version.artifacts.length + " files)"' "$WORK/out")"

step "GET /docs and the UI script it loads, embedded in the binary -> 200"
code="$(http_code "$BASE/docs")"
[[ "$code" == "200" ]] || fail "GET /docs: HTTP $code"
# Every src/href must be a path on depot itself: the page has to work without internet.
if grep -Eo '(src|href)="[^"]*"' "$WORK/body" | grep -Ev '="/[^/]'; then
  fail "GET /docs: the page loads something from another host (above)"
fi
ui_script="$(grep -Eo '<script src="/docs/assets/[^"]+\.js"' "$WORK/body" | cut -d'"' -f2)" ||
  fail "GET /docs: no <script src=\"/docs/assets/….js\"> in the page"
code="$(http_code "$BASE$ui_script" -D "$WORK/headers")"
[[ "$code" == "200" ]] || fail "GET $ui_script: HTTP $code"
grep -qi '^content-type: text/javascript' "$WORK/headers" || fail "GET $ui_script: not JavaScript"
(($(wc -c <"$WORK/body") > 1000000)) || fail "GET $ui_script: only $(wc -c <"$WORK/body") bytes"
echo "  $ui_script: $(wc -c <"$WORK/body") bytes"

step "GET / (the dashboard) and the script and stylesheet it names, embedded in the binary -> 200"
code="$(http_code "$BASE/" -D "$WORK/headers")"
[[ "$code" == "200" ]] || fail "GET /: HTTP $code"
grep -qi "^content-security-policy: default-src 'self'" "$WORK/headers" || fail "GET /: no self-only CSP"
if grep -Eo '(src|href)="[^"]*"' "$WORK/body" | grep -Ev '="/[^/]'; then
  fail "GET /: the page loads something from another host (above)"
fi
# The page links its icon too; the script and the stylesheet are what it cannot work without.
dashboard_assets="$(grep -Eo '(src|href)="/dashboard/assets/[^"]+\.(js|css)"' "$WORK/body" | cut -d'"' -f2)"
[[ "$(wc -l <<<"$dashboard_assets")" == "2" ]] || fail "GET /: expected a script and a stylesheet: $dashboard_assets"
for asset in $dashboard_assets; do
  code="$(http_code "$BASE$asset" -D "$WORK/headers")"
  [[ "$code" == "200" ]] || fail "GET $asset: HTTP $code"
  grep -Eqi '^content-type: text/(javascript|css)' "$WORK/headers" || fail "GET $asset: neither JavaScript nor CSS"
  echo "  $asset: $(wc -c <"$WORK/body") bytes"
done

step "GET /api/users/1 with the token -> 200 with the admin's e-mail"
code="$(http_code "$BASE/api/users/1" -H "Authorization: Bearer $token" -H "Accept: application/json")"
[[ "$code" == "200" ]] || {
  cat "$WORK/body" >&2
  fail "GET /api/users/1 with token: HTTP $code (expected 200)"
}
grep -q '"admin@example.com"' "$WORK/body" || {
  cat "$WORK/body" >&2
  fail "GET /api/users/1: body does not contain the admin's e-mail"
}

step "GET /api/users/1 without a token -> 401"
code="$(http_code "$BASE/api/users/1" -H "Accept: application/json")"
[[ "$code" == "401" ]] || {
  cat "$WORK/body" >&2
  fail "GET /api/users/1 without token: HTTP $code (expected 401)"
}

step "GET /api/users/1 with a wrong token -> 401"
code="$(http_code "$BASE/api/users/1" -H "Authorization: Bearer $token_id|not-the-secret" -H "Accept: application/json")"
[[ "$code" == "401" ]] || {
  cat "$WORK/body" >&2
  fail "GET /api/users/1 with a wrong token: HTTP $code (expected 401)"
}

step "SIGTERM stops serve with exit 0"
stop_server

step "depot restore --json into another directory, then serve the release from there"
DATA_DIR="$WORK/restored" depot restore "$WORK/backup.tar.gz" --json >"$WORK/out" 2>"$WORK/err" || {
  cat "$WORK/err" >&2
  fail "restore exited non-zero"
}
[[ "$(json_field release_files <"$WORK/out")" == "2" ]] || fail "restore: expected 2 release files: $(cat "$WORK/out")"
mv "$WORK/data" "$WORK/original" # the restored server must not find the original by accident
export DATA_DIR="$WORK/restored"
start_server "$WORK/restored.log"
code="$(http_code "$BASE$download_url" -H "Authorization: Bearer $vendor")"
[[ "$code" == "200" ]] && cmp -s "$WORK/body" "$WORK/release.jar" || fail "download after restore: HTTP $code or different bytes"
stop_server
unset DATA_DIR

step "depot healthcheck fails once the server is stopped"
code=0
depot healthcheck --url "$BASE/api/health" 2>"$WORK/err" || code=$?
[[ $code -ne 0 ]] || fail "healthcheck exited 0 against a stopped server"
echo "  exit $code: $(cat "$WORK/err")"

STEP="done"
echo "smoke: all checks passed"
